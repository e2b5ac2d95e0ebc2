package manifest

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

func newStore(t *testing.T) *store.Store {
	t.Helper()
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sample(t *testing.T, s *store.Store) *Manifest {
	t.Helper()
	in, _, _ := s.Put([]byte("input"))
	out, _, _ := s.Put([]byte("output"))
	return &Manifest{
		Version: Version, Created: "2026-02-10T09:00:00Z",
		Model:       Model{Identifier: "gpt-4o", Parameters: []byte(`{"seed":7}`)},
		Prompts:     []Prompt{{Role: "user", ContentRef: in}},
		Inputs:      []File{{Name: "a.txt", ContentRef: in, Size: 5}},
		Steps:       []Step{{Index: 0, Type: ToolCall, Tool: "read_file", Parameters: []byte(`{"path":"a.txt"}`), OutputRef: in, Deterministic: true}},
		Outputs:     []Output{{Name: "r.md", ContentRef: out, Size: 6, Confidence: "high"}},
		Environment: Environment{OS: "linux", ToolVersions: map[string]string{"read_file": "1"}},
	}
}

func TestEncodeParse(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	m := sample(t, s)
	m.Hash = digest.Of([]byte("ignored"))
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"hash"`) {
		t.Fatalf("stored form carries hash: %s", b)
	}
	if !strings.HasPrefix(string(b), `{"created":"2026-02-10T09:00:00Z","environment":{"os":"linux","tool_versions":{"read_file":"1"}},"inputs":[{"content_ref":"sha256:`) {
		t.Fatalf("not canonical: %s", b)
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Encode(back)
	if string(again) != string(b) {
		t.Fatalf("round trip changed bytes:\n%s\n%s", b, again)
	}
	printed, _ := JSON(m)
	if !strings.Contains(string(printed), `"hash":"`+m.Hash.String()+`"`) {
		t.Fatalf("printed form lacks hash: %s", printed)
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	b, _ := Encode(sample(t, s))
	good := string(b)
	for name, bad := range map[string]string{
		"unknown member": strings.Replace(good, `{"created"`, `{"extra":1,"created"`, 1),
		"hash member":    strings.Replace(good, `{"created"`, `{"hash":"`+digest.Of(nil).String()+`","created"`, 1),
		"version":        strings.Replace(good, `"version":"0.1"`, `"version":"9"`, 1),
		"created":        strings.Replace(good, `"2026-02-10T09:00:00Z"`, `"yesterday"`, 1),
		"identifier":     strings.Replace(good, `"identifier":"gpt-4o"`, `"identifier":""`, 1),
		"index":          strings.Replace(good, `"index":0`, `"index":1`, 1),
		"digest":         strings.Replace(good, `"content_ref":"sha256:`, `"content_ref":"md5:`, 1),
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s: Parse accepted %s", name, bad)
		}
	}
}

func TestCommitLoad(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	m := sample(t, s)
	d, created, err := Commit(s, m)
	if err != nil || !created || m.Hash != d {
		t.Fatalf("Commit = %s, %v, %v", d, created, err)
	}
	b, _ := s.Get(d)
	if digest.Of(b) != d {
		t.Fatal("pack hash is not the digest of the stored manifest")
	}
	got, err := Load(s, d)
	if err != nil || got.Hash != d || got.Steps[0].Tool != "read_file" {
		t.Fatalf("Load = %+v, %v", got, err)
	}
	sum, err := LoadSummary(s, d)
	if err != nil || sum != (Summary{Hash: d, Created: m.Created, Model: "gpt-4o", Steps: 1, Inputs: 1, Outputs: 1}) {
		t.Fatalf("LoadSummary = %+v, %v", sum, err)
	}
	if _, _, err := Commit(s, m); err != nil {
		t.Fatalf("second Commit = %v", err)
	}

	// An object that is not a finalized pack is "not a pack".
	in := m.Inputs[0].ContentRef
	if _, err := Load(s, in); !errors.Is(err, ErrNotPack) || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Load(object) = %v", err)
	}
	if _, err := Load(s, digest.Of([]byte("nothing"))); !errors.Is(err, store.ErrNotFound) || errors.Is(err, ErrNotPack) {
		t.Fatalf("Load(absent) = %v", err)
	}
	if _, err := ParseSummary(in, []byte(`{"hash":"`+d.String()+`","created":"x","model":"m","steps":0,"inputs":0,"outputs":0}`)); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("ParseSummary of another pack's entry = %v", err)
	}
}

func TestCommitMissingObject(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	m := sample(t, s)
	m.Outputs[0].ContentRef = digest.Of([]byte("never stored"))
	if _, _, err := Commit(s, m); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Commit with a missing object = %v", err)
	}
	if packs, _ := s.Packs(""); len(packs) != 0 {
		t.Fatalf("a pack was finalized: %v", packs)
	}
}

// TestLoadWithoutEntry loads a pack whose objects alone were copied into
// another store: complete, it is a pack; with an object missing, it is not.
func TestLoadWithoutEntry(t *testing.T) {
	t.Parallel()
	src := newStore(t)
	m := sample(t, src)
	d, _, err := Commit(src, m)
	if err != nil {
		t.Fatal(err)
	}
	dst := newStore(t)
	for _, r := range append(m.Refs(), d) {
		b, _ := src.Get(r)
		dst.Put(b)
	}
	got, err := Load(dst, d)
	if err != nil || got.Hash != d || got.Model.Identifier != "gpt-4o" {
		t.Fatalf("Load of a copied pack = %+v, %v", got, err)
	}
	partial := newStore(t)
	b, _ := src.Get(d)
	partial.Put(b)
	if _, err := Load(partial, d); !errors.Is(err, ErrNotPack) || !strings.Contains(err.Error(), "is missing") {
		t.Fatalf("Load with objects missing = %v, want ErrNotPack", err)
	}
}
