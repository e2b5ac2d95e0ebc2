package packlog

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// newStore returns a store holding n generated packs (4 per created time,
// chains of 5) and their digests in generation order.
func newStore(t *testing.T, n int) (*store.Store, []digest.Digest) {
	t.Helper()
	s, _, err := store.Init(t.TempDir() + "/.ctx")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := packgen.Generate(s, packgen.Options{N: n, Same: 4, Chain: 5})
	if err != nil {
		t.Fatal(err)
	}
	return s, ds
}

// reference lists the store the slow, obvious way: every manifest loaded
// and verified, summarised, sorted.
func reference(t *testing.T, s *store.Store, ds []digest.Digest) []Entry {
	t.Helper()
	var es []Entry
	for _, d := range ds {
		m, err := manifest.Load(s, d)
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewEntry(manifest.Summarize(m))
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	Sort(es)
	return es
}

func summaries(es []Entry) []manifest.Summary {
	var out []manifest.Summary
	for _, e := range es {
		out = append(out, e.Summary)
	}
	return out
}

func TestList(t *testing.T) {
	t.Parallel()
	s, ds := newStore(t, 1000)
	want := reference(t, s, ds)
	l, err := List(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Problems) > 0 || l.Total != len(ds) {
		t.Fatalf("problems %v, total %d", l.Problems, l.Total)
	}
	if !slices.Equal(summaries(l.Entries), summaries(want)) {
		t.Fatal("List differs from the manifests, sorted")
	}
	for _, n := range []int{1, 20, 999, 1000} {
		l, err := List(s, Options{Limit: n})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(summaries(l.Entries), summaries(want[:n])) {
			t.Errorf("List(Limit: %d) is not the first %d", n, n)
		}
	}

	// Tags are attached; model and manifest queries filter.
	tag := func(name string, d digest.Digest) {
		if err := s.UpdateRef(name, func(*digest.Digest) (digest.Digest, error) { return d, nil }); err != nil {
			t.Fatal(err)
		}
	}
	tag("v1", want[3].Hash)
	tag("best", want[3].Hash)
	q, err := ParseQuery("model.parameters.seed<20")
	if err != nil {
		t.Fatal(err)
	}
	l, err = List(s, Options{Filter: Filter{Model: "gpt-4o", Where: []Query{q}}, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Seeds are generation indexes; gpt-4o is every third pack.
	index := map[digest.Digest]int{}
	for i, d := range ds {
		index[d] = i
	}
	var wantSeed []manifest.Summary
	for _, e := range want {
		if i := index[e.Hash]; i < 20 && i%3 == 0 && len(wantSeed) < 3 {
			wantSeed = append(wantSeed, e.Summary)
		}
	}
	if !slices.Equal(summaries(l.Entries), wantSeed) {
		t.Errorf("manifest query: got %v, want %v", summaries(l.Entries), wantSeed)
	}
	l, err = List(s, Options{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Entries[3].Tags; !slices.Equal(got, []string{"best", "v1"}) {
		t.Errorf("tags %v", got)
	}
	if l.Entries[2].Tags != nil {
		t.Errorf("untagged pack has tags %v", l.Entries[2].Tags)
	}
}

// A corrupt entry is a problem; every other pack is still listed.
func TestListCorrupt(t *testing.T) {
	t.Parallel()
	s, ds := newStore(t, 30)
	bad := digest.Of([]byte("bad"))
	if err := os.WriteFile(s.Path("packs", bad.Hex()), []byte("{not json\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	liar := digest.Of([]byte("liar"))
	if err := os.WriteFile(s.Path("packs", liar.Hex()), encode(t, manifest.Summary{Hash: hashA, Created: "2026-01-01T00:00:00Z", Model: "m"}), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path("packs", "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := List(s, Options{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) != 2 || l.Total != len(ds) {
		t.Errorf("listed %d of %d", len(l.Entries), l.Total)
	}
	if len(l.Problems) != 2 {
		t.Fatalf("problems %v", l.Problems)
	}
	for _, p := range l.Problems {
		if !errors.Is(p, store.ErrCorrupt) {
			t.Errorf("%v is not ErrCorrupt", p)
		}
	}
}

func TestLineage(t *testing.T) {
	t.Parallel()
	s, ds := newStore(t, 12) // chains ds[0:5], ds[5:10], ds[10:12]
	got, err := Lineage(s, ds[9])
	if err != nil {
		t.Fatal(err)
	}
	var gotHashes []digest.Digest
	for _, e := range got {
		gotHashes = append(gotHashes, e.Hash)
	}
	if want := []digest.Digest{ds[9], ds[8], ds[7], ds[6], ds[5]}; !slices.Equal(gotHashes, want) {
		t.Errorf("lineage %v, want %v", gotHashes, want)
	}
	if !got[4].Parent.IsZero() {
		t.Errorf("root has parent %s", got[4].Parent)
	}

	if _, err := Lineage(s, hashA); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("lineage of a missing pack: %v", err)
	}

	// A missing ancestor: the lineage so far, and an error naming it.
	if err := os.Chmod(s.Path("packs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.Path("packs", ds[7].Hex())); err != nil {
		t.Fatal(err)
	}
	got, err = Lineage(s, ds[9])
	if len(got) != 2 || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("got %d entries, error %v", len(got), err)
	}
	if want := "parent " + ds[7].String() + " of pack " + ds[8].String() + " is not in this store: not found"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// Read through openat gives what the store's own reads give.
func TestReadMatchesStore(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, 300)
	es, probs, err := Read(s)
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	ds, err := s.Packs("")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != len(ds) {
		t.Fatalf("read %d entries, store has %d", len(es), len(ds))
	}
	for _, e := range es {
		sum, err := manifest.LoadSummary(s, e.Hash)
		if err != nil {
			t.Fatal(err)
		}
		if sum != e.Summary {
			t.Errorf("%s: read %+v, store %+v", e.Hash, e.Summary, sum)
		}
	}
}

// A manifest query over more packs than one window of readers keeps the
// listing's order, stops at the limit, and reports a manifest that cannot
// be read where it comes, listing the rest.
func TestListManifestQueryWindows(t *testing.T) {
	s, ds := newStore(t, 300)
	want := reference(t, s, ds)
	q, err := ParseQuery("model.parameters.seed>=0")
	if err != nil {
		t.Fatal(err)
	}
	// The 100th pack's manifest is gone.
	gone := want[100].Hash
	if err := os.Chmod(filepath.Dir(s.Path("objects", gone.Hex()[:2], gone.Hex()[2:])), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.Path("objects", gone.Hex()[:2], gone.Hex()[2:])); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{0, 7, 150} {
		l, err := List(s, Options{Filter: Filter{Where: []Query{q}}, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var w []manifest.Summary
		for i, e := range want {
			if i != 100 && (limit == 0 || len(w) < limit) {
				w = append(w, e.Summary)
			}
		}
		if !slices.Equal(summaries(l.Entries), w) {
			t.Errorf("limit %d: %d packs listed, want %d in the listing's order", limit, len(l.Entries), len(w))
		}
		if problems := len(l.Problems); (limit == 0 || limit > 100) != (problems == 1) {
			t.Errorf("limit %d: %d problems: %v", limit, problems, l.Problems)
		}
	}
}
