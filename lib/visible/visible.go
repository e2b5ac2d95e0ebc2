// Package visible says which characters of untrusted text must not reach
// a terminal or a page as themselves: those that act on the display
// (escape sequences start with C0 and C1 controls), reorder or hide what
// surrounds them (bidirectional controls, zero-width and other invisible
// formatting characters, Unicode tag characters), or that XML forbids.
// Pack content comes from strangers: every human rendering (lib/cli's
// Escape) and every page (lib/htmlview) shows these escaped, by this one
// definition.
package visible

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Hidden reports whether r must be shown escaped. Tab and newline are
// hidden too: a renderer that keeps the layout of text lets them through
// itself.
func Hidden(r rune) bool {
	switch {
	case r < 0x20 || r >= 0x7f && r <= 0x9f: // C0, DEL, C1
		return true
	case r < 0x061c:
		return false
	case r == 0x061c, // Arabic letter mark
		r >= 0x200b && r <= 0x200f, // zero width space and joiners, LRM, RLM
		r >= 0x2028 && r <= 0x202e, // line and paragraph separators, LRE…RLO
		r >= 0x2060 && r <= 0x206f, // word joiner, invisible operators, LRI…PDI
		r == 0xfeff,                // zero width no-break space (BOM)
		r == 0xfffe, r == 0xffff,   // noncharacters
		r >= 0xe0000 && r <= 0xe007f: // tags
		return true
	}
	return false
}

// Escape makes untrusted s safe to print on a terminal as one field of a
// line: every rune Hidden reports, newline and tab included, becomes
// visible text (\u001b, \u202e), and bytes that are not UTF-8 are written
// \xff. Everything else, backslashes included, is unchanged. A renderer
// in lib escapes each field it takes from a pack with it, so that no
// field can end its line and forge the next.
func Escape(s string) string { return escape(s, false) }

// EscapeText is Escape keeping newlines and tabs, for a whole rendering
// whose layout needs them (lib/cli's Env.Text).
func EscapeText(s string) string { return escape(s, true) }

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
		if r == utf8.RuneError && n == 1 || Hidden(r) {
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
		case Hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
