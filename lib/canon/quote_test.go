package canon

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzAppendEscaped: quoting a string in pieces cut anywhere gives what
// canonical JSON gives for the whole string.
func FuzzAppendEscaped(f *testing.F) {
	f.Add("plain", 2)
	f.Add("a\"b\\c\n\x00\x1f\x7f é€𝄞\u2028", 5)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		if !utf8.ValidString(s) {
			return
		}
		q, err := jsontext.AppendQuote(nil, s)
		if err != nil {
			t.Skip()
		}
		want, err := Canonicalize(q)
		if err != nil {
			t.Skip()
		}
		cut = min(max(cut, 0), len(s))
		got := append([]byte{'"'}, AppendEscaped(nil, []byte(s[:cut]))...)
		got = append(AppendEscaped(got, s[cut:]), '"')
		if !bytes.Equal(got, want) {
			t.Fatalf("%q cut at %d: got %s, want %s", s, cut, got, want)
		}
		if whole := AppendString(nil, s); !bytes.Equal(whole, want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, whole, want)
		}
	})
}
