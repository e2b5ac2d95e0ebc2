package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/internal/zerocopy"
	"github.com/ctx-tools/ctx/lib/store"
)

// decodeLike decodes a, recording its steps' places, then b like a with
// its strings sharing b's bytes, as LoadPair decodes them, and checks
// that b decodes exactly as decodeCanonical decodes it alone. It returns
// how many of b's steps were a's (their raw values shared).
func decodeLike(t *testing.T, a, b []byte) (taken int) {
	t.Helper()
	var ma Manifest
	spans, ok := decodeCanonicalWith(a, &ma, decodeOptions{spans: true, share: true})
	if !ok {
		return 0
	}
	if len(spans) != len(ma.Steps) {
		t.Fatalf("%d spans for %d steps", len(spans), len(ma.Steps))
	}
	for k, sp := range spans {
		var one Step
		d := decoder{b: a[sp.Start:sp.End], strs: map[string]string{}}
		d.step(&one)
		if d.i != len(d.b) || !reflect.DeepEqual(one, ma.Steps[k]) {
			t.Fatalf("span %d, %s, is not step %d", k, a[sp.Start:sp.End], k)
		}
	}
	like := &decoded{m: &ma, b: a, steps: spans}
	var alone, got Manifest
	okAlone := decodeCanonical(bytes.Clone(b), &alone)
	own := bytes.Clone(b)
	_, okGot := decodeCanonicalWith(own, &got, decodeOptions{like: like, share: true})
	if okAlone != okGot {
		t.Fatalf("decoded alone: %v, like another: %v\n%s", okAlone, okGot, b)
	}
	if !okGot {
		return 0
	}
	if !reflect.DeepEqual(alone, got) {
		t.Fatalf("decoded like another\n%+v\nalone\n%+v", got, alone)
	}
	if _, in := zerocopy.Offset(got.Created, own); got.Created != "" && !in {
		t.Errorf("created, %q, is a copy", got.Created)
	}
	for k := range min(len(got.Steps), len(ma.Steps)) {
		// Raw values are cut from the bytes decoded: b's, unless taken.
		if p, q := got.Steps[k].Parameters, ma.Steps[k].Parameters; len(p) > 0 && len(q) > 0 && &p[0] == &q[0] {
			taken++
		}
	}
	return taken
}

// A manifest decoded like another takes the other's steps where its bytes
// are theirs, and decodes to what it decodes to alone: the steps that
// differ however little, a step list longer or shorter, a manifest that
// is not in canonical form.
func TestDecodeLike(t *testing.T) {
	t.Parallel()
	base := full()
	for i := range base.Steps {
		base.Steps[i].Parameters = []byte(fmt.Sprintf(`{"n":%d}`, i))
	}
	a, err := Encode(base)
	if err != nil {
		t.Fatal(err)
	}
	g := string(a)
	encode := func(edit func(m *Manifest)) string {
		m := full()
		for i := range m.Steps {
			m.Steps[i].Parameters = []byte(fmt.Sprintf(`{"n":%d}`, i))
		}
		edit(m)
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range []struct {
		name  string
		b     string
		taken int
	}{
		{"same", g, 3},
		{"one parameter", strings.Replace(g, `{"n":1}`, `{"n":10}`, 1), 2},
		{"a longer tool", strings.Replace(g, `"tool":"t"`, `"tool":"tt"`, 1), 2},
		{"a shorter tool", strings.Replace(g, `"tool":"Bash`+"\u2028", `"tool":"Bash`, 1), 2},
		{"the last member", strings.Replace(g, `"type":"tool_call"}]`, `"type":"llm_call"}]`, 1), 2},
		{"a member more", strings.Replace(g, `"type":"tool_call"}]`, `"type":"tool_call","usage":{}}]`, 1), 2},
		{"a step less", encode(func(m *Manifest) { m.Steps = m.Steps[:2] }), 2},
		{"a step more", encode(func(m *Manifest) { m.Steps = append(m.Steps, Step{Index: 3, Type: "t"}) }), 3},
		{"another step first", encode(func(m *Manifest) { m.Steps[0].Timestamp = "" }), 2},
		{"whitespace after a step", strings.Replace(g, `,{"deterministic":false,"index":2`, `, {"deterministic":false,"index":2`, 1), 0},
		{"not canonical elsewhere", strings.Replace(g, `"version":"0.1"`, `"version": "0.1"`, 1), 0},
	} {
		if c.b == g && c.name != "same" {
			t.Fatalf("%s: the edit did not apply", c.name)
		}
		if got := decodeLike(t, a, []byte(c.b)); got != c.taken {
			t.Errorf("%s: %d steps taken, want %d", c.name, got, c.taken)
		}
	}
}

// FuzzDecodeLike: a manifest decoded like another decodes to what it
// decodes to alone.
func FuzzDecodeLike(f *testing.F) {
	a, _ := Encode(full())
	f.Add(a, a)
	f.Add(a, bytes.Replace(a, []byte(`"tool":"t"`), []byte(`"tool":"u"`), 1))
	f.Add(a, bytes.Replace(a, []byte(`"index":2`), []byte(`"index":3`), 1))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		decodeLike(t, a, b)
	})
}

// pairStore returns a store holding two packs of two steps, the first
// step the same in both.
func pairStore(t *testing.T) (s *store.Store, a, b digest.Digest) {
	t.Helper()
	s = newStore(t)
	m := sample(t, s)
	m.Steps = append(m.Steps, Step{Index: 1, Type: ToolCall, Tool: "grep", Parameters: []byte(`{"q":"x"}`), OutputRef: m.Steps[0].OutputRef})
	a, _, err := Commit(s, m)
	if err != nil {
		t.Fatal(err)
	}
	m.Hash = digest.Digest{}
	m.Steps[1].Tool = "rg"
	if b, _, err = Commit(s, m); err != nil {
		t.Fatal(err)
	}
	return s, a, b
}

// checkPair checks that ma and mb, loaded by how, are what Load gives for
// packs a and b of pairStore, and that taker took from's step 0 (sharing
// its raw values) and not its step 1.
func checkPair(t *testing.T, s *store.Store, how string, ma, mb *Manifest, a, b digest.Digest, from, taker *Manifest) {
	t.Helper()
	for _, c := range []struct {
		got *Manifest
		d   digest.Digest
	}{{ma, a}, {mb, b}} {
		want, err := Load(s, c.d)
		if err != nil || !reflect.DeepEqual(c.got, want) {
			t.Fatalf("%s gave\n%+v\nLoad\n%+v (%v)", how, c.got, want, err)
		}
	}
	if &taker.Steps[0].Parameters[0] != &from.Steps[0].Parameters[0] || &taker.Steps[1].Parameters[0] == &from.Steps[1].Parameters[0] {
		t.Errorf("%s: step 0 not taken, or step 1 taken", how)
	}
}

// LoadPair loads each pack as Load does, with each side's error, and the
// same pack once.
func TestLoadPair(t *testing.T) {
	t.Parallel()
	s, da, db := pairStore(t)
	ma, mb, errA, errB := LoadPair(s, da, db)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	checkPair(t, s, "LoadPair", ma, mb, da, db, ma, mb)
	if x, y, errA, errB := LoadPair(s, da, da); x != y || x == nil || errA != nil || errB != nil {
		t.Errorf("LoadPair of one pack = %p, %p, %v, %v", x, y, errA, errB)
	}
	absent := digest.Of([]byte("nothing"))
	if x, y, errA, errB := LoadPair(s, da, absent); x == nil || y != nil || errA != nil || !errors.Is(errB, store.ErrNotFound) {
		t.Errorf("LoadPair of a pack and nothing = %p, %p, %v, %v", x, y, errA, errB)
	}
	if x, y, errA, errB := LoadPair(s, absent, db); x != nil || y == nil || !errors.Is(errA, store.ErrNotFound) || errB != nil {
		t.Errorf("LoadPair of nothing and a pack = %p, %p, %v, %v", x, y, errA, errB)
	}
}

// LoadForLike and LoadLike load each pack as Load does, the second taking
// the first's steps where its bytes are theirs (so A found from B shares
// B's steps as LoadPair's B shares A's), with Load's errors.
func TestLoadLike(t *testing.T) {
	t.Parallel()
	s, da, db := pairStore(t)
	mb, like, err := LoadForLike(s, db)
	if err != nil || like == nil {
		t.Fatal(err, like)
	}
	ma, err := LoadLike(s, da, like)
	if err != nil {
		t.Fatal(err)
	}
	checkPair(t, s, "LoadForLike, LoadLike", ma, mb, da, db, mb, ma)
	// Without a Like, nothing is taken.
	alone, err := LoadLike(s, da, nil)
	if err != nil || !reflect.DeepEqual(alone, ma) || &alone.Steps[0].Parameters[0] == &mb.Steps[0].Parameters[0] {
		t.Errorf("LoadLike without a Like: %v", err)
	}
	absent := digest.Of([]byte("nothing"))
	_, wantErr := Load(s, absent)
	if x, l, err := LoadForLike(s, absent); x != nil || l != nil || err == nil || err.Error() != wantErr.Error() {
		t.Errorf("LoadForLike of nothing = %p, %p, %v; Load: %v", x, l, err, wantErr)
	}
	if x, err := LoadLike(s, absent, like); x != nil || err == nil || err.Error() != wantErr.Error() {
		t.Errorf("LoadLike of nothing = %p, %v; Load: %v", x, err, wantErr)
	}
}
