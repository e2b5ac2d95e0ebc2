package execlog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// TestLargeTextInMemory: text over streamAbove held in memory (a string,
// bytes, a JSON string literal with escapes of every kind) is written in
// place of a placeholder, and the log is still the canonical JSON of the
// same content; a literal canonical JSON cannot carry is refused before
// anything is written.
func TestLargeTextInMemory(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("line \"é\" \\ \x01\t😀\n", streamAbove/16+1)
	var lit bytes.Buffer
	lit.WriteString(`"`)
	for range streamAbove/40 + 1 {
		lit.WriteString(`a\u00e9\/\ud83d\ude00\n\u0001\"x`)
	}
	lit.WriteString(`"`)
	var want string
	if err := json.Unmarshal(lit.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	l := &Log{
		Model:   manifest.Model{Identifier: "m"},
		Prompts: []Prompt{{Role: "user", Content: Text(big)}, {Role: "user", Content: Quoted(lit.Bytes())}},
		Steps:   []Step{{Type: manifest.LLMCall, Output: Bytes([]byte(big))}},
	}
	out, err := l.JSON()
	if err != nil {
		t.Fatal(err)
	}
	c, err := canon.Canonicalize(out)
	if err != nil || !bytes.Equal(c, out) {
		t.Fatalf("the log is not canonical JSON (%v)", err)
	}
	var got struct {
		Prompts []struct{ Content string }
		Steps   []struct{ Output string }
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Prompts[0].Content != big || got.Prompts[1].Content != want || got.Steps[0].Output != big {
		t.Error("the large text is not written byte for byte")
	}

	bad := append([]byte(`"`+strings.Repeat("a", streamAbove)), `\ud800"`...)
	l.Prompts = []Prompt{{Role: "user", Content: Quoted(bad)}}
	var buf bytes.Buffer
	if err := l.WriteJSON(&buf); err == nil || buf.Len() != 0 {
		t.Errorf("a lone surrogate: %v, %d bytes written", err, buf.Len())
	}
}

// FuzzCanonicalLiteral: writing a JSON string literal a piece at a time
// gives what decoding it and quoting it canonically gives, and a literal
// that does not decode is refused.
func FuzzCanonicalLiteral(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"\u00e9\/\n\"\\"`, `"\ud83d\ude00"`, `"\ud800"`, `"\u0001x\t"`, `"é😀"`, `"\x"`, `"a`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		var got []byte
		err := canonicalLiteral(lit, func(b []byte) error {
			got = append(got, b...)
			return nil
		})
		dec, derr := jsontext.AppendUnquote(nil, lit)
		if derr != nil || !bytes.HasPrefix(lit, []byte(`"`)) {
			if err == nil {
				t.Fatalf("%q: accepted, but it does not decode (%v)", lit, derr)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v, but it decodes", lit, err)
		}
		if want := canon.AppendEscaped(nil, dec); !bytes.Equal(got, want) {
			t.Fatalf("%q: wrote %q, want %q", lit, got, want)
		}
	})
}
