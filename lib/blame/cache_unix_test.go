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

// TestHostileResultsList: a list of results that is a named pipe, a
// symlink to /dev/zero or one to a list elsewhere is not read, and not
// written through: blame neither hangs nor answers otherwise than a
// replay, and the list is replaced by one of its own.
func TestHostileResultsList(t *testing.T) {
	t.Parallel()
	s, ps, files := growing(t, 8) // the last pack's a.txt
	for _, kind := range []string{"fifo", "/dev/zero", "elsewhere"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			dir, before := grown(t, s, ps, files)
			elsewhere := t.TempDir()
			planted := map[string]string{}
			for l, b := range indexFiles(t, dir, "l") {
				n := filepath.Join(dir, l)
				os.Remove(n)
				switch kind {
				case "fifo":
					if err := syscall.Mkfifo(n, 0o600); err != nil {
						t.Skip(err)
					}
				case "/dev/zero":
					os.Symlink("/dev/zero", n)
				default:
					o := filepath.Join(elsewhere, filepath.Base(n))
					os.WriteFile(o, []byte(b), 0o600)
					os.Symlink(o, n)
					planted[o] = b
				}
			}
			done := make(chan bool)
			go func() {
				blameEach(t, kind, s, dir, ps, files)
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("blame hangs on a list of results")
			}
			keptAll(t, dir, before)
			if n := len(indexFiles(t, dir, "r")); n != len(before)+1 {
				t.Errorf("%d results after one pack more, %d before", n, len(before))
			}
			// a.txt's list is a file of its own again, naming its new
			// result alone; what the link led to is unchanged.
			again := indexFiles(t, dir, "l")
			if len(again) != 1 {
				t.Errorf("%d lists regular files after the blame, want 1", len(again))
			}
			for _, b := range again {
				body, err := unframe(listMagic, []byte(b))
				if names, ok := parseList(body); err != nil || !ok || len(names) != 1 {
					t.Errorf("list written again: %q", b)
				}
			}
			for o, was := range planted {
				if b, _ := os.ReadFile(o); string(b) != was {
					t.Errorf("%s, a list a link led to, written through: %q", o, b)
				}
			}
		})
	}
}
