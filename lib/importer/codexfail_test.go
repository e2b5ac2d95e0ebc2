package importer

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// FuzzFailureText: what codexFailure makes of the part of an output
// failureText decodes is what it makes of the whole output, however the
// literal escapes it.
func FuzzFailureText(f *testing.F) {
	for _, s := range []string{
		"Chunk ID: 1a2b\nWall time: 0.5 seconds\nProcess exited with code 1\nOriginal token count: 12\nOutput:\nFAIL x\n",
		"Exit code: 0\nWall time: 1 seconds\nOutput:\nok\n",
		"execution error: sandbox denied\nOutput:\nexit code: 3",
		"Script failed\nOutput:\nboom",
		"{\"output\":\"x\\nOutput:\",\"metadata\":{\"exit_code\":2}}",
		"plain output\nOutput: not a header",
		"Exit code: 1\\\nOutput:\nafter an escaped backslash",
		"Process exited with code 1\nWall time\\nOutput: a backslash and n\nOutput:\nrest",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, unicodeNewlines bool) {
		if !utf8.ValidString(text) {
			return
		}
		lit, _ := json.Marshal(text)
		if unicodeNewlines {
			// Line breaks as \u000a: the header is then found by decoding
			// it all.
			lit = []byte(strings.ReplaceAll(string(lit), `\n`, `\u000a`))
		}
		whole := gjson.ParseBytes(lit).Str
		if whole != text {
			return // not a literal of text (the escaper's form)
		}
		part := failureText(string(lit))
		if !strings.HasPrefix(whole, part) {
			t.Fatalf("%q: %q is not its beginning", text, part)
		}
		f1, c1, m1 := codexFailure(part)
		f2, c2, m2 := codexFailure(whole)
		if f1 != f2 || c1.Raw != c2.Raw || m1 != m2 {
			t.Fatalf("%q: from %q %v %q %q, from the whole %v %q %q", text, part, f1, c1.Raw, m1, f2, c2.Raw, m2)
		}
	})
}
