package secrets

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf16"
)

// escaped returns a regular expression matching secret written in any
// JSON escaping: each character as itself or as a \uXXXX escape (either
// case of hex digits, a surrogate pair beyond the BMP), and the
// characters that have one by their short escape (\/ as PHP writes a
// slash, \n, \"…). A JSON text inside a content holds its strings so,
// and the scanner decodes them before its rules run: what it finds there
// must be rewritten in whichever escaping the text uses.
func escaped(secret string) string {
	var b strings.Builder
	hexq := func(r rune) string {
		var h strings.Builder
		for _, c := range fmt.Sprintf("%04x", r) {
			if 'a' <= c && c <= 'f' {
				h.WriteString("[" + string(c) + string(c-'a'+'A') + "]")
			} else {
				h.WriteRune(c)
			}
		}
		return `\\u` + h.String()
	}
	for _, r := range secret {
		alts := []string{regexp.QuoteMeta(string(r))}
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			alts = append(alts, hexq(hi)+hexq(lo))
		} else {
			alts = append(alts, hexq(r))
		}
		if short, ok := shortEscapes[r]; ok {
			alts = append(alts, regexp.QuoteMeta(short))
		}
		b.WriteString("(?:" + strings.Join(alts, "|") + ")")
	}
	return b.String()
}

// shortEscapes are JSON's two-character escapes.
var shortEscapes = map[rune]string{
	'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`,
}

// finder finds the secrets of hs in a text, each in any of the ways it
// may be written there: as itself, or JSON-escaped in any escaping.
type finder struct {
	hs []hit // longest first: a secret may contain another
	re *regexp.Regexp
}

func newFinder(hs []hit) *finder {
	f := &finder{hs: slices.Clone(hs)}
	slices.SortStableFunc(f.hs, func(a, b hit) int { return len(b.secret) - len(a.secret) })
	return f
}

// expr returns the expression matching every escaping of every secret,
// compiled on first use, or nil when it is too large to compile (a
// secret then found only escaped fails the redaction: RedactLog scans
// what it rewrote).
func (f *finder) expr() *regexp.Regexp {
	if f.re == nil {
		alts := make([]string, len(f.hs))
		for i, h := range f.hs {
			alts[i] = "(" + escaped(h.secret) + ")"
		}
		f.re, _ = regexp.Compile(strings.Join(alts, "|"))
	}
	return f.re
}

// match is one place a secret of a finder is written in a text.
type match struct {
	start, end int
	h          hit
}

// all returns every place a secret is written in text, in text order.
func (f *finder) all(text string) []match {
	if len(f.hs) == 0 {
		return nil
	}
	var out []match
	re := (*regexp.Regexp)(nil)
	if strings.Contains(text, `\`) {
		re = f.expr()
	}
	if re == nil {
		// No escape: each secret is written as itself, if at all; an
		// index search is many times faster than the expression.
		for _, h := range f.hs {
			for off := 0; ; {
				i := strings.Index(text[off:], h.secret)
				if i < 0 {
					break
				}
				out = append(out, match{off + i, off + i + len(h.secret), h})
				off += i + len(h.secret)
			}
		}
		slices.SortFunc(out, func(a, b match) int { return a.start - b.start })
		// Drop a secret found inside a longer one already found.
		kept := out[:0]
		end := 0
		for _, m := range out {
			if m.start >= end {
				kept = append(kept, m)
				end = m.end
			}
		}
		return kept
	}
	for _, loc := range re.FindAllStringSubmatchIndex(text, -1) {
		for g := 1; g <= len(f.hs); g++ {
			if loc[2*g] >= 0 {
				out = append(out, match{loc[0], loc[1], f.hs[g-1]})
				break
			}
		}
	}
	return out
}

// occurrences returns the 1-based line of each place secret, in any of
// its forms, occurs in text.
func occurrences(text, secret string) []int {
	var lines []int
	for _, m := range newFinder([]hit{{secret: secret}}).all(text) {
		lines = append(lines, 1+strings.Count(text[:m.start], "\n"))
	}
	return lines
}

// encodedRun matches a run of text that may be base64 (standard or URL
// alphabet), where gitleaks' decoding pass finds secrets.
var encodedRun = regexp.MustCompile(`[A-Za-z0-9+/_-]{16,}={0,2}`)

// redactText returns text with every secret of reps replaced by its
// mark, in whichever form it is written (itself or JSON-escaped in any
// escaping; an escaped secret's line breaks are kept escaped). A secret
// held in text only base64-encoded has its whole encoded run replaced.
func redactText(text string, reps []hit) string {
	ms := newFinder(reps).all(text)
	var b strings.Builder
	last := 0
	seen := map[string]bool{}
	for _, m := range ms {
		seen[m.h.secret] = true
		b.WriteString(text[last:m.start])
		b.WriteString(Mark(m.h.rule, m.h.secret))
		n := strings.Count(m.h.secret, "\n")
		if strings.Count(text[m.start:m.end], "\n") == n {
			b.WriteString(strings.Repeat("\n", n))
		} else {
			b.WriteString(strings.Repeat(`\n`, n))
		}
		last = m.end
	}
	if len(ms) > 0 {
		b.WriteString(text[last:])
		text = b.String()
	}
	var encoded []hit
	for _, r := range reps {
		if !seen[r.secret] {
			encoded = append(encoded, r)
		}
	}
	if len(encoded) > 0 {
		text = encodedRun.ReplaceAllStringFunc(text, func(run string) string {
			dec := decodeRun(run)
			if dec == "" {
				return run
			}
			for _, r := range encoded {
				if strings.Contains(dec, r.secret) {
					return Mark(r.rule, r.secret)
				}
			}
			return run
		})
	}
	return text
}

// decodeRun decodes a base64 run in any of its usual alphabets and
// paddings, or returns "".
func decodeRun(run string) string {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(run); err == nil {
			return string(b)
		}
	}
	return ""
}
