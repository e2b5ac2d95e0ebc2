package store

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestInitConcurrent runs many Inits of one directory at once: exactly one
// creates the store, the others find it.
func TestInitConcurrent(t *testing.T) {
	t.Parallel()
	for round := range 20 {
		dir := filepath.Join(t.TempDir(), DirName)
		const n = 8
		var wg sync.WaitGroup
		results := make(chan bool, n)
		start := make(chan struct{})
		for range n {
			wg.Go(func() {
				<-start
				_, created, err := Init(dir)
				if err != nil {
					t.Error(err)
				}
				results <- created
			})
		}
		close(start)
		wg.Wait()
		close(results)
		count := 0
		for c := range results {
			if c {
				count++
			}
		}
		if count != 1 {
			t.Fatalf("round %d: %d of %d concurrent Inits report created, want 1", round, count, n)
		}
	}
}

// TestInitAt checks the one rule for a store location ("a .ctx directory or
// a directory holding one") as ctx-init applies it.
func TestInitAt(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, _, err := Init(filepath.Join(root, DirName)); err != nil {
		t.Fatal(err)
	}
	// A directory holding a store names that store.
	s, created, err := InitAt(root)
	if err != nil || created || s.Root() != filepath.Join(root, DirName) {
		t.Fatalf("InitAt(dir holding .ctx) = %v, %v, %v", s, created, err)
	}
	if _, err := os.Stat(filepath.Join(root, "config.json")); err == nil {
		t.Fatal("InitAt created a second store beside .ctx")
	}
	// The store directory itself.
	if s, created, err := InitAt(filepath.Join(root, DirName)); err != nil || created || s.Root() != filepath.Join(root, DirName) {
		t.Fatalf("InitAt(.ctx) = %v, %v, %v", s, created, err)
	}
	// A new directory becomes the store; OpenAt finds it there.
	fresh := filepath.Join(root, "fresh")
	if _, created, err := InitAt(fresh); err != nil || !created {
		t.Fatalf("InitAt(new dir) = %v, %v", created, err)
	}
	if s, err := OpenAt(fresh); err != nil || s.Root() != fresh {
		t.Fatalf("OpenAt(new store) = %v, %v", s, err)
	}
	// A directory holding other files gets .ctx inside.
	proj := filepath.Join(root, "proj")
	os.Mkdir(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "main.go"), nil, 0o644)
	if s, created, err := InitAt(proj); err != nil || !created || s.Root() != filepath.Join(proj, DirName) {
		t.Fatalf("InitAt(project) = %v, %v, %v", s, created, err)
	}
	if s, err := OpenAt(proj); err != nil || s.Root() != filepath.Join(proj, DirName) {
		t.Fatalf("OpenAt(project) = %v, %v", s, err)
	}
}

// TestInitUnreadableParent: a store can be made in a directory its user
// may write in but not list; the parent's sync is skipped there.
func TestInitUnreadableParent(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	parent := filepath.Join(t.TempDir(), "drop")
	if err := os.Mkdir(parent, 0o333); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(parent, 0o755)
	if _, created, err := Init(filepath.Join(parent, DirName)); err != nil || !created {
		t.Fatalf("Init in a write-only directory = %v, %v", created, err)
	}
}
