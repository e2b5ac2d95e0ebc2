//go:build unix

package verdict

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
)

// TestCacheNotAFile: a named pipe, or a link to /dev/zero, in place of
// the objects file or of a pack's verdict is neither read nor written:
// the cache knows nothing, and asking it and saving it return at once.
func TestCacheNotAFile(t *testing.T) {
	t.Parallel()
	a, p := digest.Of([]byte("a")), digest.Of([]byte("pack"))
	v := Version(nil)
	for _, kind := range []string{"fifo", "dev-zero"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, v, "packs"), 0o700); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"objects", filepath.Join("packs", p.Hex())} {
				place := filepath.Join(dir, v, name)
				switch kind {
				case "fifo":
					if err := syscall.Mkfifo(place, 0o600); err != nil {
						t.Skipf("mkfifo: %v", err)
					}
				case "dev-zero":
					if _, err := os.Stat("/dev/zero"); err != nil {
						t.Skip("no /dev/zero")
					}
					if err := os.Symlink("/dev/zero", place); err != nil {
						t.Fatal(err)
					}
				}
			}
			done := make(chan [2]bool)
			go func() {
				c := Open(dir, v)
				clean, packClean := c.Clean(a), c.PackClean(p)
				c.Add(a)
				c.AddPack(p)
				c.Save()
				done <- [2]bool{clean, packClean}
			}()
			select {
			case got := <-done:
				if got[0] || got[1] {
					t.Errorf("a %s in place of the cache was read as verdicts: object %v, pack %v", kind, got[0], got[1])
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the cache hangs on a %s in place of its files", kind)
			}
			if fi, err := os.Lstat(filepath.Join(dir, v, "objects")); err != nil || fi.Mode().IsRegular() {
				t.Errorf("the %s in place of the objects file was replaced or removed: %v", kind, err)
			}
		})
	}
}
