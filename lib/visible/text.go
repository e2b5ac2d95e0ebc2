package visible

import (
	"fmt"
	"strings"
)

// Style is how a span of a rendering shows on a colour terminal.
type Style uint8

// The styles a rendering can give a span: emphasis, and the colours git
// uses (green for what was added or holds, red for what was removed or
// fails, yellow for hashes and warnings, cyan for positions).
const (
	Plain Style = iota
	Bold
	Dim
	Red
	Green
	Yellow
	Cyan
)

var sgr = [...]string{Bold: "\033[1m", Dim: "\033[2m", Red: "\033[31m", Green: "\033[32m", Yellow: "\033[33m", Cyan: "\033[36m"}

const reset = "\033[m"

// Text is a rendering being built: text, some spans of which carry a
// Style. The text itself is never trusted: Render escapes every part of
// it (as EscapeText does) and adds the only escape sequences that reach
// the terminal, the colours of the spans, around the escaped parts, so
// that no content can colour, move or hide anything.
type Text struct {
	b     strings.Builder
	spans []span
}

type span struct {
	start, end int
	style      Style
}

// Write appends p unstyled; Text is an io.Writer for fmt.Fprintf.
func (t *Text) Write(p []byte) (int, error) { return t.b.Write(p) }

// WriteString appends s unstyled.
func (t *Text) WriteString(s string) (int, error) { return t.b.WriteString(s) }

// Printf appends a formatted string unstyled.
func (t *Text) Printf(format string, args ...any) { fmt.Fprintf(&t.b, format, args...) }

// Paint appends s in style st.
func (t *Text) Paint(st Style, s string) {
	start := t.b.Len()
	t.b.WriteString(s)
	if st != Plain && s != "" {
		t.spans = append(t.spans, span{start, t.b.Len(), st})
	}
}

// String returns the text without styles and unescaped, as it was
// written.
func (t *Text) String() string { return t.b.String() }

// Render returns the text escaped for a terminal (EscapeText) and, when
// colour is true, with its spans coloured.
func (t *Text) Render(colour bool) string {
	s := t.b.String()
	if !colour || len(t.spans) == 0 {
		return EscapeText(s)
	}
	var out strings.Builder
	out.Grow(len(s) + 8*len(t.spans))
	at := 0
	for _, sp := range t.spans {
		out.WriteString(EscapeText(s[at:sp.start]))
		out.WriteString(sgr[sp.style])
		out.WriteString(EscapeText(s[sp.start:sp.end]))
		out.WriteString(reset)
		at = sp.end
	}
	out.WriteString(EscapeText(s[at:]))
	return out.String()
}
