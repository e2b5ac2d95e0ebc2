package ref

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// commit finalizes a minimal pack and returns its hash.
func commit(t *testing.T, s *store.Store, created string, parent digest.Digest) digest.Digest {
	t.Helper()
	m := &manifest.Manifest{Version: manifest.Version, Created: created, Parent: parent, Model: manifest.Model{Identifier: "m"}}
	d, _, err := manifest.Commit(s, m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestResolve(t *testing.T) {
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	a := commit(t, s, "2026-01-01T00:00:00Z", digest.Digest{})
	b := commit(t, s, "2026-01-02T00:00:00Z", a)
	c := commit(t, s, "2026-01-03T00:00:00Z", b)
	set := func(name string, d digest.Digest) {
		if err := s.UpdateRef(name, func(*digest.Digest) (digest.Digest, error) { return d, nil }); err != nil {
			t.Fatal(err)
		}
	}
	set(store.Latest, c)
	set("v1", b)

	for ref, want := range map[string]digest.Digest{
		c.String(): c, c.Hex(): c, c.URI(): c, strings.ToUpper(c.Hex()): c,
		c.Hex()[:12]: c, "sha256:" + c.Hex()[:8]: c, "ctx://" + c.Hex()[:8]: c,
		"latest": c, "latest^": b, "latest^^": a, "latest~2": a, "latest~": b, "latest~0": c,
		"v1": b, "v1^": a, b.Hex()[:10] + "^": a,
	} {
		got, err := Resolve(s, ref)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", ref, got, err, want)
		}
	}

	for ref, want := range map[string]error{
		"latest^^^":        store.ErrNotFound, // a has no parent
		"nosuch":           store.ErrNotFound,
		"ffff0000":         store.ErrNotFound,
		"abc":              store.ErrNotFound, // could be a tag; no tag of that name
		"sha256:abc":       ErrInvalid,
		"not a ref!":       ErrInvalid,
		"^":                ErrInvalid,
		"latest~x":         ErrInvalid,
		"sha256:" + "zz99": ErrInvalid,
	} {
		if _, err := Resolve(s, ref); !errors.Is(err, want) {
			t.Errorf("Resolve(%q) = %v, want %v", ref, err, want)
		}
	}

	// A full hash resolves even when absent: manifest.Load reports it.
	absent := digest.Of([]byte("x"))
	if got, err := Resolve(s, absent.String()); err != nil || got != absent {
		t.Errorf("Resolve(absent full hash) = %s, %v", got, err)
	}
}

func TestAmbiguous(t *testing.T) {
	s, _, _ := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	s.SetSyncMode(store.SyncNone)
	// Make packs until two share a 4-digit prefix (about 300 by the birthday bound).
	byPrefix := map[string][]digest.Digest{}
	var prefix string
	for i := 0; prefix == ""; i++ {
		d := commit(t, s, fmt.Sprintf("2026-01-01T%02d:%02d:%02dZ", i/3600, i/60%60, i%60), digest.Digest{})
		p := d.Hex()[:4]
		byPrefix[p] = append(byPrefix[p], d)
		if len(byPrefix[p]) > 1 {
			prefix = p
		}
		if i > 5000 {
			t.Fatal("no shared prefix found")
		}
	}
	_, err := Resolve(s, prefix)
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) < 2 {
		t.Fatalf("Resolve(%s) = %v, want AmbiguousError", prefix, err)
	}
	for _, d := range byPrefix[prefix] {
		if !strings.Contains(err.Error(), d.String()) {
			t.Errorf("error %q does not list candidate %s", err, d)
		}
	}
}

func TestReadStream(t *testing.T) {
	for in, want := range map[string]string{
		"":                  "",
		"latest v1\n abcd ": "latest|v1|abcd",
		`"latest" "v1"`:     "latest|v1",
		`{"hash":"sha256:aa","x":1}` + "\n" + `{"uri":"ctx://bb"}`: "sha256:aa|ctx://bb",
		`{"hash":"h","uri":"u"}`:                                   "h",
	} {
		items, err := ReadStream(strings.NewReader(in))
		if err != nil {
			t.Fatalf("ReadStream(%q) = %v", in, err)
		}
		var got []string
		for _, it := range items {
			got = append(got, it.Ref)
		}
		if strings.Join(got, "|") != want {
			t.Errorf("ReadStream(%q) = %q, want %q", in, got, want)
		}
	}
	for _, in := range []string{`{"x":1}`, `"a" [1]`, `{"hash":1}`, `"unterminated`} {
		if _, err := ReadStream(strings.NewReader(in)); err == nil {
			t.Errorf("ReadStream(%q) succeeded", in)
		}
	}
}
