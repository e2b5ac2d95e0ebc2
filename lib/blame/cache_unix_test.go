//go:build unix

package blame

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// TestHostileFileIndex: a file index whose catalog, results and entries
// are named pipes or symlinks (to /dev/zero, or to the right bytes
// elsewhere) is not read from them: blame neither hangs nor answers
// otherwise than a replay.
func TestHostileFileIndex(t *testing.T) {
	t.Parallel()
	s, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := pack(t, s, session{id: "a", steps: []step{write("a.txt", "alpha line of a.txt\n")}})
	want, _, err := New(s, []digest.Digest{d})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := openLazy(s, dir, []digest.Digest{d}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"a.txt": []byte("alpha line of a.txt\n")}
	open := opener(t, s, dir, []digest.Digest{d})
	sameBlame(t, "made", open, want, files)
	var names []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			names = append(names, p)
		}
		return nil
	})
	elsewhere := t.TempDir()
	for i, n := range names {
		b, _ := os.ReadFile(n)
		os.Remove(n)
		switch i % 3 {
		case 0:
			if err := syscall.Mkfifo(n, 0o600); err != nil {
				t.Skip(err)
			}
		case 1:
			os.Symlink("/dev/zero", n)
		case 2:
			o := filepath.Join(elsewhere, filepath.Base(n))
			os.WriteFile(o, b, 0o600)
			os.Symlink(o, n)
		}
	}
	done := make(chan bool)
	go func() {
		sameBlame(t, "planted", open, want, files)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("blame hangs on the file index")
	}
}
