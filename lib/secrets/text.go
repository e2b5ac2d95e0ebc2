package secrets

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// replacement is what one secret becomes in a text.
type replacement struct {
	rule, secret string
}

// markFor is the mark that replaces secret, followed by as many line
// breaks as secret holds, so that the lines after it keep their numbers
// (a file's numbered lines, a partial read's line ranges).
func markFor(rule, secret string) string {
	return Mark(rule, secret) + strings.Repeat("\n", strings.Count(secret, "\n"))
}

// forms returns how secret may be written in a text: as itself and, when
// that differs, JSON-escaped (inside a JSON document the text holds).
func forms(secret string) []string {
	out := []string{secret}
	q, err := jsontext.AppendQuote(nil, secret)
	if err == nil {
		if esc := string(q[1 : len(q)-1]); esc != secret {
			out = append(out, esc)
		}
	}
	return out
}

// occurrences returns the 1-based line of each place secret, in any of
// its forms, occurs in text.
func occurrences(text, secret string) []int {
	var lines []int
	for _, f := range forms(secret) {
		for off := 0; ; {
			i := strings.Index(text[off:], f)
			if i < 0 {
				break
			}
			lines = append(lines, 1+strings.Count(text[:off+i], "\n"))
			off += i + len(f)
		}
	}
	slices.Sort(lines)
	return lines
}

// encodedRun matches a run of text that may be base64 (standard or URL
// alphabet), where gitleaks' decoding pass finds secrets.
var encodedRun = regexp.MustCompile(`[A-Za-z0-9+/_-]{16,}={0,2}`)

// redactText replaces every secret of reps in text by its mark, and
// reports whether anything changed. A secret held in text only
// base64-encoded has its whole encoded run replaced.
func redactText(text string, reps []replacement) string {
	var pairs []string
	type pair struct{ old, new string }
	var ps []pair
	var encoded []replacement
	for _, r := range reps {
		found := false
		for i, f := range forms(r.secret) {
			if strings.Contains(text, f) {
				found = true
				mark := markFor(r.rule, r.secret)
				if i > 0 {
					mark = Mark(r.rule, r.secret) + strings.Repeat(`\n`, strings.Count(r.secret, "\n"))
				}
				ps = append(ps, pair{f, mark})
			}
		}
		if !found {
			encoded = append(encoded, r)
		}
	}
	// Longer secrets first: the replacer tries its pairs in order, and a
	// secret may contain another.
	slices.SortStableFunc(ps, func(a, b pair) int { return len(b.old) - len(a.old) })
	for _, p := range ps {
		pairs = append(pairs, p.old, p.new)
	}
	if len(pairs) > 0 {
		text = strings.NewReplacer(pairs...).Replace(text)
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
