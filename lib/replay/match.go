package replay

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// maxAlternatives bounds {a,b} expansion, so a hostile pattern cannot
// make a step allocate without limit.
const maxAlternatives = 1024

// globMatcher matches slash-separated relative paths against a pattern:
// path.Match per element, "**" as a whole element for any number of
// elements (zero included), {a,b} for alternatives.
type globMatcher struct {
	alts [][]string // each alternative split into elements
}

func compileGlob(pattern string) (*globMatcher, error) {
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	m := &globMatcher{}
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

func (m *globMatcher) match(name string) bool {
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

// expandBraces expands the first top-level {a,b,…} group of p, recursively.
// A "{" with no matching "}" or no comma is literal.
func expandBraces(p string) ([]string, error) {
	open, close, commas := -1, -1, []int(nil)
	depth := 0
scan:
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
				commas = commas[:0]
			}
			depth++
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth == 0 {
				if len(commas) > 0 {
					close = i
					break scan
				}
				open = -1
			}
		}
	}
	if close < 0 {
		return []string{p}, nil
	}
	prefix, suffix := p[:open], p[close+1:]
	var parts []string
	start := open + 1
	for _, c := range commas {
		parts = append(parts, p[start:c])
		start = c + 1
	}
	parts = append(parts, p[start:close])
	var out []string
	for _, part := range parts {
		more, err := expandBraces(prefix + part + suffix)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
		if len(out) > maxAlternatives {
			return nil, errors.New("too many {…} alternatives")
		}
	}
	return out, nil
}
