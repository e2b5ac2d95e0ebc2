package importer

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

const attachmentScheme = "attachment://"

// fixup makes the encoded log canonicalisable, when it needs it at all:
// Inspect attachment:// references are replaced by their content, and
// numbers canonical JSON cannot carry exactly (integers beyond 2^53,
// numbers beyond float64) become strings holding their digits. doc is JSON
// this package wrote, so a byte scanner that skips strings finds every
// string and number token; only strings that may need a rewrite are
// decoded.
func (b *builder) fixup(doc []byte) []byte {
	rewrite := b.rewriteNeeded(doc)
	numbers := bigNumbers(doc)
	if !rewrite && !numbers {
		return doc
	}
	var out []byte
	last := 0
	replace := func(i, end int, with []byte) {
		if out == nil {
			out = make([]byte, 0, len(doc)+len(doc)/32)
		}
		out = append(out, doc[last:i]...)
		out = append(out, with...)
		last = end
	}
	for i := 0; i < len(doc); {
		switch c := doc[i]; {
		case c == '"':
			end := stringEnd(doc, i)
			if lit := doc[i:end]; rewrite && b.mayNeed(lit) {
				if nl := b.rewriteLit(nil, lit); !bytes.Equal(nl, lit) {
					replace(i, end, nl)
				}
			}
			i = end
		case c == '-' || c >= '0' && c <= '9':
			end := i + 1
			for end < len(doc) && strings.IndexByte("0123456789.eE+-", doc[end]) >= 0 {
				end++
			}
			if lit := string(doc[i:end]); numbers && (end-i >= 16 || strings.ContainsAny(lit, "eE")) {
				if !exactNumber(lit) {
					replace(i, end, appendQuote(nil, lit))
				}
			}
			i = end
		default:
			i++
		}
	}
	if out == nil {
		return doc
	}
	return append(out, doc[last:]...)
}

// stringEnd returns the index just past the JSON string starting at i.
func stringEnd(doc []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(doc[j:], '"')
		if k < 0 {
			return len(doc)
		}
		j += k
		// The quote ends the string unless an odd number of backslashes
		// escapes it.
		n := 0
		for p := j - 1; p > i && doc[p] == '\\'; p-- {
			n++
		}
		j++
		if n%2 == 0 {
			return j
		}
	}
}

// mayNeed reports whether the quoted string lit may hold something to
// rewrite (escapes may hide a path, so any escaped slash or \u counts).
func (b *builder) mayNeed(lit []byte) bool {
	return len(b.attachments) > 0 && bytes.Contains(lit, []byte(attachmentScheme))
}

func (b *builder) rewriteNeeded(doc []byte) bool {
	return len(b.attachments) > 0 && bytes.Contains(doc, []byte(attachmentScheme))
}

// rewriteLit appends the quoted string lit to dst with an attachment
// reference replaced by the attachment.
func (b *builder) rewriteLit(dst, lit []byte) []byte {
	if bytes.HasPrefix(lit, []byte(`"`+attachmentScheme)) {
		if s, err := jsontext.AppendUnquote(nil, lit); err == nil {
			if a, ok := b.attachments[string(s[len(attachmentScheme):])]; ok {
				lit = appendQuote(nil, a)
			}
		}
	}
	return append(dst, lit...)
}

// bigNumbers reports whether doc may hold a number canonical JSON cannot
// carry: a run of 16 or more digits, or an exponent of 3 digits.
func bigNumbers(doc []byte) bool {
	run := 0
	for i, c := range doc {
		if c >= '0' && c <= '9' {
			run++
			if run >= 16 {
				return true
			}
			continue
		}
		run = 0
		if (c == 'e' || c == 'E') && i > 0 && doc[i-1] >= '0' && doc[i-1] <= '9' {
			k := i + 1
			if k < len(doc) && (doc[k] == '+' || doc[k] == '-') {
				k++
			}
			n := 0
			for k < len(doc) && doc[k] >= '0' && doc[k] <= '9' {
				k++
				n++
			}
			if n >= 3 {
				return true
			}
		}
	}
	return false
}

// exactNumber reports whether canonical JSON carries the number literal lit
// unchanged in value, as lib/canon requires.
func exactNumber(lit string) bool {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return false
	}
	if strings.ContainsAny(lit, ".eE") {
		return true
	}
	digits := strings.TrimPrefix(lit, "-")
	if n, err := strconv.ParseUint(digits, 10, 64); err == nil && n <= 1<<53 {
		return true
	}
	return string(jsontext.AppendFloat(nil, f, 64)) == lit
}
