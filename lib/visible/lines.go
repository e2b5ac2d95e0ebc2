package visible

import (
	"strings"
	"unicode/utf8"
)

// FirstLines returns the first n non-blank lines of text, each clipped to
// width runes ("…" marks a cut) and escaped as Escape does; the last one
// ends with " …" when more lines follow. It is how a rendering previews
// text from a pack (a model's answer) on a few lines.
func FirstLines(text string, n, width int) []string {
	var lines []string
	rest := text
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(lines) == n {
			lines[n-1] += " …"
			break
		}
		lines = append(lines, Escape(Clip(line, width)))
	}
	return lines
}

// Clip shortens s to at most n runes, marking the cut with "…".
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
