package execlog

import (
	"bytes"
	"encoding/base64"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// inMemory returns m's log with every object read into memory, as
// FromManifest did before large objects were streamed: the reference the
// streamed output must equal byte for byte.
func inMemory(t *testing.T, s *store.Store, m *manifest.Manifest) *Log {
	t.Helper()
	l := fromSkeleton(m)
	for sl := range m.Slots() {
		if sl.Ref.IsZero() {
			continue
		}
		b, err := s.Get(*sl.Ref)
		if err != nil {
			t.Fatal(err)
		}
		*l.slot(sl) = Bytes(b)
	}
	return l
}

// TestFromManifestStreams packs a log whose large contents (text with
// every kind of escape, binary, a non-text part, a cut UTF-8 character at
// each buffer edge) are streamed, and checks the output is what the
// in-memory encoding gives and packs back to the same hash.
func TestFromManifestStreams(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	big := func(seed uint64, n int) string {
		r := rand.New(rand.NewPCG(seed, 1))
		alphabet := []string{"a", "\"", "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "€", "𝄞", "\u2028", "</script>"}
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	text := big(1, inlineInMemory+3*(64<<10)+1)
	bin := make([]byte, inlineInMemory+5)
	rb := rand.New(rand.NewPCG(2, 2))
	for i := range bin {
		bin[i] = byte(rb.Uint32())
	}
	bin[0] = 0xff                         // surely not UTF-8
	utf8Image := big(3, inlineInMemory+7) // text bytes in a part that is not text: base64
	quote := func(s string) string {
		b, err := jsontext.AppendQuote(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	log := `{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},
		"prompts":[{"role":"user","parts":[{"type":"text","content":"look"},{"type":"image","media_type":"image/png","content":` + quote(utf8Image) + `}]}],
		"inputs":[{"name":"big.txt","content":` + quote(text) + `},{"name":"big.bin","content_base64":"` + base64.StdEncoding.EncodeToString(bin) + `"},{"name":"small","content":"s"}],
		"steps":[{"type":"tool_call","tool":"cat","output":` + quote(text) + `}]}`
	l, err := Parse([]byte(log), Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := l.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	streamedLog, err := FromManifest(s, m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := streamedLog.JSON()
	if err != nil {
		t.Fatal(err)
	}
	want, err := inMemory(t, s, m).JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("streamed JSON differs from the in-memory encoding (%d vs %d bytes)", len(got), len(want))
	}
	if c, err := canon.Canonicalize(got); err != nil || !bytes.Equal(c, got) {
		t.Fatalf("streamed JSON is not canonical: %v", err)
	}
	if n := strings.Count(string(got), "ctx-stream-"); n != 0 {
		t.Fatalf("%d placeholders left in the output", n)
	}
	l2, err := Parse(got, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m2, _, err := l2.Pack(s)
	if err != nil || m2.Hash != m.Hash {
		t.Fatalf("repack = %v, %v; want %s", m2.Hash, err, m.Hash)
	}
}

// TestWriteJSONObjectChanged: an object changed after FromManifest checked
// it fails at its end as corrupt.
func TestWriteJSONObjectChanged(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	text := strings.Repeat("x", inlineInMemory+1)
	l, err := Parse([]byte(`{"model":{"identifier":"m"},"created":"2026-01-01T00:00:00Z","steps":[],"inputs":[{"name":"a","content":"`+text+`"}]}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := l.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	fl, err := FromManifest(s, m)
	if err != nil {
		t.Fatal(err)
	}
	p := s.ObjectPath(m.Inputs[0].ContentRef)
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, []byte(strings.Repeat("y", len(text))), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = fl.WriteJSON(&out)
	var ce *store.CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("WriteJSON = %v, want a *store.CorruptError", err)
	}
	// Checked before anything is written, a corrupt object fails FromManifest.
	if _, err := FromManifest(s, m); !errors.As(err, &ce) {
		t.Fatalf("FromManifest = %v, want a *store.CorruptError", err)
	}
}

// FuzzUTF8Checker: validity judged in pieces cut anywhere is validity of
// the whole.
func FuzzUTF8Checker(f *testing.F) {
	f.Add([]byte("é€𝄞"), 1, 3)
	f.Add([]byte{0xe2, 0x82}, 1, 1)
	f.Add([]byte{0xf0, 0x9d, 0x84, 0x9e, 0xff}, 2, 4)
	f.Add([]byte{0xed, 0xa0, 0x80}, 1, 2) // a surrogate
	f.Fuzz(func(t *testing.T, b []byte, i, j int) {
		i = min(max(i, 0), len(b))
		j = min(max(j, i), len(b))
		var v utf8Checker
		v.write(b[:i])
		v.write(b[i:j])
		v.write(b[j:])
		if got, want := v.valid(), utf8.Valid(b); got != want {
			t.Fatalf("% x cut at %d, %d: valid = %v, want %v", b, i, j, got, want)
		}
	})
}
