package claudecode

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// FuzzRenderMultiEdit renders arbitrary replacements: no panic; a
// rendering is valid UTF-8 for valid strings, shows a string of at most
// MultiEditShown UTF-16 code units whole, and a longer one as a
// prefix of it followed by "...".
func FuzzRenderMultiEdit(f *testing.F) {
	f.Add("a", "b")
	f.Add(strings.Repeat("x", 49)+"😀", "é")
	f.Add(strings.Repeat("ab\n", 30), "")
	f.Fuzz(func(t *testing.T, old, new string) {
		if !utf8.ValidString(old) || !utf8.ValidString(new) {
			return
		}
		got, err := RenderMultiEdit("p", []string{old}, []string{new}, []byte("Applied 1 edit to p:\n1. Replaced \""))
		if err != nil {
			return
		}
		if !utf8.Valid(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		for _, s := range []string{old, new} {
			short, _ := jsPrefix(s, MultiEditShown)
			if len(utf16.Encode([]rune(s))) <= MultiEditShown {
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
