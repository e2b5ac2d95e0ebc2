package drift

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of a unified diff.
const (
	// DefaultContext is the number of unchanged lines around each change.
	DefaultContext = 3
	// DefaultMaxLines bounds the hunk lines (headers, context, changes) of
	// one diff.
	DefaultMaxLines = 200
	// DefaultMaxBytes bounds the size of one diff.
	DefaultMaxBytes = 16 << 10
	// MaxTextBytes is the largest content diffed as text; larger content
	// is reported by size and hash only.
	MaxTextBytes = 4 << 20
)

// IsText reports whether b is shown as text: valid UTF-8 without NUL
// bytes. Anything else is binary and never diffed.
func IsText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}

// Unified returns a unified diff (diff -u) of a and b, labelled a/name and
// b/name, with context lines of context and at most maxLines hunk lines and
// maxBytes bytes (zero means the defaults). When the diff is cut short its
// last line says how many lines were left out, and truncated is true. It
// returns "" when a and b are equal.
func Unified(name string, a, b []byte, context, maxLines, maxBytes int) (diff string, truncated bool) {
	if bytes.Equal(a, b) {
		return "", false
	}
	if context <= 0 {
		context = DefaultContext
	}
	if maxLines <= 0 {
		maxLines = DefaultMaxLines
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	la, lb := splitLines(a), splitLines(b)
	hs := hunks(Align(la, lb), len(la), len(lb), context)
	w := &writer{maxLines: maxLines, maxBytes: maxBytes}
	// Sized once, up to the bound: the file headers, every line of both
	// sides with its prefix, a hunk header each, a last line without a
	// newline on each side (a diff of a thousand outputs grew each
	// buffer three times, then once when the last lines had none).
	const fileHeaders, hunkHeader = len("--- a/\n+++ b/\n"), 48
	w.buf.Grow(min(maxBytes+256, fileHeaders+2*len(name)+len(a)+len(b)+len(la)+len(lb)+len(hs)*hunkHeader+2*len(noNewline)))
	w.buf.WriteString("--- a/" + name + "\n+++ b/" + name + "\n")
	for _, h := range hs {
		header := fmt.Sprintf("@@ -%s +%s @@", hunkRange(h.a0, h.a1), hunkRange(h.b0, h.b1))
		// A header goes out only with at least its first line.
		if !w.room(2, len(header)+1+len(h.first(la, lb))+1+len(noNewline)) || !w.line(header, "") {
			w.dropped += 1 + h.a1 - h.a0 + h.b1 - h.b0 - h.same
			continue
		}
		ai := h.a0
		for _, c := range h.changes {
			for ; ai < c.a0; ai++ {
				w.line(" ", la[ai])
			}
			for _, l := range la[c.a0:c.a1] {
				w.line("-", l)
			}
			for _, l := range lb[c.b0:c.b1] {
				w.line("+", l)
			}
			ai = c.a1
		}
		for ; ai < h.a1; ai++ {
			w.line(" ", la[ai])
		}
	}
	if w.dropped > 0 {
		fmt.Fprintf(&w.buf, "\\ diff truncated: %d more lines not shown\n", w.dropped)
	}
	return w.buf.String(), w.dropped > 0
}

// splitLines splits b after each newline; a last line without one is kept
// as is, so "x" and "x\n" differ as diff(1) says they do.
func splitLines(b []byte) []string {
	s := string(b)
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// change replaces a[a0:a1] by b[b0:b1].
type change struct{ a0, a1, b0, b1 int }

// hunk is a group of changes with the unchanged lines around and between
// them; same counts those unchanged lines.
type hunk struct {
	a0, a1, b0, b1 int
	changes        []change
	same           int
}

// first returns the first line of the hunk's body.
func (h *hunk) first(la, lb []string) string {
	c := h.changes[0]
	switch {
	case h.a0 < c.a0:
		return la[h.a0]
	case c.a0 < c.a1:
		return la[c.a0]
	}
	return lb[c.b0]
}

// hunks groups the changes between the runs ms into hunks with up to
// context unchanged lines around them, joining changes at most 2·context
// lines apart, as diff -u does.
func hunks(ms []Match, na, nb, context int) []hunk {
	var changes []change
	ai, bi := 0, 0
	for _, m := range ms {
		if m.A > ai || m.B > bi {
			changes = append(changes, change{ai, m.A, bi, m.B})
		}
		ai, bi = m.A+m.N, m.B+m.N
	}
	if ai < na || bi < nb {
		changes = append(changes, change{ai, na, bi, nb})
	}
	var out []hunk
	prevEnd := 0 // end in a of the previous change
	for i, c := range changes {
		if k := len(out) - 1; k >= 0 && c.a0-prevEnd <= 2*context {
			out[k].changes = append(out[k].changes, c)
		} else {
			lead := min(context, c.a0-prevEnd)
			out = append(out, hunk{a0: c.a0 - lead, b0: c.b0 - lead, changes: []change{c}})
		}
		nextStart := na
		if i+1 < len(changes) {
			nextStart = changes[i+1].a0
		}
		trail := min(context, nextStart-c.a1)
		h := &out[len(out)-1]
		h.a1, h.b1 = c.a1+trail, c.b1+trail
		prevEnd = c.a1
	}
	for i := range out {
		h := &out[i]
		h.same = h.a1 - h.a0
		for _, c := range h.changes {
			h.same -= c.a1 - c.a0
		}
	}
	return out
}

// hunkRange formats one side of a hunk header as GNU diff does: "l,n",
// "l" when n is 1, and the line before the hunk when it is empty.
func hunkRange(lo, hi int) string {
	switch n := hi - lo; n {
	case 0:
		return strconv.Itoa(lo) + ",0"
	case 1:
		return strconv.Itoa(lo + 1)
	default:
		return strconv.Itoa(lo+1) + "," + strconv.Itoa(n)
	}
}

// writer writes diff lines until a limit is reached, then counts them.
type writer struct {
	buf                strings.Builder
	lines, dropped     int
	maxLines, maxBytes int
}

// room reports whether lines more lines of size bytes in all still fit.
func (w *writer) room(lines, size int) bool {
	return w.dropped == 0 && w.lines+lines <= w.maxLines && w.buf.Len()+size <= w.maxBytes
}

// line writes prefix+text (text keeps its newline, if any) and reports
// whether it fit.
func (w *writer) line(prefix, text string) bool {
	if w.dropped > 0 || w.lines >= w.maxLines {
		w.dropped++
		return false
	}
	n := len(prefix) + len(text) + 1
	noEOL := text != "" && !strings.HasSuffix(text, "\n")
	if noEOL {
		n += len(noNewline)
	}
	if w.buf.Len()+n > w.maxBytes {
		w.dropped++
		return false
	}
	w.lines++
	w.buf.WriteString(prefix)
	w.buf.WriteString(text)
	switch {
	case noEOL:
		w.buf.WriteString("\n" + noNewline)
	case text == "":
		w.buf.WriteByte('\n')
	}
	return true
}

const noNewline = "\\ No newline at end of file\n"
