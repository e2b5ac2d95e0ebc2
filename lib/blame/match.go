package blame

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ctx-tools/ctx/lib/drift"
)

// How a line of the file was attributed.
const (
	ByAgent   = "agent"   // a recorded edit wrote the line as it is
	ByMixed   = "mixed"   // a recorded edit wrote it, a person changed it since
	ByUnknown = "unknown" // no recorded edit wrote it
)

// Line is the attribution of one line of a file.
type Line struct {
	By         string
	Origin     *Origin // nil when By is ByUnknown
	Moved      bool    // found by its text elsewhere, not in place
	Reindented bool    // matched once leading and trailing white space is ignored

	was string // for a mixed line, the agent's line it is a changed form of
}

// minMovedLen is the shortest trimmed line, in characters, matched by
// its text alone: shorter ones ("}", "end", "return x") are too common
// to name a writer.
const minMovedLen = 8

// mixedSimilarity is the least similarity of a changed line to the line
// an agent wrote there for the line to count as the agent's, changed.
const mixedSimilarity = 0.5

// distinctive reports whether a trimmed line is long enough to name its
// writer by its text alone: minMovedLen characters, not bytes, so that
// "ça été" is as short in French as "so done" is in English.
func distinctive(t string) bool { return utf8.RuneCountInString(t) >= minMovedLen }

// pool maps the trimmed text of lines recorded edits wrote to the lines
// as written by each step that wrote them, in the order of the steps.
type pool map[string][]pooled

// pooled is a line of the pool and the place of its step in replay's
// order (event.key): histories replayed apart merge by it.
type pooled struct {
	line
	key *evKey
}

// evKey orders the steps that write lines: no two have the same.
type evKey struct {
	at, created time.Time
	pack        string
	seq         int
}

func (a evKey) compare(b evKey) int {
	return cmp.Or(a.at.Compare(b.at), a.created.Compare(b.created), strings.Compare(a.pack, b.pack), cmp.Compare(a.seq, b.seq))
}

// add adds the lines e's step wrote, but those held: lines its session
// found in the files it read, which were there before it.
func (p pool) add(lines []string, e *event) {
	if e.origin == nil {
		return
	}
	k := &evKey{e.at, e.created, e.pack, e.seq}
	for _, l := range lines {
		if t := strings.TrimSpace(l); distinctive(t) && !e.held.has(t) {
			// A line of a version's text: a copy of it does not keep
			// the whole version.
			l = strings.Clone(l)
			t = strings.TrimSpace(l)
			p[t] = append(p[t], pooled{line{text: l, origin: e.origin}, k})
		}
	}
}

// merge adds the lines of q, from histories p does not hold, in the
// order of their steps.
func (p pool) merge(q pool) {
	for t, ws := range q {
		if len(p[t]) == 0 {
			p[t] = ws // one replay's lines are in order
			continue
		}
		p[t] = append(p[t], ws...)
		slices.SortStableFunc(p[t], func(a, b pooled) int { return a.key.compare(*b.key) })
	}
}

// find returns the last writer of the trimmed text t that wrote it at or
// before until (zero: any time).
func (p pool) find(t string, until time.Time) (line, bool) {
	ws := p[t]
	for i := len(ws) - 1; i >= 0; i-- {
		if ws[i].origin.before(until) {
			return ws[i].line, true
		}
	}
	return line{}, false
}

// Past is what is known of the past of each line (0-based) of a file,
// from git. A nil Past, or a nil field, knows nothing.
type Past struct {
	// Until returns the latest time line i can have been written: a
	// line a commit holds existed when it was made. A zero time bounds
	// nothing.
	Until func(i int) time.Time
	// Rejected reports whether line i took another line than was, an
	// agent's line that history holds, in its place: the file did not
	// hold was just before the commit that made line i what it is, yet a
	// commit (another branch's, the other side of a merge) did. Such a
	// line is no changed form of was.
	Rejected func(i int, was string) bool
}

// At is the Past of a file as a commit made at t holds it: every line
// existed at t.
func At(t time.Time) *Past { return &Past{Until: func(int) time.Time { return t }} }

func (p *Past) until(i int) time.Time {
	if p == nil || p.Until == nil {
		return time.Time{}
	}
	return p.Until(i)
}

// changed reports whether line i can be a changed form of the agent's
// line was: unless git shows it took another line in its place.
func (p *Past) changed(i int, was string) bool {
	return p == nil || p.Rejected == nil || !p.Rejected(i, was)
}

// before reports whether the step o can have written a line that existed
// at until: a step after it cannot. Times are compared to the second, as
// commits record them.
func (o *Origin) before(until time.Time) bool {
	if until.IsZero() || o == nil {
		return true
	}
	t, err := time.Parse(time.RFC3339Nano, o.Timestamp)
	return err != nil || !t.Truncate(time.Second).After(until)
}

// attribute attributes each line of current: by alignment with each of
// lasts in turn (the versions the recorded histories of the file's names
// end with, newest name first), then, for lines still unknown, by their
// text in p. A line is never attributed to a step later than past says
// it existed, nor taken for a changed form of a line it rejected
// (past.Rejected).
func attribute(lasts []version, current []string, p pool, past *Past) []Line {
	out := make([]Line, len(current))
	for i := range out {
		out[i].By = ByUnknown
	}
	for _, last := range lasts {
		align(out, last, current, past)
	}
	for i, l := range out {
		if l.By == ByMixed && l.was != "" && !past.changed(i, l.was) {
			out[i] = Line{By: ByUnknown}
		}
	}
	for i, l := range current {
		if out[i].By != ByUnknown {
			continue
		}
		t := strings.TrimSpace(l)
		if !distinctive(t) {
			continue
		}
		if w, ok := p.find(t, past.until(i)); ok {
			out[i] = Line{By: ByAgent, Origin: w.origin, Moved: true, Reindented: w.text != l}
		}
	}
	fillTrivial(current, out)
	return out
}

// align attributes the lines of current still unknown in out by the
// alignment of current with last.
func align(out []Line, last version, current []string, past *Past) {
	if len(last) == 0 {
		return
	}
	norm := func(ls []string) []string {
		t := make([]string, len(ls))
		for i, l := range ls {
			t[i] = strings.TrimSpace(l)
		}
		return t
	}
	ms := drift.Align(norm(last.texts()), norm(current))
	ai, bi := 0, 0
	for _, m := range append(ms, drift.Match{A: len(last), B: len(current)}) {
		for j, i := range pairMixed(last[ai:m.A], current[bi:m.B]) {
			if i >= 0 && out[bi+j].By == ByUnknown && last[ai+i].origin.before(past.until(bi+j)) {
				out[bi+j] = Line{By: ByMixed, Origin: last[ai+i].origin, was: last[ai+i].text}
			}
		}
		for k := 0; k < m.N; k++ {
			l := last[m.A+k]
			switch {
			case out[m.B+k].By != ByUnknown, l.origin == nil, !l.origin.before(past.until(m.B + k)):
			case l.mixed:
				out[m.B+k] = Line{By: ByMixed, Origin: l.origin}
			default:
				out[m.B+k] = Line{By: ByAgent, Origin: l.origin, Reindented: l.text != current[m.B+k]}
			}
		}
		ai, bi = m.A+m.N, m.B+m.N
	}
}

// fillTrivial gives a run of unknown lines too common to match by text
// (blank lines, braces) the origin of the lines around it when both name
// the same step: a blank line inside a function an agent wrote is the
// agent's, even after the function moved.
func fillTrivial(current []string, out []Line) {
	for i := 0; i < len(out); i++ {
		if out[i].By != ByUnknown || i == 0 || out[i-1].By != ByAgent {
			continue
		}
		j := i
		for j < len(out) && out[j].By == ByUnknown && !distinctive(strings.TrimSpace(current[j])) {
			j++
		}
		if j == len(out) || out[j].By != ByAgent {
			i = j
			continue
		}
		a, b := out[i-1].Origin, out[j].Origin
		if a.Pack == b.Pack && a.Step == b.Step {
			for k := i; k < j; k++ {
				out[k] = Line{By: ByAgent, Origin: a, Moved: out[i-1].Moved && out[j].Moved}
			}
		}
		i = j
	}
}

// pairMixed pairs each of the lines cur that replaced the lines old with
// the attributed line of old it is a changed form of: similar enough
// (mixedSimilarity) and the most similar one; -1 for none. Each old line
// is used once.
func pairMixed(old version, cur []string) []int {
	pair := make([]int, len(cur))
	for j := range pair {
		pair[j] = -1
	}
	if len(old) == 0 || len(cur) == 0 {
		return pair
	}
	// Pairing is quadratic in the size of one changed block; past this
	// size lines are paired in order.
	const maxPairing = 256
	used := make([]bool, len(old))
	for j, c := range cur {
		best, bestSim := -1, 0.0
		lo, hi := 0, len(old)
		if len(old) > maxPairing || len(cur) > maxPairing {
			lo, hi = min(j, len(old)), min(j+1, len(old))
		}
		ct := tokens(c)
		for i := lo; i < hi; i++ {
			if used[i] || old[i].origin == nil {
				continue
			}
			if s := similarity(tokens(old[i].text), ct); s > bestSim {
				best, bestSim = i, s
			}
		}
		if best >= 0 && bestSim >= mixedSimilarity {
			used[best] = true
			pair[j] = best
		}
	}
	return pair
}

// tokens splits a line into words (runs of letters, digits and '_') and
// single other non-space characters.
func tokens(s string) []string {
	var t []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += n
		case isWord(r):
			j := i + n
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !isWord(r2) {
					break
				}
				j += n2
			}
			t = append(t, s[i:j])
			i = j
		default:
			t = append(t, s[i:i+n])
			i += n
		}
	}
	return t
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// similarity is 2·|LCS(a, b)| / (|a| + |b|): 1 for equal token lists, 0
// for lists with nothing in common.
func similarity(a, b []string) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	n := 0
	for _, m := range drift.Align(a, b) {
		n += m.N
	}
	return 2 * float64(n) / float64(len(a)+len(b))
}
