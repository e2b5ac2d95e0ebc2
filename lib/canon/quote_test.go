package canon

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
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

func TestIsCanonical(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		`"plain"`:            true,
		`"tab\there"`:        true,
		`"\u001f"`:           true,
		`"\u001F"`:           false,
		`"\u0009"`:           false,
		`"\/"`:               false,
		`"é"`:                true,
		"\"\xff\"":           false,
		`"a"b"`:              false,
		`{"a":1,"b":[true]}`: true,
		`{"b":1,"a":2}`:      false,
		`{"a": 1}`:           false,
		`1.0`:                false,
		`1`:                  true,
		`"`:                  false,
		``:                   false,
		`"a" "b"`:            false,
	} {
		if got := IsCanonical([]byte(in)); got != want {
			t.Errorf("IsCanonical(%s) = %v, want %v", in, got, want)
		}
	}
}

// FuzzIsCanonical: a string is canonical exactly when AppendString writes
// it so for the text it holds.
func FuzzIsCanonical(f *testing.F) {
	f.Add([]byte(`"a\nb\u001f\"\\"`))
	f.Add([]byte(`"\u000a"`))
	f.Add([]byte(`"\ud83e\udd80"`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var s string
		if json.Unmarshal(in, &s) != nil || len(in) < 2 || in[0] != '"' {
			return
		}
		want := bytes.Equal(AppendString(nil, s), in) && utf8.Valid(in)
		if got := IsCanonical(in); got != want {
			t.Fatalf("IsCanonical(%s) = %v, want %v", in, got, want)
		}
	})
}
