package fsck

import (
	"fmt"
	"sync"
	"testing"

	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// commitPack stores a small pack with objects of its own.
func commitPack(t *testing.T, s *store.Store, i int) *manifest.Manifest {
	in := put(t, s, fmt.Sprintf("input %d\n", i))
	out := put(t, s, fmt.Sprintf("output %d\n", i))
	m := &manifest.Manifest{
		Version: manifest.Version, Created: "2026-02-12T09:00:00Z",
		Model:   manifest.Model{Identifier: "m"},
		Prompts: []manifest.Prompt{},
		Inputs:  []manifest.File{{Name: "in.txt", ContentRef: in, Size: int64(len(fmt.Sprintf("input %d\n", i)))}},
		Steps:   []manifest.Step{},
		Outputs: []manifest.Output{{Name: "out.txt", ContentRef: out, Size: int64(len(fmt.Sprintf("output %d\n", i)))}},
	}
	if _, _, err := manifest.Commit(s, m); err != nil {
		t.Error(err)
	}
	return m
}

// TestPackFinalizedDuringCheck finalizes a pack after the objects were
// listed and before packs/ is: it is a healthy pack, not ST5 or ST6.
func TestPackFinalizedDuringCheck(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := newChecker(f.s, Options{})
	c.checkObjects()
	m := commitPack(t, f.s, 1)
	setRef(t, f.s, store.Latest, m.Hash)
	c.checkPacks()
	c.checkRefs()
	if r := c.report(m.Hash); len(r.Violations) > 0 {
		t.Fatalf("a pack finalized during the check is reported broken: %v", r.Violations)
	}
}

// TestConcurrentPacks verifies the store again and again while packs are
// being written: never a violation.
func TestConcurrentPacks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for i := range 25 {
			m := commitPack(t, f.s, i)
			setRef(t, f.s, store.Latest, m.Hash)
		}
	})
	defer wg.Wait() // before the store is removed
	runs := 0
	for loop := true; loop; runs++ {
		select {
		case <-done:
			loop = false
		default:
		}
		r, err := Store(f.s, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Violations) > 0 {
			t.Fatalf("run %d while packing: %v", runs, r.Violations)
		}
	}
}
