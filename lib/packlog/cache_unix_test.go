//go:build unix

package packlog

import (
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/manifest"
)

// TestHostileCache: a cache file that is a named pipe or a symlink to
// /dev/zero is not read (which would block, or never end): the listing
// reads packs/ and writes the cache again.
func TestHostileCache(t *testing.T) {
	defer func(n int) { cacheMin = n }(cacheMin)
	cacheMin = 10
	for name, plant := range map[string]func(p string) error{
		"named pipe": func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"/dev/zero":  func(p string) error { return os.Symlink("/dev/zero", p) },
	} {
		t.Run(name, func(t *testing.T) {
			s, ds := newStore(t, 20)
			dir := t.TempDir()
			want := reference(t, s, ds)
			if _, err := List(s, Options{CacheDir: dir}); err != nil {
				t.Fatal(err)
			}
			file := cacheFile(t, dir)
			os.Remove(file)
			if err := plant(file); err != nil {
				t.Skip(err)
			}
			done := make(chan error, 1)
			var got []manifest.Summary
			go func() {
				l, err := List(s, Options{CacheDir: dir})
				if err == nil {
					got = summaries(l.Entries)
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("listing hangs on the cache file")
			}
			if !slices.Equal(got, summaries(want)) {
				t.Error("listing differs")
			}
			if fi, err := os.Lstat(file); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("cache not written again: %v", err)
			}
		})
	}
}

// TestHostileProjection: a projection that is a named pipe or a symlink to
// /dev/zero is not read: the manifest answers.
func TestHostileProjection(t *testing.T) {
	defer func(n int) { cacheMin = n }(cacheMin)
	cacheMin = 10
	s, ds := newStore(t, 20)
	dir := t.TempDir()
	q, err := ParseQuery(`environment.os=="linux"`)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{CacheDir: dir, Filter: Filter{Where: []Query{q}}}
	want, err := List(s, opt)
	if err != nil || len(want.Entries) != 20 {
		t.Fatal(err, len(want.Entries))
	}
	pc := projectionCache(dir)
	for _, plant := range []func(p string) error{
		func(p string) error { return syscall.Mkfifo(p, 0o600) },
		func(p string) error { return os.Symlink("/dev/zero", p) },
	} {
		for _, d := range ds {
			os.Remove(pc.Path(d))
			if err := plant(pc.Path(d)); err != nil {
				t.Skip(err)
			}
		}
		done := make(chan Listing, 1)
		go func() {
			l, err := List(s, opt)
			if err != nil {
				t.Error(err)
			}
			done <- l
		}()
		select {
		case l := <-done:
			if !slices.Equal(hashes(l.Entries), hashes(want.Entries)) {
				t.Error("listing differs")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("listing hangs on a projection")
		}
		// So does a lineage's (ctx-log --lineage), through the same cache.
		lineage := make(chan []Entry, 1)
		go func() {
			es, err := Lineage(s, ds[4]) // ds[0:5] is a chain
			if err != nil {
				t.Error(err)
			}
			kept, probs := Select(s, es, opt)
			if len(probs) > 0 {
				t.Error(probs)
			}
			lineage <- kept
		}()
		select {
		case kept := <-lineage:
			if len(kept) != 5 {
				t.Errorf("lineage: %d packs kept, want 5", len(kept))
			}
		case <-time.After(10 * time.Second):
			t.Fatal("lineage hangs on a projection")
		}
	}
}
