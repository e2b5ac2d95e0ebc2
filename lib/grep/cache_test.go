package grep

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// TestPlacesCache: a search that keeps manifests without their metadata
// (the log's session aside) in a cache finds what a search without it finds, the first
// time and from the cache; an entry that is damaged, another pack's, or
// not a manifest is not used (and is written again); an entry of a pack
// the store no longer holds is not taken.
func TestPlacesCache(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := t.TempDir()
	c := placesCache(dir)
	cases := []struct {
		p   Pattern
		opt Options
	}{
		{Pattern{Expr: "needle"}, Options{}},
		{Pattern{Expr: "needle", IgnoreCase: true}, Options{Fields: Reasoning | Call}},
		{Pattern{Expr: "needle"}, Options{Agent: "explorer"}},
		{Pattern{Expr: "needle"}, Options{Session: "s-1", Fields: Prompt}},
		{Pattern{Expr: "e"}, Options{Mode: ModeCount}},
	}
	check := func(when string) {
		t.Helper()
		for _, tc := range cases {
			want, wantSt := f.search(t, tc.p, tc.opt)
			opt := tc.opt
			opt.CacheDir = dir
			got, st := f.search(t, tc.p, opt)
			if !reflect.DeepEqual(got, want) || st != wantSt {
				t.Errorf("%s, %q %+v: hits\n%s%+v\nwant\n%s%+v", when, tc.p.Expr, tc.opt, dump(got), st, dump(want), wantSt)
			}
		}
	}
	check("first search")
	// Each entry is the manifest with no step metadata, of the log's
	// metadata only the session, and the rest as it is.
	entries := map[digest.Digest][]byte{}
	for _, d := range f.packs {
		b, ok := c.Load(d)
		if !ok {
			t.Fatalf("no cache entry for %s", d.Short())
		}
		entries[d] = b
		mf, err := manifest.Load(f.s, d)
		if err != nil {
			t.Fatal(err)
		}
		mf.Metadata = nil
		if d == f.packs[0] {
			mf.Metadata = jsontext.Value(`{"session":{"sessionId":"s-1"}}`)
		}
		withMeta := 0
		for i := range mf.Steps {
			if mf.Steps[i].Metadata != nil {
				withMeta++
			}
			mf.Steps[i].Metadata = nil
		}
		if want, err := manifest.Encode(mf); err != nil || !bytes.Equal(b, want) {
			t.Errorf("entry of %s:\n%s\nwant\n%s", d.Short(), b, want)
		}
		if d == f.packs[0] && (withMeta == 0 || bytes.Contains(b, []byte(`"metadata":{"result"`))) {
			t.Errorf("the fixture's step metadata is not left out: %d steps with it; entry %s", withMeta, b)
		}
	}
	check("from the cache")
	p2, p1 := f.packs[0], f.packs[1]
	for name, plant := range map[string]func() error{
		"a byte changed": func() error {
			b, _ := os.ReadFile(c.Path(p2))
			b[len(b)-2] ^= 1
			return os.WriteFile(c.Path(p2), b, 0o600)
		},
		"another pack's entry": func() error {
			b, _ := os.ReadFile(c.Path(p1))
			return os.WriteFile(c.Path(p2), b, 0o600)
		},
		"not a manifest": func() error { return c.Save(p2, []byte(`{"steps":"none"}`)) },
	} {
		if err := plant(); err != nil {
			t.Fatal(err)
		}
		check(name)
		if b, ok := c.Load(p2); !ok || !bytes.Equal(b, entries[p2]) {
			t.Errorf("%s: the entry is not written again", name)
		}
	}
	// An entry of a pack no longer in the store is not taken.
	if err := os.Remove(f.s.ObjectPath(p1)); err != nil {
		t.Fatal(err)
	}
	m, _ := Compile(Pattern{Expr: "needle"})
	var errs int
	if _, err := Search(f.s, []digest.Digest{p1}, m, Options{CacheDir: dir}, func(r *Result) error {
		if r.Err == nil {
			t.Errorf("a result from the cache of a pack not in the store: %+v", r)
		}
		errs++
		return nil
	}); err != nil || errs != 1 {
		t.Errorf("Search = %v with %d errors, want one", err, errs)
	}
}
