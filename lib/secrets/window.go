package secrets

import (
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/detect/codec"
	"github.com/zricethezav/gitleaks/v8/report"
)

// windows runs the rules on the parts of a text where they can match
// rather than on all of it (plan.go says why that finds the same):
//   - each windowed rule on windows around its keywords' places, with
//     no decoding (near);
//   - every windowed rule, decoding as gitleaks does, on the lines
//     around the runs of text gitleaks would decode (base64, hex,
//     percent- and \u-escapes), keeping what it found in a decoding
//     (near, decoded);
//   - the other rules on the whole text when one of their keywords is
//     in it, as before (whole).
type windows struct {
	plans    []rulePlan
	byKw     map[string][]int // keyword → plans holding it
	trie     *ahocorasick.Trie
	keywords []string           // the trie's patterns
	wholeKw  []bool             // keyword of a rule that is not windowed
	near     []*detect.Detector // each windowed rule alone, no decoding
	decoded  *detect.Detector
	whole    *detect.Detector
	anyWhole bool // a rule that is not windowed has no keyword: always run
	// lineRules are the allowlists' expressions that look at a
	// finding's whole line: a text one matches is windowed by whole lines.
	lineRules []*lineRule
	allLines  bool // one of them could match a part of a line but not all of it
}

type lineRule struct{ match func(string) bool }

// newWindows plans the rules of cfg.
func newWindows(cfg config.Config) *windows {
	w := &windows{byKw: map[string][]int{}}
	windowed := map[string]bool{}
	for _, id := range cfg.OrderedRules {
		r, ok := cfg.Rules[id]
		if !ok {
			continue
		}
		p, ok := planRule(r)
		if !ok {
			continue
		}
		windowed[id] = true
		w.plans = append(w.plans, p)
	}
	kwIndex := map[string]int{}
	addKw := func(k string) int {
		if i, ok := kwIndex[k]; ok {
			return i
		}
		kwIndex[k] = len(w.keywords)
		w.keywords = append(w.keywords, k)
		w.wholeKw = append(w.wholeKw, false)
		return len(w.keywords) - 1
	}
	for i, p := range w.plans {
		for _, k := range p.keywords {
			addKw(k)
			if !slices.Contains(w.byKw[k], i) {
				w.byKw[k] = append(w.byKw[k], i)
			}
		}
	}
	for _, id := range cfg.OrderedRules {
		r, ok := cfg.Rules[id]
		if !ok || windowed[id] {
			continue
		}
		if r.Regex == nil && r.Path != nil && !r.Path.MatchString("") {
			continue // a rule on a file's name: a text has none
		}
		if len(r.Keywords) == 0 {
			w.anyWhole = true
		}
		for _, k := range r.Keywords {
			w.wholeKw[addKw(strings.ToLower(k))] = true
		}
	}
	w.trie = ahocorasick.NewTrieBuilder().AddStrings(w.keywords).Build()
	for _, p := range w.plans {
		w.near = append(w.near, detect.NewDetector(only(cfg, func(id string) bool { return id == p.id })))
	}
	w.decoded = detect.NewDetector(only(cfg, func(id string) bool { return windowed[id] }))
	w.decoded.MaxDecodeDepth = maxDecodeDepth
	w.whole = detect.NewDetector(only(cfg, func(id string) bool { return !windowed[id] }))
	w.whole.MaxDecodeDepth = maxDecodeDepth
	addLines := func(as []*config.Allowlist) {
		for _, a := range as {
			if a.RegexTarget != "line" {
				continue
			}
			for _, re := range a.Regexes {
				w.lineRules = append(w.lineRules, &lineRule{match: re.MatchString})
				if !monotone(re.String()) {
					w.allLines = true
				}
			}
		}
	}
	addLines(cfg.Allowlists)
	for _, r := range cfg.Rules {
		if windowed[r.RuleID] {
			addLines(r.Allowlists)
		}
	}
	return w
}

// span is a part of a text, [start, end).
type span struct{ start, end int }

// lowerPool holds the buffers texts are lowercased into.
var lowerPool = sync.Pool{New: func() any { return new([]byte) }}

// find returns what the rules find in t (a chunk), as gitleaks' detector
// does on all of t; ok is false when t must be scanned whole instead
// (it holds a character the engine folds to an ASCII letter).
func (w *windows) find(t string) ([]report.Finding, bool) {
	for _, c := range foldsToASCII {
		if strings.Contains(t, c) {
			return nil, false
		}
	}
	bp := lowerPool.Get().(*[]byte)
	defer lowerPool.Put(bp)
	low := append((*bp)[:0], t...)
	*bp = low
	for i, c := range low {
		if 'A' <= c && c <= 'Z' {
			low[i] = c + 'a' - 'A'
		}
	}
	spans := make([][]span, len(w.plans)) // each rule's
	var rev []byte
	runWhole := w.anyWhole
	w.trie.Walk(low, func(end, n, pattern int64) bool {
		k := w.keywords[pattern]
		if w.wholeKw[pattern] {
			runWhole = true
		}
		pos := int(end - n + 1)
		for _, i := range w.byKw[k] {
			for _, r := range w.plans[i].alts {
				a, b := r.opens(t, pos+len(k)-r.kw, pos, reachLeft(t, pos+len(k)-r.kw, r.left), reachRight(t, pos+r.kw, r.right), &rev)
				if b < 0 {
					continue
				}
				// One byte more each side: an assertion (\b, $) at a
				// match's edge looks at the byte beyond it.
				spans[i] = append(spans[i], span{max(a-1, 0), min(b+1, len(t))})
			}
		}
		return true
	})
	var found []report.Finding
	if runWhole {
		found = append(found, w.whole.DetectString(t)...)
	}
	// A finding's line (gitleaks:allow, the allowlists that look at the
	// line) is the whole line in t: a window whose lines in t one of
	// those would match is widened to them.
	lined := w.allLines || w.lineMatch(t)
	for i, ss := range spans {
		ss = mergeSpans(t, ss, w.allLines)
		if lined && !w.allLines {
			for k, s := range ss {
				if l := (span{lineStart(t, s.start), lineEnd(t, s.end)}); w.lineMatch(t[l.start:l.end]) {
					ss[k] = l
				}
			}
			ss = mergeSpans(t, ss, false)
		}
		for _, s := range ss {
			found = append(found, w.detectAt(w.near[i], t, s, false)...)
		}
	}
	for _, s := range mergeSpans(t, w.encodedSpans(t), true) {
		found = append(found, w.detectAt(w.decoded, t, s, true)...)
	}
	return found, true
}

// lineMatch reports whether what gitleaks checks a finding's line for
// (gitleaks:allow, an allowlist on the line) is in t.
func (w *windows) lineMatch(t string) bool {
	return strings.Contains(t, "gitleaks:allow") || slices.ContainsFunc(w.lineRules, func(r *lineRule) bool { return r.match(t) })
}

// detectAt runs d on the part s of t, the findings' lines counted in t;
// with decoded, only those found in a decoding.
func (w *windows) detectAt(d *detect.Detector, t string, s span, decoded bool) []report.Finding {
	fs := d.DetectString(t[s.start:s.end])
	if len(fs) == 0 {
		return nil
	}
	lines := strings.Count(t[:s.start], "\n")
	out := fs[:0]
	for _, f := range fs {
		if decoded && !slices.ContainsFunc(f.Tags, func(tag string) bool { return strings.HasPrefix(tag, "decode-depth:") }) {
			continue
		}
		f.StartLine += lines
		f.EndLine += lines
		out = append(out, f)
	}
	return out
}

// mergeSpans sorts spans and joins those that overlap or touch; with
// lines, each begins at the line break before its first line (as
// gitleaks' lines do) and ends after its last line's break.
func mergeSpans(t string, spans []span, lines bool) []span {
	if len(spans) == 0 {
		return nil
	}
	if lines {
		for i, s := range spans {
			spans[i] = span{lineStart(t, s.start), lineEnd(t, s.end)}
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.start <= last.end {
			last.end = max(last.end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// lineStart is the line break before the line holding the byte at i
// (where gitleaks' lines begin), or 0.
func lineStart(t string, i int) int {
	return max(strings.LastIndexByte(t[:i], '\n'), 0)
}

// lineEnd is the end of the line holding the byte before i, its line
// break included.
func lineEnd(t string, i int) int {
	if i <= 0 {
		return 0
	}
	j := strings.IndexByte(t[i-1:], '\n')
	if j < 0 {
		return len(t)
	}
	return i + j
}

// opens returns how far a match of r whose keyword part begins at a
// place from lo to hi of t may reach, within t[start:end]: from the
// longest match of its back gate, read backwards, to the end of the
// longest match of its gate, at any of those places where the gate
// matches; b is -1 when it matches at none.
func (r *reach) opens(t string, lo, hi, start, end int, buf *[]byte) (a, b int) {
	start, end = max(start, 0), min(end, len(t))
	a, b = len(t), -1
	for x := max(lo, 0); x <= hi && x < end; x++ {
		m := r.gate.FindStringIndex(t[x:end])
		if m == nil {
			continue
		}
		b = max(b, x+m[1])
		if r.back == nil || x <= start {
			a = min(a, max(start, x))
			continue
		}
		*buf = reversed((*buf)[:0], t[start:x])
		if m := r.back.FindIndex(*buf); m != nil {
			a = min(a, x-m[1])
		} else {
			a = min(a, x)
		}
	}
	return a, b
}

// reversed appends the characters of s to buf in reverse order, each
// keeping its bytes (a byte that is not UTF-8 stays itself).
func reversed(buf []byte, s string) []byte {
	for len(s) > 0 {
		_, n := utf8.DecodeLastRuneInString(s)
		buf = append(buf, s[len(s)-n:]...)
		s = s[:len(s)-n]
	}
	return buf
}

// reachRight is the furthest a match whose keyword part ends at or
// before i may end: each run of the side as long as the text allows,
// after at most its fixed bytes.
func reachRight(t string, i int, s side) int {
	i += s.fixed
	for _, c := range s.runs {
		i = runEnd(t, i, c) + s.fixed
	}
	return i
}

// reachLeft is the earliest a match whose keyword part begins at or
// after i may begin.
func reachLeft(t string, i int, s side) int {
	i -= s.fixed
	for _, c := range s.runs {
		i = runStart(t, i, c) - s.fixed
	}
	return i
}

// runEnd is where the run of bytes of class c at i ends (i when t[i]
// is not one).
func runEnd(t string, i int, c *[256]bool) int {
	if i >= len(t) {
		return len(t)
	}
	i = max(i, 0)
	for i < len(t) && c[t[i]] {
		i++
	}
	return i
}

// runStart is where the run of bytes of class c that ends at or covers
// i begins (i when the byte before it is not one).
func runStart(t string, i int, c *[256]bool) int {
	if i <= 0 {
		return 0
	}
	i = min(i, len(t))
	for i > 0 && c[t[i-1]] {
		i--
	}
	return i
}

// base64Byte are the bytes of a run gitleaks' decoder may take for
// base64 or hex ([\w/+-]).
var base64Byte = func() (c [256]bool) {
	for b := range 256 {
		c[b] = 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("_/+-", byte(b)) >= 0
	}
	return
}()

// hex4 reports whether s begins with 4 hex digits.
func hex4(s string) bool {
	return len(s) >= 4 && isHex(s[0]) && isHex(s[1]) && isHex(s[2]) && isHex(s[3])
}

func isHex(b byte) bool { return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F' }

// decodedMargin is how far around a place gitleaks' decoder decodes
// the rules run, beyond the lines around it: a match found in a
// decoding overlaps it, and holds a keyword.
const decodedMargin = 512

// encodedSpans returns the places of t gitleaks' decoder may decode
// something at (codec.Decoder), each widened by decodedMargin: a %XX or \uXXXX / U+XXXX escape, or a run of [\w/+-]
// (and its = padding) of 16 bytes or more that the decoder, given the
// run alone, decodes (where no escape is on the line, the decoder
// finds in a run what it finds there alone).
func (w *windows) encodedSpans(t string) []span {
	var out []span
	add := func(a, b int) {
		out = append(out, span{max(a-decodedMargin-1, 0), min(b+decodedMargin+1, len(t))})
	}
	dec := codec.NewDecoder()
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '%' && i+2 < len(t) && isHex(t[i+1]) && isHex(t[i+2]):
			add(i, i+3)
		case c == '\\' && i+5 < len(t) && (t[i+1] == 'u' || t[i+1] == 'U') && hex4(t[i+2:]):
			add(i, i+6)
		case base64Byte[c]:
			j := runEnd(t, i, &base64Byte)
			for k := i; ; k++ {
				u := strings.Index(t[k:j], "U+")
				if u < 0 {
					break
				}
				k += u
				if k+6 <= len(t) && hex4(t[k+2:]) {
					add(k, k+6)
				}
			}
			for k := 0; k < 2 && j < len(t) && t[j] == '='; k++ {
				j++
			}
			if j-i >= 16 && hasLikelyByte(t[i:j]) {
				if _, segs := dec.Decode(t[i:j], nil); len(segs) > 0 {
					add(i, j)
				}
			}
			i = j - 1
		}
	}
	return out
}

// hasLikelyByte reports whether run holds a byte without which the
// decoder decodes nothing of it: a digit, or one of +/-_.
func hasLikelyByte(run string) bool {
	return strings.ContainsAny(run, "0123456789+/-_")
}

// monotone reports whether an expression that matches a part of a text
// surely matches the whole text: it asserts nothing about where the
// text or a line begins or ends, or about word boundaries.
func monotone(expr string) bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return false
	}
	var asserts func(*syntax.Regexp) bool
	asserts = func(re *syntax.Regexp) bool {
		switch re.Op {
		case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
			syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			return true
		}
		return slices.ContainsFunc(re.Sub, asserts)
	}
	return !asserts(re)
}
