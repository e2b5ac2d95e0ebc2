package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
)

// TestObjectDirFanOut: an ObjectDir reads objects through their fan-out
// directories, opened once each whatever the readers at once, and closes
// them with itself; a fan-out directory that is a symlink is read through
// as before, from the objects directory.
func TestObjectDirFanOut(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	s := newStore(t)
	var ds []digest.Digest
	want := map[digest.Digest]string{}
	for i := range 300 {
		c := fmt.Sprintf("object %d", i)
		d, _, err := s.Put([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
		want[d] = c
	}
	// One fan-out directory moved elsewhere, a symlink in its place.
	moved := ds[0].Hex()[:2]
	elsewhere := filepath.Join(t.TempDir(), moved)
	if err := os.Rename(filepath.Join(s.Path("objects"), moved), elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(s.Path("objects"), moved)); err != nil {
		t.Fatal(err)
	}
	fds := func() int {
		es, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}
	before := fds()
	o, err := s.OpenObjectDir()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			var buf []byte
			for _, d := range ds {
				b, _, err := o.GetUpToInto(d, 64, buf)
				if err != nil || string(b) != want[d] {
					t.Errorf("%s = %q, %v; want %q", d.Short(), b, err, want[d])
					return
				}
				buf = b
			}
		})
	}
	wg.Wait()
	fans := map[string]bool{}
	for _, d := range ds {
		if h := d.Hex()[:2]; h != moved {
			fans[h] = true
		}
	}
	if open := fds() - before; open != len(fans)+1 {
		t.Errorf("%d descriptors open, want the objects directory and %d fan-out directories", open, len(fans))
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if after := fds(); after != before {
		t.Errorf("%d descriptors open after Close, %d before", after, before)
	}
}
