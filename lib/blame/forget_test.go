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

// TestForget: after a store drops packs, Forget removes their entries in
// the file index, one file each, and takes them and the
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
	fx := &fileIndex{dir: fdir, mem: map[string][]byte{}}
	// The blobs of the packs gone: their sections and line tables, no
	// other pack's here (each is the only one of its session).
	blobsOf := func(ds []digest.Digest) map[string]bool {
		t.Helper()
		refs := map[string]bool{}
		for _, d := range ds {
			en, ok := fx.stored(d)
			if !ok {
				t.Fatalf("no entry of %s", d.Short())
			}
			for _, ref := range append(en.Sections, en.Lines) {
				refs[ref] = true
			}
		}
		return refs
	}
	goneBlobs, restBlobs := blobsOf(gone), blobsOf(rest)
	for ref := range goneBlobs {
		if restBlobs[ref] {
			t.Fatalf("blob %s of a pack gone and of one kept", ref)
		}
	}
	n, err := Forget(dir, gone)
	if want := len(gone) + len(goneBlobs); err != nil || n != want {
		t.Fatalf("Forget = %d, %v; want %d, nil", n, err, want)
	}
	for refs, wantGone := range map[*map[string]bool]bool{&goneBlobs: true, &restBlobs: false} {
		for ref := range *refs {
			name, _ := blobName(ref)
			if _, err := os.Lstat(filepath.Join(fdir, name)); wantGone != os.IsNotExist(err) {
				t.Errorf("blob %s (of a pack gone: %v): %v", ref, wantGone, err)
			}
		}
	}
	for i, d := range ps {
		for _, f := range []string{filepath.Join(fdir, entryName(d))} {
			_, err := os.Lstat(f)
			if i%2 == 1 && !os.IsNotExist(err) || i%2 == 0 && err != nil {
				t.Errorf("pack %d: %s: %v", i, f, err)
			}
		}
	}
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

	want, _, err := New(s, rest)
	if err != nil {
		t.Fatal(err)
	}
	sameBlame(t, "store collected", opener(t, s, fdir, rest), want, files)
	wantOther, _, err := New(other, ps)
	if err != nil {
		t.Fatal(err)
	}
	sameBlame(t, "other store", opener(t, other, fdir, ps), wantOther, files)
	if c := fx.loadCatalog(); len(c.Packs) != len(ps) {
		t.Errorf("catalog after the other store's blame: %d packs, want %d", len(c.Packs), len(ps))
	}

	if n, err := Forget("", ps); n != 0 || err != nil {
		t.Errorf("Forget without a cache = %d, %v", n, err)
	}
}

// TestForgetSnapshots: a snapshot's blobs that a later snapshot of its
// session shares stay, so that the later one's entry is used as it is.
func TestForgetSnapshots(t *testing.T) {
	t.Parallel()
	s, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	first := []step{write("a.txt", "alpha one\nalpha two\n"), write("b.txt", "bravo one\nbravo two\n")}
	s1 := pack(t, s, session{id: "s", steps: first})
	s2 := pack(t, s, session{id: "s", steps: append(first, replace("a.txt", "alpha two", "alpha three"))})
	other := pack(t, s, session{id: "t", created: "2026-01-02T10:00:00Z", steps: []step{write("c.txt", "charlie one\n")}})
	dir := t.TempDir()
	fdir := filepath.Join(dir, filesDir)
	opener(t, s, fdir, []digest.Digest{s1, s2, other})()
	fx := &fileIndex{dir: fdir, mem: map[string][]byte{}}
	e1, ok1 := fx.stored(s1)
	e2, ok2 := fx.stored(s2)
	if !ok1 || !ok2 {
		t.Fatal("no entries")
	}
	shared := 0
	for _, ref := range e1.Sections {
		if slices.Contains(e2.Sections, ref) {
			shared++
		}
	}
	if shared != 1 || len(e1.Sections) != 2 {
		t.Fatalf("snapshot 1: %d sections, %d shared with snapshot 2; want 2, 1 (b.txt)", len(e1.Sections), shared)
	}
	entry2 := filepath.Join(fdir, entryName(s2))
	before, err := os.Stat(entry2)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(digest.Digest) error{s.RemovePackEntry, s.RemoveObject} {
		if err := f(s1); err != nil {
			t.Fatal(err)
		}
	}
	// Its entry, its section of a.txt and its line table.
	if n, err := Forget(dir, []digest.Digest{s1}); n != 3 || err != nil {
		t.Fatalf("Forget = %d, %v; want 3, nil", n, err)
	}
	for _, ref := range append(e2.Sections, e2.Lines) {
		name, _ := blobName(ref)
		if _, err := os.Lstat(filepath.Join(fdir, name)); err != nil {
			t.Errorf("blob %s of snapshot 2: %v", ref, err)
		}
	}
	live := []digest.Digest{s2, other}
	want, _, err := New(s, live)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"a.txt": []byte("alpha one\nalpha three\n"), "b.txt": []byte("bravo one\nbravo two\n"), "c.txt": []byte("charlie one\n")}
	sameBlame(t, "after Forget", opener(t, s, fdir, live), want, files)
	if after, err := os.Stat(entry2); err != nil || !os.SameFile(before, after) {
		t.Errorf("snapshot 2's entry was derived again (%v)", err)
	}
}
