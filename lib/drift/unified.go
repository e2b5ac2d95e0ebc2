package drift

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctx-tools/ctx/lib/internal/zerocopy"
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
	sc := scratchPool.Get().(*scratch)
	defer sc.release()
	// The lines are strings sharing a's and b's bytes: they are written
	// out, not kept.
	sc.la, sc.lb = splitLines(sc.la[:0], a), splitLines(sc.lb[:0], b)
	la, lb := sc.la, sc.lb
	sc.ia, sc.ib = number(sc.ids, la, lb, sc.ia[:0], sc.ib[:0])
	sc.hunks, sc.changes = hunks(sc.hunks[:0], sc.changes[:0], sc.x.align(sc.ia, sc.ib), len(la), len(lb), context)
	w := &writer{maxLines: maxLines, maxBytes: maxBytes}
	// Sized once, up to the bound: the file headers, every line of both
	// sides with its prefix, a hunk header each, a last line without a
	// newline on each side (a diff of a thousand outputs grew each
	// buffer three times, then once when the last lines had none).
	const fileHeaders, hunkHeader = len("--- a/\n+++ b/\n"), 48
	w.buf.Grow(min(maxBytes+256, fileHeaders+2*len(name)+len(a)+len(b)+len(la)+len(lb)+len(sc.hunks)*hunkHeader+2*len(noNewline)))
	w.buf.WriteString("--- a/" + name + "\n+++ b/" + name + "\n")
	for _, h := range sc.hunks {
		changes := sc.changes[h.c0:h.c1]
		sc.header = append(appendRange(append(appendRange(append(sc.header[:0], "@@ -"...), h.a0, h.a1), " +"...), h.b0, h.b1), " @@"...)
		header := zerocopy.String(sc.header) // written before it changes
		// A header goes out only with at least its first line.
		if !w.room(2, len(header)+1+len(h.first(changes, la, lb))+1+len(noNewline)) || !w.line(header, "") {
			w.dropped += 1 + h.a1 - h.a0 + h.b1 - h.b0 - h.same
			continue
		}
		ai := h.a0
		for _, c := range changes {
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

// scratch is the working memory of a unified diff, kept from one to the
// next: a diff of a thousand outputs made a few megabytes of it, all
// fresh memory.
type scratch struct {
	la, lb  []string
	ids     map[string]int32
	ia, ib  []int32
	x       aligner
	hunks   []hunk
	changes []change
	header  []byte
}

var scratchPool = sync.Pool{New: func() any { return &scratch{ids: map[string]int32{}} }}

// release returns sc to the pool, holding no lines of the texts diffed.
// What grew beyond the usual is dropped rather than kept.
func (sc *scratch) release() {
	clear(sc.la)
	clear(sc.lb)
	if len(sc.ids) > maxKeptLines {
		sc.ids = map[string]int32{}
	}
	clear(sc.ids)
	if cap(sc.la)+cap(sc.lb) > 2*maxKeptLines {
		*sc = scratch{ids: sc.ids}
	}
	scratchPool.Put(sc)
}

// maxKeptLines bounds the lines a kept scratch has room for.
const maxKeptLines = 4096

// splitLines appends to lines the lines of b, split after each newline;
// a last line without one is kept as is, so "x" and "x\n" differ as
// diff(1) says they do. The lines share b's bytes.
func splitLines(lines []string, b []byte) []string {
	s := zerocopy.String(b)
	lines = slices.Grow(lines, strings.Count(s, "\n")+1)
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

// hunk is a group of changes, changes[c0:c1] of those hunks returns,
// with the unchanged lines around and between them; same counts those
// unchanged lines.
type hunk struct {
	a0, a1, b0, b1 int
	c0, c1         int
	same           int
}

// first returns the first line of the hunk's body, given its changes.
func (h *hunk) first(changes []change, la, lb []string) string {
	c := changes[0]
	switch {
	case h.a0 < c.a0:
		return la[h.a0]
	case c.a0 < c.a1:
		return la[c.a0]
	}
	return lb[c.b0]
}

// hunks appends to out the hunks of the changes between the runs ms,
// with up to context unchanged lines around them, joining changes at
// most 2·context lines apart, as diff -u does; it appends the changes to
// changes, where the hunks index them.
func hunks(out []hunk, changes []change, ms []Match, na, nb, context int) ([]hunk, []change) {
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
	prevEnd := 0 // end in a of the previous change
	for i, c := range changes {
		if k := len(out) - 1; k >= 0 && c.a0-prevEnd <= 2*context {
			out[k].c1++
		} else {
			lead := min(context, c.a0-prevEnd)
			out = append(out, hunk{a0: c.a0 - lead, b0: c.b0 - lead, c0: i, c1: i + 1})
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
		for _, c := range changes[h.c0:h.c1] {
			h.same -= c.a1 - c.a0
		}
	}
	return out, changes
}

// appendRange appends one side of a hunk header as GNU diff writes it:
// "l,n", "l" when n is 1, and the line before the hunk when it is empty.
func appendRange(dst []byte, lo, hi int) []byte {
	switch n := hi - lo; n {
	case 0:
		return append(strconv.AppendInt(dst, int64(lo), 10), ",0"...)
	case 1:
		return strconv.AppendInt(dst, int64(lo+1), 10)
	default:
		return strconv.AppendInt(append(strconv.AppendInt(dst, int64(lo+1), 10), ','), int64(n), 10)
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
