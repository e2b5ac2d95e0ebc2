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
	t.Parallel()
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

// TestErrors checks that every failure is a *Error naming the reference
// in a plain sentence, with the cause errors.Is still sees.
func TestErrors(t *testing.T) {
	t.Parallel()
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := s.Put([]byte("an object, not a pack"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(s, "latest"); err == nil || err.Error() != "latest names no pack: none has been made in this store yet" {
		t.Errorf("Load(latest) on an empty store = %v", err)
	}
	a := commit(t, s, "2026-01-01T00:00:00Z", digest.Digest{})
	b := commit(t, s, "2026-01-02T00:00:00Z", a)
	orphan := digest.Of([]byte("absent parent"))
	if err := s.UpdateRef(store.Latest, func(*digest.Digest) (digest.Digest, error) { return b, nil }); err != nil {
		t.Fatal(err)
	}
	absent := digest.Of([]byte("absent"))

	for _, tc := range []struct {
		ref, want string
		cause     error
		object    bool // ResolveObject instead of Load
	}{
		{"nosuch", `no pack or tag named "nosuch"`, store.ErrNotFound, false},
		{"abc", `no pack or tag named "abc" (a hash prefix needs at least 4 hex digits)`, store.ErrNotFound, false},
		{"ffff0000", `no pack matches "ffff0000"`, store.ErrNotFound, false},
		{"ffff0000", `no object matches "ffff0000"`, store.ErrNotFound, true},
		{absent.String(), "no object " + absent.String() + " in this store", store.ErrNotFound, true},
		{"latest^^", "latest^^: pack " + a.String() + " has no parent", store.ErrNotFound, false},
		{absent.String(), "no pack " + absent.String() + " in this store", store.ErrNotFound, false},
		{absent.URI(), "no pack " + absent.String() + " in this store", store.ErrNotFound, false},
		{strings.ToUpper(absent.Hex()), "no pack " + absent.String() + " in this store", store.ErrNotFound, false},
		{absent.Hex()[:12] + "~0", `no pack matches "` + absent.Hex()[:12] + `~0"`, store.ErrNotFound, false},
		{obj.Hex(), obj.String() + " is an object but not a pack", manifest.ErrNotPack, false},
		{"not a ref!", `invalid reference "not a ref!": not a hash, hash prefix, latest or tag name`, ErrInvalid, false},
		{"latest~x", `invalid reference "latest~x": ~ must be followed by a number`, ErrInvalid, false},
		{"^", `invalid reference "^"`, ErrInvalid, false},
		{"sha256:zz99", `invalid reference "sha256:zz99": a hash prefix needs at least 4 hex digits`, ErrInvalid, false},
	} {
		var err error
		if tc.object {
			_, err = ResolveObject(s, tc.ref)
		} else {
			_, err = Load(s, tc.ref)
		}
		var re *Error
		switch {
		case !errors.As(err, &re):
			t.Errorf("%q: error %v (%T) is not a *ref.Error", tc.ref, err, err)
		case re.Ref != tc.ref:
			t.Errorf("%q: Error.Ref = %q", tc.ref, re.Ref)
		case !strings.HasPrefix(err.Error(), tc.want):
			t.Errorf("%q: error %q, want it to start %q", tc.ref, err, tc.want)
		case strings.HasSuffix(err.Error(), ": not found") && !errors.Is(err, manifest.ErrNotPack):
			t.Errorf("%q: error %q ends in a bare cause", tc.ref, err)
		case !errors.Is(err, tc.cause):
			t.Errorf("%q: error %v is not %v", tc.ref, err, tc.cause)
		}
	}

	// A reference through a parent that is not here names both.
	c := commit(t, s, "2026-01-03T00:00:00Z", orphan)
	_, err = Load(s, c.Hex()[:10]+"^")
	if want := c.Hex()[:10] + "^: no pack " + orphan.String() + " in this store"; err == nil || err.Error() != want {
		t.Errorf("Load(parent not here) = %v, want %s", err, want)
	}
}

func TestAmbiguous(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

func TestTagName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ref  string
		tag  string
		isIt bool
	}{
		{"baseline", "baseline", true},
		{"v1.2", "v1.2", true},
		{"abc", "abc", true}, // too short to be a prefix
		{"baseline^", "", false},
		{"baseline~2", "", false},
		{"latest", "", false},
		{"abcd", "", false},
		{"sha256:" + strings.Repeat("ab", 32), "", false},
		{"ctx://" + strings.Repeat("ab", 32), "", false},
		{strings.Repeat("ab", 32), "", false},
		{"-x", "", false},
		{"", "", false},
	} {
		tag, ok := TagName(c.ref)
		if tag != c.tag || ok != c.isIt {
			t.Errorf("TagName(%q) = %q, %v; want %q, %v", c.ref, tag, ok, c.tag, c.isIt)
		}
	}
}

func TestValid(t *testing.T) {
	t.Parallel()
	hex := strings.Repeat("ab", 32)
	for _, r := range []string{"latest", "latest^", "baseline~2", "sha256:" + hex, "ctx://" + hex, hex, "abcd", "v1.2-rc_3", hex + "^"} {
		if !Valid(r) {
			t.Errorf("Valid(%q) = false", r)
		}
	}
	for _, r := range []string{"", "2026-01-01T00:00:00Z", "(0)", "sha256:abcd", hex + "ab", "a/b", "-x", "^", "x~y", "pack:"} {
		if Valid(r) {
			t.Errorf("Valid(%q) = true", r)
		}
	}
}
