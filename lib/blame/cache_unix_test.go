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

// TestHostileCacheEntry: a cache entry that is a named pipe, a symlink to
// /dev/zero or a symlink out of the cache is not read (which would block,
// or never end); the pack is read from its manifest and the entry
// written again.
func TestHostileCacheEntry(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "entry.json")
	cases := map[string]func(p string) error{
		"named pipe":   func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"/dev/zero":    func(p string) error { return os.Symlink("/dev/zero", p) },
		"out of cache": func(p string) error { return os.Symlink(outside, p) },
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _, err := store.Init(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			d := pack(t, s, session{id: "a", steps: []step{write("a.txt", "alpha\n")}})
			c := OpenCache(t.TempDir())
			if _, _, err := New(s, []digest.Digest{d}, c); err != nil {
				t.Fatal(err)
			}
			// The entry outside the cache holds the right bytes: it is
			// refused for where it is, not for what it says.
			b, err := os.ReadFile(c.path(d))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(outside, b, 0o600)
			os.Remove(c.path(d))
			if err := plant(c.path(d)); err != nil {
				t.Skip(err)
			}
			done := make(chan error, 1)
			var st Stats
			go func() {
				var err error
				_, st, err = New(s, []digest.Digest{d}, c)
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("blame hangs on the cache entry")
			}
			if st.Cached != 0 {
				t.Errorf("%d packs read from the planted entry", st.Cached)
			}
			if fi, err := os.Lstat(c.path(d)); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("entry not written again: %v %v", fi, err)
			}
		})
	}
}

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
	want, _, err := New(s, []digest.Digest{d}, nil)
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
