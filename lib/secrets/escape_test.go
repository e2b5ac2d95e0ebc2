package secrets

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/ctx-tools/ctx/internal/secrettest"
)

// outputOf returns steps[0].output of the log b.
func outputOf(t testing.TB, b []byte) string {
	var l struct {
		Steps []struct{ Output string }
	}
	if err := json.Unmarshal(b, &l); err != nil || len(l.Steps) == 0 {
		t.Fatalf("no steps[0].output: %v", err)
	}
	return l.Steps[0].Output
}

// decoded returns every string of the JSON text s, member names
// included, decoded; s itself when it is no JSON.
func decoded(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	var b strings.Builder
	var rec func(any)
	rec = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
		case map[string]any:
			for k, e := range v {
				b.WriteString(k + "\n")
				rec(e)
			}
		case []any:
			for _, e := range v {
				rec(e)
			}
		}
	}
	rec(v)
	return b.String()
}

// TestEscapedSecrets: a tool's JSON result holding a secret in another
// escaping than Go's (https:\/\/ as PHP writes it, a \u0041 letter in a
// token) is rewritten in that escaping; a secret held in a form no
// rewrite covers (percent-encoded) fails the redaction.
func TestEscapedSecrets(t *testing.T) {
	t.Parallel()
	corpus := secrettest.Corpus(17)
	files := secrettest.Files(corpus)
	sc := newScanner(t)
	red, rep, err := sc.RedactLog([]byte(files["escaped.json"]))
	if err != nil {
		t.Fatal(err)
	}
	out := outputOf(t, red)
	for _, name := range []string{"github", "postgres-url"} {
		var sec secrettest.Secret
		for _, s := range corpus {
			if s.Name == name {
				sec = s
			}
		}
		for _, part := range sec.Parts() {
			if strings.Contains(decoded(out), part) {
				t.Errorf("the redacted output still holds the %s secret: %s", name, out)
			}
		}
	}
	if rep.Secrets != 2 || rep.Marks != 2 {
		t.Errorf("%d secret(s), %d mark(s); want 2 and 2", rep.Secrets, rep.Marks)
	}
	if !strings.Contains(out, `https:\/\/deploy:[REDACTED:url-password:`) {
		t.Errorf("the rewrite changed the text's own escaping: %s", out)
	}

	if _, _, err := sc.RedactLog([]byte(files["encoded.json"])); err == nil || !strings.Contains(err.Error(), "still there after redaction") {
		t.Errorf("a percent-encoded secret: error %v, want one saying it is still there", err)
	}
}

// escape writes s as a JSON string's content, each character in the
// escaping how picks for it: itself (when JSON allows), a \u escape in
// lower or upper case hex, or its short escape.
func escape(s string, how []byte) string {
	var b strings.Builder
	i := 0
	for _, r := range s {
		pick := byte(0)
		if len(how) > 0 {
			pick = how[i%len(how)] % 4
		}
		i++
		short, hasShort := shortEscapes[r]
		switch {
		case pick == 3 && hasShort:
			b.WriteString(short)
		case pick == 1 || pick == 2 || r < 0x20 || r == '"' || r == '\\':
			f := "\\u%04x"
			if pick == 2 {
				f = "\\u%04X"
			}
			if r >= 0x10000 {
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(&b, f+f, hi, lo)
			} else {
				fmt.Fprintf(&b, f, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FuzzRedactEscaped: a secret written in any JSON escaping inside a
// tool's JSON result is, when the scanner finds it written plainly,
// rewritten wherever the redaction says it was: the redaction never
// passes with the secret still in the decoded result.
func FuzzRedactEscaped(f *testing.F) {
	corpus := secrettest.Corpus(5)
	for i := range corpus {
		f.Add(uint8(i), []byte{0}, "")
		f.Add(uint8(i), []byte{1, 0, 3}, "see also")
		f.Add(uint8(i), []byte{2, 3}, `{"x":"\/"}`)
	}
	sc := newScanner(f)
	f.Fuzz(func(t *testing.T, which uint8, how []byte, note string) {
		sec := corpus[int(which)%len(corpus)]
		prefix := "token: "
		if sec.Rule == "url-password" || sec.Rule == "private-key" {
			prefix = ""
		}
		plain := prefix + sec.Value
		var found []hit
		for _, h := range sc.scan(plain) {
			if strings.Contains(sec.Value, h.secret) {
				found = append(found, h)
			}
		}
		if len(found) == 0 {
			return
		}
		noteJSON, _ := json.Marshal(note)
		text := `{"note":` + string(noteJSON) + `,"v":"` + escape(plain, how) + `"}`
		out, _ := json.Marshal(text)
		log := `{"model":{"identifier":"m"},"steps":[{"index":0,"type":"tool_call","tool":"t","parameters":{},"output":` + string(out) + `,"deterministic":true}]}`
		red, _, err := sc.RedactLog([]byte(log))
		if err != nil {
			t.Fatalf("a secret in a JSON escaping was not rewritten: %v\n%s", err, text)
		}
		got := decoded(outputOf(t, red))
		for _, h := range found {
			if strings.Contains(got, h.secret) {
				t.Fatalf("the redacted result still holds the %s secret:\n%s", h.rule, outputOf(t, red))
			}
		}
	})
}
