package execlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/store"
)

// priorLog is a log of n steps with output, reasoning, parts, usage and
// metadata out of canonical order; step changed (when < n) differs from
// the log with changed == -1.
func priorLog(t testing.TB, n, changed int) *Log {
	t.Helper()
	var steps []string
	for i := range n {
		out := fmt.Sprintf("output %d", i)
		if i == changed {
			out = "changed"
		}
		switch i % 3 {
		case 0:
			steps = append(steps, fmt.Sprintf(`{"type":"llm_call","output":%q,"reasoning":"thought %d","usage":{"input_tokens":%d},"metadata":{"z":[1,2],"a":{"y":1,"b":"\u00e9"}}}`, out, i, i))
		case 1:
			steps = append(steps, fmt.Sprintf(`{"type":"tool_call","tool":"Read","parameters":{"path":"f%d","a":1},"output":%q,"deterministic":true,"parent_step":%d}`, i, out, i-1))
		default:
			steps = append(steps, fmt.Sprintf(`{"type":"tool_call","tool":"Shot","output_parts":[{"type":"text","content":%q},{"type":"image","media_type":"image/png","content_base64":"iVBORw0KGgo="}],"error":{"message":"m","exit_code":2}}`, out))
		}
	}
	doc := fmt.Sprintf(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"steps":[%s],"metadata":{"steps":%d}}`, strings.Join(steps, ","), n)
	l, err := Parse([]byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// packPrior packs l as ctx-pack packs an imported log: fingerprinted,
// taking what p holds, in canonical form, checked, packed.
func packPrior(t testing.TB, s *store.Store, l *Log, p *Prior) (manifest []byte, st Stats, reused int) {
	t.Helper()
	l.Fingerprint()
	if p != nil {
		reused = l.Reuse(p)
	}
	if err := l.Canonical(); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(Options{}); err != nil {
		t.Fatal(err)
	}
	m, st, err := l.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Get(m.Hash)
	if err != nil {
		t.Fatal(err)
	}
	return b, st, reused
}

// twoStores returns two stores holding the pack of the log of n steps,
// and the prior file its pack left (in the first).
func twoStores(t *testing.T, n int) (a, b *store.Store, file string) {
	t.Helper()
	a, b = newStore(t), newStore(t)
	file = filepath.Join(t.TempDir(), "p.steps")
	l := priorLog(t, n, -1)
	packPrior(t, a, l, nil)
	if err := l.SavePrior(file, "k"); err != nil {
		t.Fatal(err)
	}
	packPrior(t, b, priorLog(t, n, -1), nil)
	return a, b, file
}

func TestPriorSamePack(t *testing.T) {
	t.Parallel()
	a, b, file := twoStores(t, 9)
	// Grown by three steps, step 7 changed (its reasoning is the same).
	got, gotStats, reused := packPrior(t, a, priorLog(t, 12, 7), LoadPrior(a, file, "k"))
	want, wantStats, _ := packPrior(t, b, priorLog(t, 12, 7), nil)
	if !bytes.Equal(got, want) {
		t.Fatalf("the pack that took steps differs:\n%s\n%s", got, want)
	}
	if gotStats != wantStats {
		t.Errorf("objects: %+v, packed afresh %+v", gotStats, wantStats)
	}
	if reused != 7+1 { // 0-6 and 8
		t.Errorf("took %d steps, want 8", reused)
	}
}

// TestPriorNotUsed: a prior that is damaged, of another key, or whose
// pack is not in the store or not whole takes no step, and the pack is
// the same.
func TestPriorNotUsed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		spoil func(t *testing.T, s *store.Store, file string) (*store.Store, string)
	}{
		{"another key", func(t *testing.T, s *store.Store, file string) (*store.Store, string) { return s, "other" }},
		{"a byte changed", func(t *testing.T, s *store.Store, file string) (*store.Store, string) {
			b, _ := os.ReadFile(file)
			b[len(b)-3] ^= 1
			write(t, file, b)
			return s, "k"
		}},
		{"cut short", func(t *testing.T, s *store.Store, file string) (*store.Store, string) {
			b, _ := os.ReadFile(file)
			write(t, file, b[:len(b)-1])
			return s, "k"
		}},
		{"missing", func(t *testing.T, s *store.Store, file string) (*store.Store, string) {
			os.Remove(file)
			return s, "k"
		}},
		{"another store", func(t *testing.T, s *store.Store, file string) (*store.Store, string) {
			return newStore(t), "k"
		}},
		{"the manifest damaged", func(t *testing.T, s *store.Store, file string) (*store.Store, string) {
			var h priorHeader
			b, _ := os.ReadFile(file)
			json.Unmarshal(b[:bytes.IndexByte(b, '\n')], &h)
			p := s.ObjectPath(h.Pack)
			m, _ := os.ReadFile(p)
			m[len(m)/2] ^= 1
			os.Chmod(p, 0o644)
			write(t, p, m)
			return s, "k"
		}},
		{"a place out of its object", func(t *testing.T, s *store.Store, file string) (*store.Store, string) {
			// A header and sum that agree, over an entry whose place
			// is not a step's.
			b, _ := os.ReadFile(file)
			nl := bytes.IndexByte(b, '\n')
			var h priorHeader
			json.Unmarshal(b[:nl], &h)
			body := bytes.Clone(b[nl+1:])
			body[h.Refs*32+32]++ // the first step's start
			sum := sha256.Sum256(body)
			h.Sum = hex.EncodeToString(sum[:])
			head, _ := json.Marshal(h)
			write(t, file, append(append(head, '\n'), body...))
			return s, "k"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, b, file := twoStores(t, 6)
			into, key := c.spoil(t, a, file)
			p := LoadPrior(into, file, key)
			got, _, reused := packPrior(t, into, priorLog(t, 8, -1), p)
			want, _, _ := packPrior(t, b, priorLog(t, 8, -1), nil)
			if reused != 0 || p.Err() == nil {
				t.Errorf("took %d steps (%v)", reused, p.Err())
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("the pack differs:\n%s\n%s", got, want)
			}
		})
	}
}

// TestPriorSwappedPlaces: entries whose places were exchanged, in a file
// whose sum agrees, do not put one step's entry in another's place.
func TestPriorSwappedPlaces(t *testing.T) {
	t.Parallel()
	a, b, file := twoStores(t, 6)
	p := LoadPrior(a, file, "k")
	if p.Err() != nil {
		t.Fatal(p.Err())
	}
	// The same entries, the first two steps' places exchanged.
	var first, second fingerprint
	for fp, e := range p.at {
		switch {
		case hasIndex(p.manifest[e.span.Start:e.span.End], 0):
			first = fp
		case hasIndex(p.manifest[e.span.Start:e.span.End], 1):
			second = fp
		}
	}
	p.at[first], p.at[second] = p.at[second], p.at[first]
	got, _, reused := packPrior(t, a, priorLog(t, 6, -1), p)
	want, _, _ := packPrior(t, b, priorLog(t, 6, -1), nil)
	if !bytes.Equal(got, want) {
		t.Fatalf("the pack differs:\n%s\n%s", got, want)
	}
	if reused != 4 {
		t.Errorf("took %d steps, want the 4 in their places", reused)
	}
}

func write(t *testing.T, file string, b []byte) {
	t.Helper()
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPriorNotPrinted: a log that took packed steps holds them as they
// were given, not in printed form: printing it is refused.
func TestPriorNotPrinted(t *testing.T) {
	t.Parallel()
	a, _, file := twoStores(t, 4)
	l := priorLog(t, 4, -1)
	l.Fingerprint()
	if n := l.Reuse(LoadPrior(a, file, "k")); n != 4 {
		t.Fatalf("took %d steps, want 4", n)
	}
	if _, err := l.JSON(); err == nil {
		t.Fatal("a log that took packed steps was printed")
	}
}

// FuzzPriorFile: whatever the entries of a prior file whose sum agrees,
// the pack is the one packed afresh.
func FuzzPriorFile(f *testing.F) {
	f.Add([]byte{}, 0)
	f.Add([]byte{1, 2, 3, 200, 1}, 1)
	f.Fuzz(func(t *testing.T, edit []byte, at int) {
		a, b := newStore(t), newStore(t)
		file := filepath.Join(t.TempDir(), "p.steps")
		l := priorLog(t, 4, -1)
		packPrior(t, a, l, nil)
		if err := l.SavePrior(file, "k"); err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile(file)
		nl := bytes.IndexByte(raw, '\n')
		var h priorHeader
		if err := json.Unmarshal(raw[:nl], &h); err != nil {
			t.Fatal(err)
		}
		body := raw[nl+1:]
		if at < 0 || at > len(body) {
			return
		}
		body = append(append(bytes.Clone(body[:at]), edit...), body[min(at+len(edit), len(body)):]...)
		sum := sha256.Sum256(body)
		h.Sum = hex.EncodeToString(sum[:])
		head, _ := json.Marshal(h)
		write(t, file, append(append(head, '\n'), body...))
		got, _, _ := packPrior(t, a, priorLog(t, 5, 2), LoadPrior(a, file, "k"))
		want, _, _ := packPrior(t, b, priorLog(t, 5, 2), nil)
		if !bytes.Equal(got, want) {
			t.Fatalf("the pack differs:\n%s\n%s", got, want)
		}
	})
}
