// Package visible says which characters of untrusted text must not reach
// a terminal or a page as themselves: those that act on the display
// (escape sequences start with C0 and C1 controls), reorder or hide what
// surrounds them (bidirectional controls, zero-width and other invisible
// formatting characters, Unicode tag characters), or that XML forbids.
// Pack content comes from strangers: every human rendering (lib/cli's
// Escape) and every page (lib/htmlview) shows these escaped, by this one
// definition.
package visible

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
