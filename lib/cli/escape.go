package cli

import "github.com/ctx-tools/ctx/lib/visible"

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
func Escape(s string) string { return visible.Escape(s) }

// escape is Escape, keeping newlines and tabs when lines is true: Env.Text
// uses it on renderings whose layout needs them.
func escape(s string, lines bool) string {
	if lines {
		return visible.EscapeText(s)
	}
	return visible.Escape(s)
}
