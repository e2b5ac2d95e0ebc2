package replay

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// maxAlternatives bounds {a,b} expansion, so a hostile pattern cannot
// make a step allocate without limit.
const maxAlternatives = 1024

// Glob matches slash-separated relative paths against a pattern:
// path.Match per element, "**" as a whole element for any number of
// elements (zero included), {a,b} for alternatives.
type Glob struct {
	alts [][]string // each alternative split into elements
}

// CompileGlob reads a pattern into a Glob.
func CompileGlob(pattern string) (*Glob, error) {
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", shortPattern(pattern), err)
	}
	m := &Glob{}
	for _, a := range alts {
		els := strings.Split(a, "/")
		for _, el := range els {
			if el == "**" {
				continue
			}
			if _, err := path.Match(el, ""); err != nil {
				return nil, fmt.Errorf("pattern %q: %w", pattern, err)
			}
		}
		m.alts = append(m.alts, els)
	}
	return m, nil
}

// Match reports whether name matches the pattern.
func (m *Glob) Match(name string) bool {
	els := strings.Split(name, "/")
	for _, a := range m.alts {
		if matchElems(a, els) {
			return true
		}
	}
	return false
}

// matchElems reports whether the name elements match the pattern
// elements. It fills a table of (pattern suffix, name suffix) results
// rather than backtracking, so several ** cost O(len(pat)·len(name)).
func matchElems(pat, name []string) bool {
	// ok[i][j]: pat[i:] matches name[j:].
	ok := make([][]bool, len(pat)+1)
	for i := range ok {
		ok[i] = make([]bool, len(name)+1)
	}
	ok[len(pat)][len(name)] = true
	for i := len(pat) - 1; i >= 0; i-- {
		for j := len(name); j >= 0; j-- {
			if pat[i] == "**" {
				// Zero elements, or one more and stay on **.
				ok[i][j] = ok[i+1][j] || j < len(name) && ok[i][j+1]
				continue
			}
			if j < len(name) && ok[i+1][j+1] {
				m, _ := path.Match(pat[i], name[j])
				ok[i][j] = m
			}
		}
	}
	return ok[0][0]
}

// shortPattern shortens a pattern quoted in an error to its first bytes.
func shortPattern(p string) string {
	const n = 100
	if len(p) <= n {
		return p
	}
	i := n
	for i > 0 && !utf8.RuneStart(p[i]) {
		i--
	}
	return p[:i] + fmt.Sprintf("… (%d bytes)", len(p))
}

// maxBraceGroups bounds the {…} groups a pattern may hold: each group can
// multiply the alternatives, and real patterns hold a few.
const maxBraceGroups = 64

// braceNode is a piece of a pattern: literal text, or a group of
// alternatives (each a sequence of pieces).
type braceNode struct {
	text string
	alts [][]braceNode
}

// expandBraces expands every {a,b,…} group of p, nested ones included, as
// a shell does. A "{" with no matching "}", or whose group has no comma
// of its own, is literal; "\" escapes the next byte. Work and memory are
// linear in len(p) plus the size of the result, which is bounded: more
// than maxBraceGroups groups, or more than maxAlternatives alternatives,
// is an error before anything is expanded.
func expandBraces(p string) ([]string, error) {
	// Match the braces in one pass: close[i] is the "}" of the group
	// opened at i, for groups with a comma of their own.
	close := map[int]int{}
	type open struct {
		at    int
		comma bool
	}
	var stack []open
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			stack = append(stack, open{at: i})
		case ',':
			if len(stack) > 0 {
				stack[len(stack)-1].comma = true
			}
		case '}':
			if len(stack) == 0 {
				continue
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if o.comma {
				close[o.at] = i
				if len(close) > maxBraceGroups {
					return nil, fmt.Errorf("more than %d {…} groups", maxBraceGroups)
				}
			}
		}
	}
	if len(close) == 0 {
		return []string{p}, nil
	}
	seq := parseBraces(p, 0, len(p), close)
	if n := countBraces(seq); n > maxAlternatives {
		return nil, errors.New("too many {…} alternatives")
	}
	out := []string{""}
	return expandSeq(seq, out), nil
}

// parseBraces reads p[lo:hi] into pieces; close gives each group's end.
func parseBraces(p string, lo, hi int, close map[int]int) []braceNode {
	var seq []braceNode
	start := lo
	for i := lo; i < hi; i++ {
		switch p[i] {
		case '\\':
			i++
			continue
		case '{':
		default:
			continue
		}
		end, ok := close[i]
		if !ok || end >= hi {
			continue
		}
		if start < i {
			seq = append(seq, braceNode{text: p[start:i]})
		}
		var alts [][]braceNode
		from := i + 1
		depth := 0
		for j := i + 1; j <= end; j++ {
			switch {
			case p[j] == '\\' && j < end:
				j++
			case p[j] == '{':
				depth++
			case p[j] == '}' && j < end:
				depth--
			case p[j] == ',' && depth == 0 || j == end:
				alts = append(alts, parseBraces(p, from, j, close))
				from = j + 1
			}
		}
		seq = append(seq, braceNode{alts: alts})
		i = end
		start = end + 1
	}
	if start < hi {
		seq = append(seq, braceNode{text: p[start:hi]})
	}
	return seq
}

// countBraces is the number of alternatives seq expands to, or more than
// maxAlternatives when it is larger (it stops counting there).
func countBraces(seq []braceNode) int {
	n := 1
	for _, node := range seq {
		if node.alts == nil {
			continue
		}
		sum := 0
		for _, a := range node.alts {
			sum = min(sum+countBraces(a), maxAlternatives+1)
		}
		n = min(n*max(sum, 1), maxAlternatives+1)
	}
	return n
}

// expandSeq appends each alternative of seq to each prefix.
func expandSeq(seq []braceNode, prefixes []string) []string {
	for _, node := range seq {
		if node.alts == nil {
			for i := range prefixes {
				prefixes[i] += node.text
			}
			continue
		}
		var next []string
		for _, pre := range prefixes {
			for _, a := range node.alts {
				next = append(next, expandSeq(a, []string{pre})...)
			}
		}
		prefixes = next
	}
	return prefixes
}
