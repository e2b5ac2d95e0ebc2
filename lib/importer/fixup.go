package importer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/execlog"
)

const attachmentScheme = "attachment://"

// What the builder does to values on their way into the log: an Inspect
// attachment:// reference (a whole string) becomes the attachment, and a
// number canonical JSON cannot carry exactly (an integer beyond 2^53, a
// number beyond float64) becomes a string holding its digits. Nothing else
// is rewritten; path-valued parameters are made relative in paths.go.

// text returns the content of a recorded text.
func (b *Builder) text(s string) *execlog.Content {
	a := b.attachment(s)
	if a == s {
		if c := b.memo.text(s); c != nil {
			return c
		}
	}
	return execlog.Text(a)
}

// quoted returns the content of a text the input gives as the JSON string
// literal lit, kept as it is (not decoded) unless it is an attachment.
func (b *Builder) quoted(lit string) *execlog.Content {
	if len(b.attachments) > 0 && strings.HasPrefix(lit, `"`+attachmentScheme) {
		if s, err := jsontext.AppendUnquote(nil, lit); err == nil {
			if a, ok := b.attachments[string(s[len(attachmentScheme):])]; ok {
				return execlog.Text(a)
			}
		}
	}
	if c := b.memo.content(lit); c != nil {
		return c
	}
	return execlog.Quoted([]byte(lit))
}

// attachment returns the attachment s refers to, or s.
func (b *Builder) attachment(s string) string {
	if len(b.attachments) > 0 && strings.HasPrefix(s, attachmentScheme) {
		if a, ok := b.attachments[s[len(attachmentScheme):]]; ok {
			return a
		}
	}
	return s
}

// portable returns the JSON value v with attachments resolved and numbers
// canonical JSON cannot carry made strings; v itself when nothing needs
// it, as for almost every value. v is valid JSON from the input, so a byte
// scanner that skips strings finds every string and number token; only
// tokens that may need a rewrite are decoded. (Re-encoding every such
// value with jsontext instead cost a third more allocations in
// BenchmarkClaudeCode50MB, whose metadata often holds long digit runs.)
func (b *Builder) portable(v json.RawMessage) jsontext.Value {
	attach := len(b.attachments) > 0 && bytes.Contains(v, []byte(attachmentScheme))
	if !attach && !bigNumbers(v) {
		return jsontext.Value(v)
	}
	var out []byte
	last := 0
	replace := func(i, end int, with []byte) {
		out = append(out, v[last:i]...)
		out = append(out, with...)
		last = end
	}
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case c == '"':
			end := stringEnd(v, i)
			if lit := v[i:end]; attach && bytes.HasPrefix(lit, []byte(`"`+attachmentScheme)) {
				if s, err := jsontext.AppendUnquote(nil, lit); err == nil {
					if a := b.attachment(string(s)); a != string(s) {
						replace(i, end, appendQuote(nil, a))
					}
				}
			}
			i = end
		case c == '-' || c >= '0' && c <= '9':
			end := i + 1
			for end < len(v) && strings.IndexByte("0123456789.eE+-", v[end]) >= 0 {
				end++
			}
			if lit := string(v[i:end]); (end-i >= 16 || strings.ContainsAny(lit, "eE")) && !exactNumber(lit) {
				replace(i, end, appendQuote(nil, lit))
			}
			i = end
		default:
			i++
		}
	}
	if out == nil {
		return jsontext.Value(v)
	}
	return jsontext.Value(append(out, v[last:]...))
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

// bigNumbers reports whether doc may hold a number canonical JSON cannot
// carry: a run of 16 or more digits, or an exponent of 3 digits after a
// digit (bigNumbersIn, which it gives the same answer as).
//
// It reads doc a word of eight bytes at a time, and bigNumbersIn reads
// only the bytes around a word where either may be: one all of whose
// bytes are digits (a run of 16 fills at least one aligned word), or
// that holds an e or E after a digit. Metadata with long base64 strings,
// where digits are every few bytes, is read as fast as any text.
func bigNumbers(doc []byte) bool {
	const lo, hi, low7 = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	around := func(i int) bool {
		// The 8 bytes before the word and after it hold enough of any
		// run through it (the first word of a run of 16 digits starts at
		// most 7 bytes into it, and 8 more make 16), and the digit before
		// an e in it and the exponent it begins.
		return bigNumbersIn(doc[max(0, i-8):min(len(doc), i+16)])
	}
	var lastDigit uint64 // the previous word's last byte is a digit: its flag, moved to the first byte
	i := 0
	for ; i+8 <= len(doc); i += 8 {
		w := binary.LittleEndian.Uint64(doc[i:])
		// A flag for each byte that is a digit, and for each that is e
		// or E: zero once ORed with 0x20 and XORed with 'e' (adding 0x7f
		// to the low bits sets the top bit of all other bytes, with no
		// carry into the next).
		digits := digitFlags(w)
		x := (w | 0x20*lo) ^ 'e'*lo
		es := ^((x&low7 + low7) | x) & hi
		if digits == hi || es&(digits<<8|lastDigit) != 0 {
			if around(i) {
				return true
			}
		}
		lastDigit = digits >> 56
	}
	if i < len(doc) {
		return around(i)
	}
	return false
}

// bigNumbersIn is bigNumbers read byte by byte from each digit found.
func bigNumbersIn(doc []byte) bool {
	for i := 0; i < len(doc); {
		// Skip to the next digit: most of a document is not.
		if i = nextDigit(doc, i); i < 0 {
			return false
		}
		start := i
		for i < len(doc) && doc[i] >= '0' && doc[i] <= '9' {
			i++
		}
		if i-start >= 16 {
			return true
		}
		if i < len(doc) && (doc[i] == 'e' || doc[i] == 'E') {
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

// nextDigit returns the index of the first ASCII digit of doc at or after
// i, or -1: eight bytes at a time (digits, a flag for each byte, computed
// in one word), since long runs of text without one are the rule.
func nextDigit(doc []byte, i int) int {
	for ; i+8 <= len(doc); i += 8 {
		if m := digitFlags(binary.LittleEndian.Uint64(doc[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(doc); i++ {
		if doc[i] >= '0' && doc[i] <= '9' {
			return i
		}
	}
	return -1
}

// digitFlags returns the top bit of each byte of w (little-endian) that
// is an ASCII digit. Each byte has its top bit set before the
// subtractions, so that none borrows from the next: a byte's top bit then
// says whether its low seven bits are at least '0', and at least ':'.
func digitFlags(w uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	return ((w | hi) - '0'*lo) &^ ((w | hi) - ':'*lo) &^ w & hi
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
