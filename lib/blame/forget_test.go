package blame

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// TestForget: after a store drops packs, Forget removes their entries
// (file index and --pack cache), one file each, and takes them and the
// paths only they had out of the catalog; blames of the store still give
// a replay's answer, and so do those of another store sharing the cache
// that still holds the packs.
func TestForget(t *testing.T) {
	t.Parallel()
	s, ps, files, _ := smallEdits(t)
	// Lines of a late session's file, found through the catalog's line
	// table, whose path numbers the packs gone change.
	files["elsewhere.go"] = []byte("// F28 is session 28's.\nfunc F28() int { return 28 * 2 }\n")
	other, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ops, _, err := packgen.Edits(other, 30, 200)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ps, ops) {
		t.Fatal("two stores made alike hold different packs")
	}
	dir := t.TempDir()
	fdir := filepath.Join(dir, filesDir)
	opener(t, s, fdir, ps)()
	if _, _, err := New(s, ps, OpenCache(dir)); err != nil {
		t.Fatal(err)
	}
	before := opener(t, s, fdir, ps)().lz.cat
	mustBlame(t, opener(t, s, fdir, ps)(), "big.go", files["big.go"])

	// Every other pack (not those that edit big.go), each the only one
	// with versions of a path, goes from the store as ctx-gc removes
	// them.
	var gone, rest []digest.Digest
	for i, d := range ps {
		if i%2 == 1 {
			gone = append(gone, d)
		} else {
			rest = append(rest, d)
		}
	}
	for _, d := range gone {
		if err := s.RemovePackEntry(d); err != nil {
			t.Fatal(err)
		}
		if err := s.RemoveObject(d); err != nil {
			t.Fatal(err)
		}
	}
	n, err := Forget(dir, gone)
	if err != nil || n != 2*len(gone) {
		t.Fatalf("Forget = %d, %v; want %d, nil", n, err, 2*len(gone))
	}
	for i, d := range ps {
		for _, f := range []string{filepath.Join(dir, cacheName(d)), filepath.Join(fdir, entryName(d))} {
			_, err := os.Lstat(f)
			if i%2 == 1 && !os.IsNotExist(err) || i%2 == 0 && err != nil {
				t.Errorf("pack %d: %s: %v", i, f, err)
			}
		}
	}
	fx := &fileIndex{dir: fdir, mem: map[string][]byte{}}
	after := fx.loadCatalog()
	if got, want := len(after.Packs), len(rest); got != want {
		t.Errorf("catalog: %d packs, want %d", got, want)
	}
	for _, d := range gone {
		if after.packs[d.String()] {
			t.Errorf("catalog still names %s", d.Short())
		}
	}
	// The paths are those of a catalog made from the packs left.
	fresh := opener(t, s, t.TempDir(), rest)().lz.cat
	if got, want := slices.Sorted(maps.Keys(after.ids)), slices.Sorted(maps.Keys(fresh.ids)); !slices.Equal(got, want) {
		t.Errorf("catalog paths %v, want %v", got, want)
	}
	if len(after.Paths) >= len(before.Paths) || len(after.lines) >= len(before.lines) {
		t.Errorf("catalog: %d paths, %d line pairs; before %d, %d", len(after.Paths), len(after.lines)/pairSize, len(before.Paths), len(before.lines)/pairSize)
	}
	if n, err := Forget(dir, gone); n != 0 || err != nil {
		t.Errorf("Forget again = %d, %v; want 0, nil", n, err)
	}

	want, _, err := New(s, rest, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBlame(t, "store collected", opener(t, s, fdir, rest), want, files)
	wantOther, _, err := New(other, ps, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBlame(t, "other store", opener(t, other, fdir, ps), wantOther, files)
	if c := fx.loadCatalog(); len(c.Packs) != len(ps) {
		t.Errorf("catalog after the other store's blame: %d packs, want %d", len(c.Packs), len(ps))
	}
	if _, _, err := New(other, ps, OpenCache(dir)); err != nil {
		t.Fatal(err)
	}

	if n, err := Forget("", ps); n != 0 || err != nil {
		t.Errorf("Forget without a cache = %d, %v", n, err)
	}
}
