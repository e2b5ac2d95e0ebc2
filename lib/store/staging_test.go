//go:build unix

package store

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
)

// TestStagingStale: the next Staging removes what a killed command left
// (old and unlocked), and nothing a running one holds or just made.
func TestStagingStale(t *testing.T) {
	s, _, err := Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := s.Path("tmp")
	old := time.Now().Add(-2 * StaleStaging)

	// A running pull's staging, old but held.
	held, release, err := s.Staging("pull-")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	os.Chtimes(held, old, old)
	// A killed pull's: old, unlocked, with a blob in it.
	dead := filepath.Join(tmp, "pull-dead")
	os.Mkdir(dead, 0o755)
	os.WriteFile(filepath.Join(dead, "blob-1"), make([]byte, 1<<20), 0o644)
	os.Chtimes(dead, old, old)
	// One just made, not yet locked.
	fresh := filepath.Join(tmp, "pull-fresh")
	os.Mkdir(fresh, 0o755)

	dir, rel, err := s.Staging("pull-")
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{held: true, dead: false, fresh: true, dir: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", p, err == nil, want)
		}
	}
	rel()
	if _, err := os.Stat(dir); err == nil {
		t.Error("release left the staging directory")
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Error("tmp/ was removed")
	}
}

// TestStagingConcurrent: staging directories come and go while refs are
// written through tmp/: none of them fails for the other.
func TestStagingConcurrent(t *testing.T) {
	t.Parallel()
	s, _, err := Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				if i%2 == 0 {
					dir, release, err := s.Staging("pull-")
					if err != nil {
						errs <- err
						return
					}
					os.WriteFile(filepath.Join(dir, "blob"), []byte("x"), 0o644)
					release()
					continue
				}
				if err := s.writeRef(s.Path("refs", "latest"), digest.Of([]byte{byte(i), byte(j)})); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
