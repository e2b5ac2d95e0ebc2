package packlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

var (
	hashA = digest.Digest(bytes.Repeat([]byte{0xaa}, digest.Size))
	hashB = digest.Digest(bytes.Repeat([]byte{0xbb}, digest.Size))
)

func encode(t testing.TB, sum manifest.Summary) []byte {
	t.Helper()
	b, err := manifest.EncodeSummary(sum)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseEntry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		sum  manifest.Summary
		fast bool // whether the canonical fast path takes it
	}{
		{"root", manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00Z", Model: "gpt-4o", Steps: 3, Inputs: 1, Outputs: 2}, true},
		{"parent", manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00.123+01:00", Model: "m", Parent: hashB}, true},
		{"large counts", manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00Z", Model: "m", Steps: 123456789012345}, true},
		{"unicode model", manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00Z", Model: "modèle-été-🚀"}, true},
		{"escaped model", manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00Z", Model: "a \"quoted\"\\ name\n"}, false},
		{"empty model", manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00Z"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := encode(t, tc.sum)
			if _, ok := parseCanonical(hashA, b, nil, nil); ok != tc.fast {
				t.Errorf("fast path took it: %v, want %v (%s)", ok, tc.fast, b)
			}
			e, err := ParseEntry(hashA, b)
			if err != nil {
				t.Fatal(err)
			}
			if e.Summary != tc.sum {
				t.Errorf("got %+v, want %+v", e.Summary, tc.sum)
			}
			if e.Tags != nil {
				t.Errorf("tags %v, want none", e.Tags)
			}
		})
	}
}

func TestParseEntryTime(t *testing.T) {
	t.Parallel()
	e, err := ParseEntry(hashA, encode(t, manifest.Summary{Hash: hashA, Created: "2026-02-10T10:30:00.5+01:00", Model: "m"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Time().Format("2006-01-02T15:04:05.999Z07:00"); got != "2026-02-10T09:30:00.5Z" {
		t.Errorf("Time() = %s", got)
	}
}

// Entries that are valid JSON but not in canonical form are read by the
// strict decoder, with the same result.
func TestParseEntryNonCanonical(t *testing.T) {
	t.Parallel()
	b := []byte(`{ "model": "m", "hash": "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"created": "2026-02-10T09:00:00Z", "steps": 1, "inputs": 2, "outputs": 3 }`)
	e, err := ParseEntry(hashA, b)
	if err != nil {
		t.Fatal(err)
	}
	want := manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00Z", Model: "m", Steps: 1, Inputs: 2, Outputs: 3}
	if e.Summary != want {
		t.Errorf("got %+v, want %+v", e.Summary, want)
	}
}

func TestParseEntryCorrupt(t *testing.T) {
	t.Parallel()
	good := string(encode(t, manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00Z", Model: "m", Steps: 1}))
	for _, tc := range []struct{ name, entry, msg string }{
		{"empty", "", ""},
		{"not json", "hello\n", ""},
		{"other pack", strings.Replace(good, "aaaa", "bbbb", 1), "it names"},
		{"unknown member", strings.Replace(good, `"steps":1`, `"steps":1,"x":1`, 1), "unknown"},
		{"bad created", strings.Replace(good, "2026-02-10T09:00:00Z", "yesterday", 1), "created"},
		{"trailing data", good + "{}", ""},
		{"negative steps", strings.Replace(good, `"steps":1`, `"steps":-1`, 1), ""},
		{"string steps", strings.Replace(good, `"steps":1`, `"steps":"1"`, 1), ""},
		{"truncated", good[:len(good)/2], ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := ParseEntry(hashA, []byte(tc.entry))
			if tc.name == "negative steps" && err == nil {
				// The strict decoder accepts a negative count; the fast
				// path must not be what accepted it.
				if _, ok := parseCanonical(hashA, []byte(tc.entry), nil, nil); ok {
					t.Fatal("fast path accepted a negative count")
				}
				if e.Steps != -1 {
					t.Fatalf("steps = %d", e.Steps)
				}
				return
			}
			if err == nil {
				t.Fatalf("parsed %q as %+v", tc.entry, e)
			}
			if !errors.Is(err, store.ErrCorrupt) {
				t.Errorf("error %v is not ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), "pack entry "+hashA.String()) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not name the entry and %q", err, tc.msg)
			}
		})
	}
}

// AppendJSON must produce exactly what canonicalising the same line
// through encoding/json and lib/canon produces.
func TestAppendJSONCanonical(t *testing.T) {
	t.Parallel()
	models := []string{"gpt-4o", "", `quote " backslash \ slash /`, "tab\tnl\nnul\x00 del\x7f", "<html>&amp;", "line\u2028sep\u2029", "modèle 🚀", "bad utf8 \xff\xfe"}
	for i, m := range models {
		for _, parent := range []digest.Digest{{}, hashB} {
			e := Entry{Summary: manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00Z", Model: m, Steps: i, Inputs: 2 * i, Outputs: 3, Parent: parent}}
			if i%2 == 1 {
				e.Tags = []string{"v1", m}
			}
			got := e.AppendJSON([]byte("prefix"))
			if !strings.HasPrefix(string(got), "prefix") {
				t.Fatalf("AppendJSON dropped the prefix: %s", got)
			}
			got = got[len("prefix"):]
			line := map[string]any{
				"hash": hashA.String(), "uri": hashA.URI(), "created": e.Created, "model": m,
				"steps": e.Steps, "inputs": e.Inputs, "outputs": e.Outputs, "tags": []string{},
			}
			if e.Tags != nil {
				line["tags"] = e.Tags
			}
			if !parent.IsZero() {
				line["parent"] = parent.String()
			}
			want, err := canon.Marshal(line)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("model %q:\n got %s\nwant %s", m, got, want)
			}
			if !json.Valid(got) {
				t.Errorf("invalid JSON %s", got)
			}
		}
	}
}

func FuzzParseEntry(f *testing.F) {
	f.Add([]byte(encode(f, manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00Z", Model: "m", Steps: 1, Parent: hashB})))
	f.Add([]byte(encode(f, manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00.5+02:00", Model: "é"})))
	f.Add([]byte(`{"created":"2026-02-10T09:00:00Z","hash":"sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","inputs":01,"model":"m","outputs":0,"steps":0}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := parseCanonical(hashA, b, nil, nil)
		if !ok {
			return
		}
		// Whatever the fast path accepts, the strict decoder accepts the
		// same way, and it is the canonical encoding of its summary.
		sum, err := manifest.ParseSummary(hashA, b)
		if err != nil {
			t.Fatalf("fast path accepted %q, strict decoder says %v", b, err)
		}
		if sum != fast.Summary {
			t.Fatalf("fast %+v, strict %+v", fast.Summary, sum)
		}
		if again := encode(t, sum); string(again) != string(b) {
			t.Fatalf("fast path accepted non-canonical %q (canonical %q)", b, again)
		}
	})
}

// NewEntry returns the entry of a summary whose created is an RFC 3339
// time.
func NewEntry(sum manifest.Summary) (Entry, error) {
	e := Entry{Summary: sum}
	if err := e.setTime(); err != nil {
		return Entry{}, err
	}
	return e, nil
}
