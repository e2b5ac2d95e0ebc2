package verdict

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
)

func TestCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v := Version(nil)
	a, b, p := digest.Of([]byte("a")), digest.Of([]byte("b")), digest.Of([]byte("pack"))
	c := Open(dir, v)
	if c.Clean(a) || c.PackClean(p) {
		t.Fatal("an empty cache knows something")
	}
	c.Add(a)
	c.AddPack(p)
	c.Save()

	c2 := Open(dir, v)
	if !c2.Clean(a) || c2.Clean(b) || !c2.PackClean(p) {
		t.Errorf("after Save: a %v b %v pack %v, want true false true", c2.Clean(a), c2.Clean(b), c2.PackClean(p))
	}
	// A torn last line costs a re-scan, nothing else.
	f, err := os.OpenFile(filepath.Join(dir, v, "objects"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(b.Hex()[:20])
	f.Close()
	if c3 := Open(dir, v); !c3.Clean(a) || c3.Clean(b) {
		t.Error("a torn line was read as a verdict")
	}
	// Another rule set, or no cache at all, knows nothing.
	if Open(dir, Version([]byte("[[allowlists]]"))).Clean(a) {
		t.Error("another rule set trusted these verdicts")
	}
	var none *Cache
	none.Add(a)
	none.Save()
	if none.Clean(a) || none.PackClean(p) || Open("", v) != nil {
		t.Error("a nil cache remembered something")
	}
}
