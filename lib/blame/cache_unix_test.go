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
