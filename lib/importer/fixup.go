package importer

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

const attachmentScheme = "attachment://"

// fixup makes the encoded log portable and canonicalisable, when it needs
// it at all: absolute paths under a recorded working directory become
// relative, Inspect attachment:// references are replaced by their content,
// and numbers canonical JSON cannot carry exactly (integers beyond 2^53,
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
	if len(b.attachments) > 0 && bytes.Contains(lit, []byte(attachmentScheme)) {
		return true
	}
	for _, r := range b.roots {
		if bytes.Contains(lit, b.rootLit(r)) || bytes.Contains(lit, []byte(`\/`)) || bytes.Contains(lit, []byte(`\u00`)) {
			return true
		}
	}
	return false
}

func (b *builder) rewriteNeeded(doc []byte) bool {
	if len(b.attachments) > 0 && bytes.Contains(doc, []byte(attachmentScheme)) {
		return true
	}
	for _, r := range b.roots {
		if bytes.Contains(doc, b.rootLit(r)) || bytes.Contains(doc, []byte(`\/`)) || bytes.Contains(doc, []byte(`\u00`)) {
			return true
		}
	}
	return false
}

// rewriteLit appends the quoted string lit to dst with the rewrites
// applied. Paths are made relative on the quoted form directly, so that
// long strings are not decoded and encoded again.
func (b *builder) rewriteLit(dst, lit []byte) []byte {
	if len(b.attachments) > 0 && bytes.HasPrefix(lit, []byte(`"`+attachmentScheme)) {
		if s, err := jsontext.AppendUnquote(nil, lit); err == nil {
			if a, ok := b.attachments[string(s[len(attachmentScheme):])]; ok {
				lit = appendQuote(nil, a)
			}
		}
	}
	if len(b.roots) > 0 && (bytes.Contains(lit, []byte(`\/`)) || bytes.Contains(lit, []byte(`\u00`))) {
		// Escapes that could spell a path differently: write the string
		// the way appendQuote does first.
		if s, err := jsontext.AppendUnquote(nil, lit); err == nil {
			lit = appendQuote(nil, string(s))
		}
	}
	for _, r := range b.roots {
		if !bytes.Contains(lit, b.rootLit(r)) {
			continue
		}
		lit = relativizeLit(nil, lit, r)
	}
	return append(dst, lit...)
}

// rootLit is root r as it appears inside a JSON string.
func (b *builder) rootLit(r string) []byte {
	if b.rootLits == nil {
		b.rootLits = map[string][]byte{}
	}
	l, ok := b.rootLits[r]
	if !ok {
		q := quote(r)
		l = q[1 : len(q)-1]
		b.rootLits[r] = l
	}
	return l
}

// relativize makes absolute paths under dir relative to it: "dir/a/b"
// becomes "a/b" and "dir" alone becomes ".". Only whole path components
// match: "dir2/x" and "/x/dir" are left alone.
func relativize(s, dir string) string {
	out, err := jsontext.AppendUnquote(nil, relativizeLit(nil, quote(s), dir))
	if err != nil {
		return s
	}
	return string(out)
}

// relativizeLit applies relativize to the JSON string literal lit (quotes
// included), appending the result to dst. Escape sequences count as the
// characters they stand for when deciding where a path component ends.
func relativizeLit(dst, lit []byte, dir string) []byte {
	sep := byte('/')
	if strings.IndexByte(dir, '/') < 0 {
		sep = '\\'
	}
	q := quote(dir)
	dirLit := q[1 : len(q)-1]
	pos := 0 // lit[:pos] is written
	from := 0
	for {
		k := bytes.Index(lit[from:], dirLit)
		if k < 0 {
			break
		}
		i := from + k
		j := i + len(dirLit)
		from = j
		if pathChar(litRuneBefore(lit, i)) {
			continue
		}
		next, n := litRuneAt(lit, j)
		switch {
		case next == rune(sep):
			// "dir/rest": drop "dir/"; "dir/" alone is ".".
			dst = append(dst, lit[pos:i]...)
			after, _ := litRuneAt(lit, j+n)
			if !pathChar(after) {
				dst = append(dst, '.') // "dir/ " or "dir//x"
			}
			pos = j + n
		case next == '.':
			// "dir." ending a sentence is dir; "dir.bak" is another name.
			if after, _ := litRuneAt(lit, j+n); pathChar(after) || after == rune(sep) {
				continue
			}
			fallthrough
		case !pathChar(next):
			dst = append(dst, lit[pos:i]...)
			dst = append(dst, '.')
			pos = j
		default:
			continue
		}
		from = pos
	}
	return append(dst, lit[pos:]...)
}

// litRuneAt decodes the character at lit[i] of a JSON string literal and
// its length there; the closing quote (or the end) is -1.
func litRuneAt(lit []byte, i int) (rune, int) {
	if i >= len(lit)-1 {
		return -1, 0
	}
	c := lit[i]
	if c != '\\' {
		if c < 0x80 {
			return rune(c), 1
		}
		r, n := utf8.DecodeRune(lit[i:])
		return r, n
	}
	if i+1 >= len(lit) {
		return -1, 0
	}
	switch e := lit[i+1]; e {
	case 'u':
		if i+6 <= len(lit) {
			if v, err := strconv.ParseUint(string(lit[i+2:i+6]), 16, 16); err == nil {
				return rune(v), 6
			}
		}
		return utf8.RuneError, 2
	case 'n':
		return '\n', 2
	case 't':
		return '\t', 2
	case 'r':
		return '\r', 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	default: // \" \\ \/
		return rune(e), 2
	}
}

// litRuneBefore decodes the character that ends just before lit[i]; the
// opening quote is -1.
func litRuneBefore(lit []byte, i int) rune {
	if i <= 1 {
		return -1
	}
	// An escape ending at i: \uXXXX or \c, with the backslash itself not
	// escaped.
	escaped := func(k int) bool {
		n := 0
		for p := k; p > 0 && lit[p] == '\\'; p-- {
			n++
		}
		return n%2 == 1
	}
	if i >= 7 && lit[i-5] == 'u' && escaped(i-6) {
		r, _ := litRuneAt(lit, i-6)
		return r
	}
	if i >= 3 && escaped(i-2) {
		r, _ := litRuneAt(lit, i-2)
		return r
	}
	r, _ := utf8.DecodeLastRune(lit[1:i])
	return r
}

// pathChar reports whether c can be part of a path component name.
func pathChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '-' || c == '~' || c >= 0x80 && c != utf8.RuneError
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
