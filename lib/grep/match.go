package grep

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Pattern is what to look for: an RE2 regular expression (Go's regexp
// syntax), or with Fixed a string matched as it is.
type Pattern struct {
	Expr       string
	Fixed      bool // Expr is a plain string, not a regular expression
	IgnoreCase bool // letters match in either case (Unicode case folding)
	Word       bool // a match must be a whole word (see Compile)
}

// Matcher finds the lines of a text that match a Pattern. It is safe for
// concurrent use.
//
// Matching is line by line, as grep's is: a match never spans a newline.
// The regular expression runs only on the lines that hold one of the
// literals every match must contain (lits), found with bytes.Index (or an
// ASCII case-insensitive scan), so most of a text is only scanned for
// them. A pattern with no such literal runs the regular expression over
// the text to find each next matching line.
type Matcher struct {
	re      *regexp.Regexp
	lits    []literal // every match contains one of these; nil: no prefilter
	litOnly bool      // the pattern is lits[0] itself: no regexp needed
	never   bool      // no line can match (a literal holds a newline)
}

// ErrPattern is wrapped by every error of Compile: the pattern, not the
// store, is at fault.
var ErrPattern = errors.New("bad pattern")

// maxLits bounds the alternatives the prefilter scans for: beyond it,
// scanning for each costs more than running the regular expression.
const maxLits = 6

// Compile checks p and prepares its matcher.
//
// With Word, a match must stand between word boundaries: for a fixed
// string (or a regular expression that is one), the byte before and the
// byte after the match are not word bytes ([0-9A-Za-z_]) or are the
// line's ends, as grep -w has it; for other expressions it is \b(?:EXPR)\b.
func Compile(p Pattern) (*Matcher, error) {
	if strings.ContainsRune(p.Expr, '\n') {
		return nil, fmt.Errorf("%w: %q holds a newline, and lines are matched one at a time", ErrPattern, p.Expr)
	}
	expr := p.Expr
	if p.Fixed {
		expr = regexp.QuoteMeta(expr)
	}
	flags := syntax.Perl
	if p.IgnoreCase {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(expr, flags)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPattern, err)
	}
	tree = tree.Simplify()
	if p.Word {
		expr = wordExpr(expr, tree)
	}
	prefix := "(?m)"
	if p.IgnoreCase {
		prefix = "(?mi)"
	}
	re, err := regexp.Compile(prefix + expr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPattern, err)
	}
	m := &Matcher{re: re}
	f := required(tree)
	for _, l := range f {
		if bytes.IndexByte(l.b, '\n') >= 0 && len(f) == 1 {
			m.never = true
		}
	}
	if len(f) > 0 && len(f) <= maxLits {
		m.lits = f
		m.litOnly = !p.Word && len(f) == 1 && whole(tree, f[0])
	}
	return m, nil
}

// wordExpr wraps expr so that matches are whole words. When the pattern
// is a literal string, each end gets \b if its byte is a word byte and \B
// otherwise, so that the byte beside the match is a non-word byte either
// way (grep -w); else both ends get \b.
func wordExpr(expr string, tree *syntax.Regexp) string {
	if tree.Op != syntax.OpLiteral {
		return `\b(?:` + expr + `)\b`
	}
	edge := func(r rune) string {
		if r < utf8.RuneSelf && isWord(byte(r)) {
			return `\b`
		}
		return `\B`
	}
	rs := tree.Rune
	return edge(rs[0]) + `(?:` + expr + `)` + edge(rs[len(rs)-1])
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// literal is a string every match of a pattern (or of one of its
// alternatives) contains: exactly, or ASCII case-insensitively (fold,
// with b lower-cased).
type literal struct {
	b    []byte
	fold bool
}

// required returns literals one of which every match of re contains, nil
// when it finds none. It prefers, among a concatenation's members, the
// set whose shortest literal is longest.
func required(re *syntax.Regexp) []literal {
	switch re.Op {
	case syntax.OpLiteral:
		return literalOf(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []literal
		// Adjacent literal members (a capture splits "ab(c)d") join up.
		var run []rune
		runFold := false
		flush := func() {
			if len(run) > 0 {
				best = better(best, literalOf(run, runFold))
				run = nil
			}
		}
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				fold := sub.Flags&syntax.FoldCase != 0
				if len(run) > 0 && fold != runFold {
					flush()
				}
				run, runFold = append(run, sub.Rune...), fold
				continue
			}
			flush()
			best = better(best, required(sub))
		}
		flush()
		return best
	case syntax.OpAlternate:
		var all []literal
		for _, sub := range re.Sub {
			f := required(sub)
			if f == nil {
				return nil
			}
			all = append(all, f...)
		}
		return all
	}
	return nil
}

// literalOf turns runes into a literal. A case-insensitive one is kept
// only in its longest run of ASCII bytes other than k and s, whose
// Unicode case folding reaches outside ASCII (K: the Kelvin sign, s: the
// long s), so that the ASCII scan misses no match.
func literalOf(rs []rune, fold bool) []literal {
	if len(rs) == 0 {
		return nil
	}
	if !fold {
		return []literal{{b: []byte(string(rs))}}
	}
	var best, cur []byte
	for _, r := range rs {
		switch {
		case r >= utf8.RuneSelf, r == 'k', r == 'K', r == 's', r == 'S':
			cur = nil
		default:
			cur = append(cur, lower(byte(r)))
			if len(cur) > len(best) {
				best = append(best[:0], cur...)
			}
		}
	}
	if len(best) == 0 {
		return nil
	}
	return []literal{{b: best, fold: true}}
}

// better returns the literal set with the longer shortest member, a when
// they tie.
func better(a, b []literal) []literal {
	if shortest(b) > shortest(a) {
		return b
	}
	return a
}

func shortest(f []literal) int {
	if len(f) == 0 {
		return 0
	}
	n := len(f[0].b)
	for _, l := range f[1:] {
		n = min(n, len(l.b))
	}
	return n
}

// whole reports whether the pattern tree is exactly the literal l: its
// matches are l's occurrences.
func whole(tree *syntax.Regexp, l literal) bool {
	if tree.Op != syntax.OpLiteral {
		return false
	}
	fold := tree.Flags&syntax.FoldCase != 0
	if fold != l.fold {
		return false
	}
	if !fold {
		return string(tree.Rune) == string(l.b)
	}
	return len(l.b) == len(tree.Rune) // nothing was cut from a folded one
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// index returns the first offset of l in b, -1 when there is none.
func (l *literal) index(b []byte) int {
	if l.fold {
		return indexFold(b, l.b)
	}
	return indexRare(b, l.b)
}

// rarest returns the offset in lit of its rarest byte (rank).
func rarest(lit []byte) int {
	at := 0
	for i := 1; i < len(lit); i++ {
		if rank[lower(lit[i])] < rank[lower(lit[at])] {
			at = i
		}
	}
	return at
}

// indexRare is bytes.Index anchored on lit's rarest byte, which
// IndexByte finds at memory speed: bytes.Index anchors on the first
// byte, often a common letter, and stops at each. When the anchor turns
// out common here too (many false candidates), bytes.Index takes over.
func indexRare(b, lit []byte) int {
	n := len(lit)
	if n < 2 {
		return bytes.Index(b, lit)
	}
	at := rarest(lit)
	c := lit[at]
	fails := 0
	for from := at; from < len(b); {
		i := bytes.IndexByte(b[from:], c)
		if i < 0 {
			return -1
		}
		i += from
		start := i - at
		if start+n > len(b) {
			return -1
		}
		if bytes.Equal(b[start:start+n], lit) {
			return start
		}
		fails++
		from = i + 1
		if fails > 16 && fails > (i>>5) {
			if j := bytes.Index(b[start+1:], lit); j >= 0 {
				return start + 1 + j
			}
			return -1
		}
	}
	return -1
}

// indexFold returns the first offset in b of the lower-case ASCII string
// lit, compared ASCII case-insensitively, -1 when there is none. It
// anchors on lit's rarest byte, looked for with IndexByte in one case
// or, for a letter, in both, each scan resumed where it stopped so that
// b is read at most twice.
func indexFold(b, lit []byte) int {
	n := len(lit)
	if n == 0 {
		return 0
	}
	at := rarest(lit)
	lo := lit[at]
	up := lo
	if lo >= 'a' && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	nextLo, nextUp := -2, -2 // -2: not looked for yet; -1: none left
	for from := at; ; {
		if nextLo != -1 && nextLo < from {
			nextLo = indexByteFrom(b, lo, from)
		}
		if up == lo {
			nextUp = nextLo
		} else if nextUp != -1 && nextUp < from {
			nextUp = indexByteFrom(b, up, from)
		}
		i := nextLo
		if i < 0 || nextUp >= 0 && nextUp < i {
			i = nextUp
		}
		if i < 0 {
			return -1
		}
		start := i - at
		if start+n <= len(b) && equalFold(b[start:start+n], lit) {
			return start
		}
		from = i + 1
	}
}

func indexByteFrom(b []byte, c byte, from int) int {
	if from >= len(b) {
		return -1
	}
	i := bytes.IndexByte(b[from:], c)
	if i < 0 {
		return -1
	}
	return from + i
}

// equalFold reports whether a equals the lower-case ASCII lit, ASCII
// letters compared in either case.
func equalFold(a, lit []byte) bool {
	for i, c := range lit {
		if lower(a[i]) != c {
			return false
		}
	}
	return true
}

// rank orders bytes by how common they are in text and code, lower
// being rarer: the prefilter anchors on a literal's rarest byte. Bytes
// not listed are rare (rank 0).
var rank = func() (r [256]uint8) {
	const common = "zqjxkvbywgpfmucdlhrsnioate" // rare to common letters
	for i := range 256 {
		c := byte(i)
		switch {
		case c == ' ' || c == '\n' || c == '\t':
			r[i] = 250
		case c >= '0' && c <= '9':
			r[i] = 60
		case c == 'e' || c == 'E':
			r[i] = 240
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			r[i] = uint8(100 + 4*strings.IndexByte(common, lower(c)))
		case c == '"' || c == ',' || c == '.' || c == '(' || c == ')' || c == '_' || c == '-' || c == '/' || c == ':' || c == '=':
			r[i] = 90
		case c >= 0x80:
			r[i] = 30
		default:
			r[i] = 20
		}
	}
	return r
}()

// Line is one matching line of a text.
type Line struct {
	Number int      // 1-based
	Start  int      // offset of the line in the text
	Text   []byte   // the line, without its newline (a slice of the text)
	Spans  [][2]int // the matches: byte offsets in Text, in order
}

// Lines calls fn for each line of b that holds a match, in order, and
// stops early when fn returns false. Each Line's Text is a slice of b.
func (m *Matcher) Lines(b []byte, fn func(Line) bool) {
	m.lines(b, true, fn)
}

// Count returns how many lines of b hold a match.
func (m *Matcher) Count(b []byte) int {
	n := 0
	m.lines(b, false, func(Line) bool { n++; return true })
	return n
}

// Match reports whether some line of b holds a match.
func (m *Matcher) Match(b []byte) bool {
	found := false
	m.lines(b, false, func(Line) bool { found = true; return false })
	return found
}

// lines is Lines; without spans it leaves Spans (and Number) unset and
// stops confirming a line at its first match.
func (m *Matcher) lines(b []byte, spans bool, fn func(Line) bool) {
	if m.never {
		return
	}
	number, counted := 1, 0 // the line number of offset counted
	pos := 0                // always the start of a line
	next := m.nextLiteral(b)
	for pos < len(b) { // a final newline ends the last line; no empty line follows
		// Find a candidate: an offset in the first line that may match.
		var cand int
		if m.lits != nil {
			cand = next(pos)
		} else {
			loc := m.re.FindIndex(b[pos:])
			if loc == nil {
				return
			}
			cand = pos + loc[0]
		}
		if cand < 0 || cand == len(b) && b[cand-1] == '\n' {
			return // (an empty match after the final newline is on no line)
		}
		start := pos + bytes.LastIndexByte(b[pos:cand], '\n') + 1
		end := len(b)
		if i := bytes.IndexByte(b[cand:], '\n'); i >= 0 {
			end = cand + i
		}
		line := b[start:end]
		var ss [][2]int
		switch {
		case m.litOnly && spans:
			ss = literalSpans(line, &m.lits[0])
		case m.litOnly:
			ss = [][2]int{{0, 0}}
		case spans:
			for _, loc := range m.re.FindAllIndex(line, -1) {
				ss = append(ss, [2]int{loc[0], loc[1]})
			}
		default:
			if m.re.Match(line) {
				ss = [][2]int{{0, 0}}
			}
		}
		if len(ss) > 0 {
			l := Line{Start: start, Text: line}
			if spans {
				number += bytes.Count(b[counted:start], []byte{'\n'})
				counted = start
				l.Number, l.Spans = number, ss
			}
			if !fn(l) {
				return
			}
		}
		if end == len(b) {
			return
		}
		pos = end + 1
	}
}

// nextLiteral returns a function giving the first offset at or after pos
// (which only grows) where one of m's literals starts, -1 when none does.
// Each literal's next offset is kept, so b is scanned once per literal.
func (m *Matcher) nextLiteral(b []byte) func(pos int) int {
	if m.lits == nil {
		return nil
	}
	at := make([]int, len(m.lits))
	for i := range at {
		at[i] = -2 // not looked for yet
	}
	return func(pos int) int {
		best := -1
		for i := range m.lits {
			if at[i] == -1 {
				continue
			}
			if at[i] < pos {
				at[i] = -1
				if j := m.lits[i].index(b[min(pos, len(b)):]); j >= 0 {
					at[i] = pos + j
				}
			}
			if at[i] >= 0 && (best < 0 || at[i] < best) {
				best = at[i]
			}
		}
		return best
	}
}

// literalSpans returns the non-overlapping occurrences of l in line.
func literalSpans(line []byte, l *literal) [][2]int {
	var ss [][2]int
	for at := 0; at <= len(line); {
		i := l.index(line[at:])
		if i < 0 {
			break
		}
		ss = append(ss, [2]int{at + i, at + i + len(l.b)})
		at += i + max(len(l.b), 1)
	}
	return ss
}
