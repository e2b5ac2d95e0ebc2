package secrets

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

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

// redactText returns text with every secret of reps replaced by its
// mark, in whichever form it is written (itself or JSON-escaped; an
// escaped secret's line breaks are kept escaped). A secret held in text
// only base64-encoded has its whole encoded run replaced.
func redactText(text string, reps []hit) string {
	type pair struct{ old, new string }
	var pairs []pair
	var encoded []hit
	for _, r := range reps {
		found := false
		for i, f := range forms(r.secret) {
			if !strings.Contains(text, f) {
				continue
			}
			found = true
			breaks := strings.Repeat("\n", strings.Count(r.secret, "\n"))
			if i > 0 {
				breaks = strings.Repeat(`\n`, strings.Count(r.secret, "\n"))
			}
			pairs = append(pairs, pair{f, Mark(r.rule, r.secret) + breaks})
		}
		if !found {
			encoded = append(encoded, r)
		}
	}
	if len(pairs) > 0 {
		// Longer secrets first: the replacer tries its pairs in order at
		// each position, and a secret may contain another.
		slices.SortStableFunc(pairs, func(a, b pair) int { return len(b.old) - len(a.old) })
		args := make([]string, 0, 2*len(pairs))
		for _, p := range pairs {
			args = append(args, p.old, p.new)
		}
		text = strings.NewReplacer(args...).Replace(text)
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
