package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctx-tools/ctx/lib/visible"
)

// Escape makes s safe to print on a terminal: every rune a terminal would
// act on becomes visible text. C0 controls (including newline and tab),
// DEL and C1 controls (U+0080–U+009F: U+009B is a one-byte CSI) are
// written \u001b; bidirectional overrides, embeddings, isolates and marks
// (which reorder what follows them, so a line can be made to read other
// than it is) are written \u202e, as are the other characters
// lib/visible hides (zero-width, tags); bytes that are not UTF-8 are
// written \xff. Everything else, backslashes included, is unchanged.
//
// Pack content is untrusted: every human rendering passes it through
// Escape, directly for a field or through Env.Text for a whole text.
func Escape(s string) string { return escape(s, false) }

// escape is Escape, keeping newlines and tabs when lines is true: Env.Text
// uses it on renderings whose layout needs them.
func escape(s string, lines bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || lines && (c == '\n' || c == '\t') {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			break
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || visible.Hidden(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c < 0x7f || lines && (c == '\n' || c == '\t') {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, `\u%04x`, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, c)
		case visible.Hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
