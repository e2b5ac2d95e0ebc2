package render

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// FuzzCodexFrame puts arbitrary output into arbitrary recorded results:
// no panic, and CodexOutput gives back the output that was put in a frame.
func FuzzCodexFrame(f *testing.F) {
	f.Add(`{"output":"x","metadata":{"exit_code":0}}`, "new\n")
	f.Add("Exit code: 0\nWall time: 1 seconds\nOutput:\nold", "new")
	f.Add("plain", "text")
	f.Fuzz(func(t *testing.T, recorded, output string) {
		out, err := CodexFrame([]byte(recorded), []byte(output))
		if err != nil || !utf8.ValidString(output) {
			return
		}
		if got := string(CodexOutput(out)); got != output {
			t.Fatalf("CodexOutput(CodexFrame(%q, %q)) = %q", recorded, output, got)
		}
	})
}

// FuzzClaudeCodeMultiEdit renders arbitrary replacements: no panic; a
// rendering is valid UTF-8 for valid strings, shows a string of at most
// ClaudeMultiEditShown UTF-16 code units whole, and a longer one as a
// prefix of it followed by "...".
func FuzzClaudeCodeMultiEdit(f *testing.F) {
	f.Add("a", "b")
	f.Add(strings.Repeat("x", 49)+"😀", "é")
	f.Add(strings.Repeat("ab\n", 30), "")
	f.Fuzz(func(t *testing.T, old, new string) {
		if !utf8.ValidString(old) || !utf8.ValidString(new) {
			return
		}
		got, err := ClaudeCodeMultiEdit("p", []string{old}, []string{new}, []byte("Applied 1 edit to p:\n1. Replaced \""))
		if err != nil {
			return
		}
		if !utf8.Valid(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		for _, s := range []string{old, new} {
			short, _ := jsPrefix(s, ClaudeMultiEditShown)
			if len(utf16.Encode([]rune(s))) <= ClaudeMultiEditShown {
				if short != s {
					t.Errorf("%q shown as %q", s, short)
				}
			} else if cut, ok := strings.CutSuffix(short, "..."); !ok || !strings.HasPrefix(s, cut) {
				t.Errorf("%q shown as %q", s, short)
			}
			if !bytes.Contains(got, []byte(`"`+short+`"`)) {
				t.Errorf("%q: %q not in %q", s, short, got)
			}
		}
	})
}
