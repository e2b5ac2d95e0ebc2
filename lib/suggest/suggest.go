// Package suggest finds the names a mistyped one was probably meant to
// be, for "did you mean" hints: the closest candidates by edit distance
// (insertions, deletions, substitutions and swaps of two adjacent
// characters each count one), as git suggests commands.
package suggest

import (
	"slices"
	"strings"
)

// Nearest returns the candidates closest to word, sorted, when they are
// close enough to be a typo of it: at most two edits away, and fewer
// edits than half of word's length (so "ab" suggests nothing for "xy").
// A candidate equal to word is not a suggestion.
func Nearest(word string, candidates []string) []string {
	limit := min(2, (len([]rune(word))-1)/2)
	if limit < 1 {
		limit = 1
		if len([]rune(word)) < 3 {
			return nil
		}
	}
	best := limit + 1
	var out []string
	for _, c := range candidates {
		if c == word {
			continue
		}
		d := Distance(word, c)
		switch {
		case d < best:
			best, out = d, []string{c}
		case d == best && !slices.Contains(out, c):
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// Distance is the optimal string alignment distance between a and b,
// counted in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Join renders names for a hint, each after prefix and quoted as a
// command line would be: "ctx log", or "ctx log" or "ctx pack".
func Join(names []string, prefix string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + prefix + n + "'"
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
