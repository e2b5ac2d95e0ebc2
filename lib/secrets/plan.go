package secrets

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/config"
)

// A rule's regular expression runs on a whole chunk whenever one of its
// keywords is anywhere in it: most of the scan's time. Most rules can
// only match around one of their keywords, within a bounded distance:
// a rulePlan says how far, so that the rule runs on windows around its
// keywords' places (window.go) and finds what it finds on the chunk.
//
// A rule is windowed when its expression (regexp/syntax) has a part
// every match of which holds one of the rule's keywords (in any case),
// of bounded length, and on each side of that part at most one
// unbounded repetition of one character class (the generic rule's
// [a-z0-9+/]{11,}): that run ends where the class does in the text.
// Any other rule runs on the whole chunk, as before.

// side bounds how far a match reaches on one side of its keyword part:
// at most fixed bytes, plus runs of bytes of the classes runs, in order
// away from the keyword.
type side struct {
	fixed int
	runs  []*[256]bool
}

// rulePlan is how one rule is windowed: its keywords, and the reach of
// each alternative of its expression.
type rulePlan struct {
	id       string
	keywords []string // lowercased
	alts     []reach
}

// reach is how far a match of one alternative reaches around a keyword.
type reach struct {
	kw          int // the longest the keyword part of a match is, in bytes
	left, right side
	// gate matches, at the start of a text, the keyword part of every
	// match and what follows it in the match, and more: its counted
	// repetitions unbounded and its assertions left out. A small
	// expression, run at a few places: where it does not match, no
	// match's keyword part begins; where it does, its longest match
	// (leftmost-longest) is as far as the match can reach.
	gate *regexp.Regexp
	// back is the gate of the parts before the keyword part, reversed:
	// matched against the text before a place, read backwards, its
	// longest match is as far back as the match can begin (nil: none).
	back *regexp.Regexp
}

// langLimit bounds the finite languages enumerated to find the keyword
// part of an expression.
const langLimit = 512

// planRule returns how rule r is windowed, or false when it cannot be.
func planRule(r config.Rule) (rulePlan, bool) {
	if r.Regex == nil || len(r.Keywords) == 0 || len(r.RequiredRules) > 0 || r.Path != nil {
		return rulePlan{}, false
	}
	p := rulePlan{id: r.RuleID}
	for _, k := range r.Keywords {
		k = strings.ToLower(k)
		if k == "" || !isASCII(k) {
			return rulePlan{}, false
		}
		p.keywords = append(p.keywords, k)
	}
	re, err := syntax.Parse(r.Regex.String(), syntax.Perl)
	if err != nil {
		return rulePlan{}, false
	}
	for _, parts := range alternatives(flatten(re)) {
		a, at, ok := reachOf(parts, p.keywords)
		if !ok {
			return rulePlan{}, false
		}
		g := relax(&syntax.Regexp{Op: syntax.OpConcat, Sub: slices.Clone(parts[at:])})
		if a.gate, err = regexp.Compile(`^(?:` + g.String() + `)`); err != nil {
			return rulePlan{}, false
		}
		a.gate.Longest()
		if at > 0 {
			b := reverse(relax(&syntax.Regexp{Op: syntax.OpConcat, Sub: slices.Clone(parts[:at])}))
			if a.back, err = regexp.Compile(`^(?:` + b.String() + `)`); err != nil {
				return rulePlan{}, false
			}
			a.back.Longest()
		}
		p.alts = append(p.alts, a)
	}
	return p, true
}

// alternatives returns the concatenations parts matches, one for each
// branch of its alternations of many strings (a few at most), so that
// each has a keyword part of its own: \b(?:hvs\.[\w-]{90,}|s\.[a-z0-9]{24}).
func alternatives(parts []*syntax.Regexp) [][]*syntax.Regexp {
	for i, p := range parts {
		if p.Op != syntax.OpAlternate || lang(p) != nil || len(p.Sub) > 8 {
			continue
		}
		var out [][]*syntax.Regexp
		for _, b := range p.Sub {
			alt := slices.Concat(parts[:i], flatten(b), parts[i+1:])
			out = append(out, alternatives(alt)...)
			if len(out) > 16 {
				return [][]*syntax.Regexp{parts}
			}
		}
		return out
	}
	return [][]*syntax.Regexp{parts}
}

// reachOf finds the keyword part of the concatenation subs and bounds
// its sides.
// It returns where the keyword part begins.
func reachOf(subs []*syntax.Regexp, keywords []string) (reach, int, bool) {
	// The shortest run of parts whose every string holds a keyword.
	best := -1
	var bi, bj int
	for i := range subs {
		for j := i; j < len(subs); j++ {
			part := &syntax.Regexp{Op: syntax.OpConcat, Sub: subs[i : j+1]}
			l := lang(part)
			if l == nil {
				break
			}
			if !slices.ContainsFunc(l, func(s string) bool { return !containsAny(s, keywords) }) {
				if n, _, ok := bound(part); ok && (best < 0 || n < best) {
					best, bi, bj = n, i, j
				}
				break
			}
		}
	}
	if best < 0 {
		return reach{}, 0, false
	}
	r := reach{kw: best}
	var ok bool
	if r.left, ok = sideOf(subs[:bi]); !ok {
		return reach{}, 0, false
	}
	slices.Reverse(r.left.runs)
	if r.right, ok = sideOf(subs[bj+1:]); !ok {
		return reach{}, 0, false
	}
	return r, bi, true
}

// reverse returns re matching the reversed strings: what matches a
// text read backwards.
func reverse(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, s := range re.Sub {
		c.Sub[i] = reverse(s)
	}
	switch c.Op {
	case syntax.OpConcat:
		slices.Reverse(c.Sub)
	case syntax.OpLiteral:
		c.Rune = slices.Clone(c.Rune)
		slices.Reverse(c.Rune)
	}
	return &c
}

// relax returns a copy of re with every counted repetition's bound
// lifted (x{2,150} is x{2,}) and every assertion (\b, $) left out: it
// matches all re matches, wherever they are, and is compiled into far
// fewer instructions.
func relax(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	}
	c := *re
	c.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, s := range re.Sub {
		c.Sub[i] = relax(s)
	}
	if c.Op == syntax.OpRepeat && c.Max > 1 {
		c.Max = -1
	}
	return &c
}

// flatten returns the parts re is a concatenation of, groups opened:
// what a group matches is a part of the match like any other.
func flatten(re *syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpCapture:
		return flatten(re.Sub[0])
	case syntax.OpConcat:
		var out []*syntax.Regexp
		for _, s := range re.Sub {
			out = append(out, flatten(s)...)
		}
		return out
	}
	return []*syntax.Regexp{re}
}

// sideOf bounds the parts of one side of the keyword part.
func sideOf(parts []*syntax.Regexp) (side, bool) {
	n, runs, ok := bound(&syntax.Regexp{Op: syntax.OpConcat, Sub: parts})
	if !ok || len(runs) > 4 {
		return side{}, false
	}
	return side{fixed: n, runs: runs}, true
}

// bound returns the most bytes a match of re can be, leaving out its
// unbounded runs of one character class, which it returns in order (an
// alternation's, one at most per branch, merged into one).
func bound(re *syntax.Regexp) (int, []*[256]bool, bool) {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, nil, true
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += runeBytes(r, re.Flags&syntax.FoldCase != 0)
		}
		return n, nil, true
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return classBytes(re), nil, true
	case syntax.OpCapture:
		return bound(re.Sub[0])
	case syntax.OpQuest:
		return bound(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		max := -1
		if re.Op == syntax.OpRepeat {
			max = re.Max
		}
		if max >= 0 {
			n, runs, ok := bound(re.Sub[0])
			if !ok || (len(runs) > 0 && max > 1) {
				return 0, nil, false
			}
			return n * max, runs, true
		}
		if c := class(re.Sub[0]); c != nil {
			return 0, []*[256]bool{c}, true
		}
		return 0, nil, false
	case syntax.OpConcat:
		total := 0
		var runs []*[256]bool
		for _, s := range re.Sub {
			n, r, ok := bound(s)
			if !ok {
				return 0, nil, false
			}
			total += n
			if len(r) > 0 {
				runs = append(runs, merge(r))
			}
		}
		return total, runs, true
	case syntax.OpAlternate:
		most := 0
		var runs []*[256]bool
		for _, s := range re.Sub {
			n, r, ok := bound(s)
			if !ok || len(r) > 1 {
				return 0, nil, false
			}
			most = max(most, n)
			runs = append(runs, r...)
		}
		if len(runs) > 0 {
			runs = []*[256]bool{merge(runs)}
		}
		return most, runs, true
	}
	return 0, nil, false
}

// merge is the union of byte classes.
func merge(cs []*[256]bool) *[256]bool {
	var out [256]bool
	for _, c := range cs {
		for b, in := range c {
			out[b] = out[b] || in
		}
	}
	return &out
}

// class returns the bytes a one-character expression may match, every
// byte of a multi-byte character (and any byte not UTF-8, which the
// engine reads as U+FFFD) when it may match one beyond ASCII; nil when
// re is not one character.
func class(re *syntax.Regexp) *[256]bool {
	var c [256]bool
	add := func(lo, hi rune) {
		for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
			c[r] = true
		}
		if hi >= utf8.RuneSelf {
			for b := 0x80; b < 0x100; b++ {
				c[b] = true
			}
		}
	}
	switch re.Op {
	case syntax.OpCharClass:
		for i := 0; i < len(re.Rune); i += 2 {
			add(re.Rune[i], re.Rune[i+1])
		}
	case syntax.OpAnyChar:
		add(0, unicode.MaxRune)
	case syntax.OpAnyCharNotNL:
		add(0, '\n'-1)
		add('\n'+1, unicode.MaxRune)
	case syntax.OpLiteral:
		if len(re.Rune) != 1 {
			return nil
		}
		for r := range folds(re.Rune[0], re.Flags&syntax.FoldCase != 0) {
			add(r, r)
		}
	default:
		return nil
	}
	return &c
}

// classBytes is the most bytes one character of a class takes.
func classBytes(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpCharClass:
		n := 0
		for i := 0; i < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo == hi && (lo == 0x17f || lo == 0x212a) {
				continue // a text holding one is not windowed
			}
			n = max(n, utf8.RuneLen(min(hi, unicode.MaxRune)))
		}
		return n
	}
	return utf8.UTFMax
}

// folds yields r and, when fold, the runes it matches case-insensitively.
func folds(r rune, fold bool) func(func(rune) bool) {
	return func(yield func(rune) bool) {
		if !yield(r) || !fold {
			return
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if !yield(f) {
				return
			}
		}
	}
}

// runeBytes is the most bytes r (any of its cases when fold) takes.
func runeBytes(r rune, fold bool) int {
	n := 0
	for f := range folds(r, fold) {
		if f != 0x17f && f != 0x212a { // a text holding one is not windowed
			n = max(n, utf8.RuneLen(f))
		}
	}
	return max(n, 1)
}

// foldsToASCII are the characters beyond ASCII that the engine matches
// for an ASCII letter case-insensitively (ſ for s, K for k), or that
// strings.ToLower, with which gitleaks looks for keywords, makes an
// ASCII letter of (İ): a text holding one is scanned whole.
var foldsToASCII = []string{"\u017f", "\u212a", "\u0130"}

// lang returns the strings re matches, ASCII letters lowercased, when
// they are few (at most langLimit), else nil. The characters of
// foldsToASCII are left out: a text holding one is not windowed.
func lang(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}
	case syntax.OpLiteral:
		var b strings.Builder
		for _, r := range re.Rune {
			b.WriteRune(unicode.ToLower(r))
		}
		s := b.String()
		if !isASCII(s) {
			return nil
		}
		return []string{s}
	case syntax.OpCharClass:
		var out []string
		for i := 0; i < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if r == 0x17f || r == 0x212a {
					continue
				}
				if len(out) >= langLimit || r >= utf8.RuneSelf {
					return nil
				}
				out = append(out, string(unicode.ToLower(r)))
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	case syntax.OpCapture:
		return lang(re.Sub[0])
	case syntax.OpQuest:
		l := lang(re.Sub[0])
		if l == nil {
			return nil
		}
		return append(l, "")
	case syntax.OpRepeat:
		if re.Max < 0 || re.Max > 4 {
			return nil
		}
		sub := lang(re.Sub[0])
		if sub == nil {
			return nil
		}
		var out []string
		cur := []string{""}
		for n := 0; n <= re.Max; n++ {
			if n >= re.Min {
				out = append(out, cur...)
			}
			if cur = product(cur, sub); cur == nil {
				return nil
			}
		}
		return out
	case syntax.OpConcat:
		out := []string{""}
		for _, s := range re.Sub {
			l := lang(s)
			if l == nil {
				return nil
			}
			if out = product(out, l); out == nil {
				return nil
			}
		}
		return out
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			l := lang(s)
			if l == nil || len(out)+len(l) > langLimit {
				return nil
			}
			out = append(out, l...)
		}
		return out
	}
	return nil
}

// product is every a followed by every b, or nil when too many.
func product(a, b []string) []string {
	if len(a)*len(b) > langLimit {
		return nil
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

func containsAny(s string, words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(s, w) })
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
