package canon

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// IsCanonical reports whether b is one JSON value exactly as Canonicalize
// gives it (and so accepts it): Canonicalize(b) would return b's bytes.
// It reads b once, copying and reordering nothing, which costs a fraction
// of canonicalising it: encoders that hold values canonicalised earlier
// (a parsed log's parameters and metadata) check them with it and copy
// them as they are. It answers false for values nested deeper than
// maxCheckDepth, canonical or not; never true for any other value.
func IsCanonical(b []byte) bool {
	s := isScanner{b: b}
	return s.value(0) && s.i == len(b)
}

// maxCheckDepth bounds IsCanonical's recursion.
const maxCheckDepth = 1000

type isScanner struct {
	b []byte
	i int
}

func (s *isScanner) value(depth int) bool {
	if s.i >= len(s.b) || depth > maxCheckDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth)
	case c == '[':
		return s.array(depth)
	case c == '"':
		_, ok := s.str()
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return false
}

func (s *isScanner) literal(lit string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return false
	}
	s.i += len(lit)
	return true
}

func (s *isScanner) object(depth int) bool {
	s.i++ // '{'
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	var prev []byte
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		name, ok := s.str()
		// Canonical names are in increasing order, so never twice.
		if !ok || prev != nil && !nameLess(prev, name) {
			return false
		}
		prev = name
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		if !s.value(depth + 1) {
			return false
		}
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *isScanner) array(depth int) bool {
	s.i++ // '['
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(depth+1) || s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string in canonical form: valid UTF-8, escaping only what
// RFC 8785 escapes, as AppendEscaped writes it. It returns the string's
// raw bytes between the quotes.
func (s *isScanner) str() ([]byte, bool) {
	s.i++ // '"'
	start := s.i
	for s.i < len(s.b) {
		// Most of a string is printable ASCII, copied as it is.
		for s.i < len(s.b) && printable[s.b[s.i]] {
			s.i++
		}
		if s.i >= len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c < 0x20:
			return nil, false
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return nil, false
			}
			switch s.b[s.i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				// Only the control characters without a short escape,
				// in lower case: \u0000 … \u001f.
				if s.i+6 > len(s.b) {
					return nil, false
				}
				u := s.b[s.i+2 : s.i+6]
				if u[0] != '0' || u[1] != '0' || !lowerHex(u[2]) || !lowerHex(u[3]) {
					return nil, false
				}
				v := hexVal(u[2])<<4 | hexVal(u[3])
				if v >= 0x20 || v == '\b' || v == '\f' || v == '\n' || v == '\r' || v == '\t' {
					return nil, false
				}
				s.i += 6
			default:
				return nil, false
			}
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n <= 1 {
				return nil, false
			}
			s.i += n
		}
	}
	return nil, false
}

// printable marks the bytes a canonical string holds as they are, in
// ASCII: not '"', '\\' nor a control character.
var printable = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func lowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

func hexVal(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

// number reads a number in canonical form: what ECMAScript prints for the
// float64 it is, and one that Check accepts.
func (s *isScanner) number() bool {
	start := s.i
	for s.i < len(s.b) && bytes.IndexByte([]byte("0123456789.eE+-"), s.b[s.i]) >= 0 {
		s.i++
	}
	lit := s.b[start:s.i]
	// Most numbers are small integers: no leading zero, no "-0", fewer
	// than 16 digits (below 2^53).
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if n := len(digits); n > 0 && n < 16 && (digits[0] != '0' || n == 1 && len(lit) == 1) {
		plain := true
		for _, c := range digits {
			if c < '0' || c > '9' {
				plain = false
				break
			}
		}
		if plain {
			return true
		}
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || math.IsInf(f, 0) || f == 0 || checkNumber(string(lit)) != nil {
		return false // zero is "0", which the fast path took
	}
	return bytes.Equal(jsontext.AppendFloat(nil, f, 64), lit)
}

// nameLess reports whether the member name a (raw, between the quotes)
// sorts before b in canonical order: by UTF-16 code units.
func nameLess(a, b []byte) bool {
	if ascii(a) && ascii(b) {
		return bytes.Compare(a, b) < 0
	}
	da, err1 := jsontext.AppendUnquote(nil, append(append([]byte{'"'}, a...), '"'))
	db, err2 := jsontext.AppendUnquote(nil, append(append([]byte{'"'}, b...), '"'))
	if err1 != nil || err2 != nil {
		return false
	}
	return compareUTF16(string(da), string(db)) < 0
}

// ascii reports whether raw name bytes are ASCII without escapes, whose
// byte order is their UTF-16 order.
func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf || c == '\\' {
			return false
		}
	}
	return true
}

// compareUTF16 compares a and b by their UTF-16 code units, the order of
// RFC 8785's member names. It differs from the order of code points only
// where a character beyond U+FFFF (two surrogates, 0xD800…) meets one of
// U+E000…U+FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := firstUnit(ra), firstUnit(rb)
			if ua == ub { // the same high surrogate: the low ones decide
				ua, ub = ra, rb
			}
			if ua < ub {
				return -1
			}
			return 1
		}
		a, b = a[na:], b[nb:]
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// reorder is Canonicalize's fast path, for JSON whose strings and numbers
// are in canonical form already and which differs from its canonical form
// only in whitespace and the order of object members (an importer's
// metadata, in the order the builder added it). It sorts members without
// decoding anything, and reports false for anything else: another
// escape, another form of a number, a duplicate name, malformed JSON;
// Canonicalize then does the whole work and gives the answer.
// FuzzReorder holds it to the full path.
func reorder(in []byte) ([]byte, bool) {
	r := reorderer{isScanner: isScanner{b: in}}
	out, ok := r.value(make([]byte, 0, len(in)), 0)
	r.space()
	return out, ok && r.i == len(in)
}

type reorderer struct {
	isScanner
	members []member // a stack: each object's members after its parents'
	scratch []byte
}

// member is a member written into the output: its name's bytes (between
// the quotes) and the whole "name":value, as offsets into the output.
type member struct{ name, start, end int }

func (r *reorderer) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *reorderer) value(dst []byte, depth int) ([]byte, bool) {
	r.space()
	if r.i >= len(r.b) || depth > maxCheckDepth {
		return dst, false
	}
	start := r.i
	switch r.b[r.i] {
	case '{':
		return r.object(dst, depth)
	case '[':
		r.i++
		dst = append(dst, '[')
		r.space()
		if r.i < len(r.b) && r.b[r.i] == ']' {
			r.i++
			return append(dst, ']'), true
		}
		for {
			var ok bool
			if dst, ok = r.value(dst, depth+1); !ok {
				return dst, false
			}
			r.space()
			if r.i >= len(r.b) {
				return dst, false
			}
			switch r.b[r.i] {
			case ',':
				r.i++
				dst = append(dst, ',')
			case ']':
				r.i++
				return append(dst, ']'), true
			default:
				return dst, false
			}
		}
	}
	if !r.isScanner.value(depth) { // a string, number or literal
		return dst, false
	}
	return append(dst, r.b[start:r.i]...), true
}

func (r *reorderer) object(dst []byte, depth int) ([]byte, bool) {
	r.i++ // '{'
	open := len(dst)
	dst = append(dst, '{')
	r.space()
	if r.i < len(r.b) && r.b[r.i] == '}' {
		r.i++
		return append(dst, '}'), true
	}
	base := len(r.members)
	defer func() { r.members = r.members[:base] }()
	sorted := true
	for {
		r.space()
		if r.i >= len(r.b) || r.b[r.i] != '"' {
			return dst, false
		}
		if len(r.members) > base {
			dst = append(dst, ',')
		}
		start := len(dst)
		nameStart := r.i
		if _, ok := r.str(); !ok {
			return dst, false
		}
		dst = append(dst, r.b[nameStart:r.i]...)
		m := member{name: start, start: start}
		r.space()
		if r.i >= len(r.b) || r.b[r.i] != ':' {
			return dst, false
		}
		r.i++
		dst = append(dst, ':')
		var ok bool
		if dst, ok = r.value(dst, depth+1); !ok {
			return dst, false
		}
		m.end = len(dst)
		if n := len(r.members); n > base && !nameLess(nameOf(dst, r.members[n-1]), nameOf(dst, m)) {
			sorted = false
		}
		r.members = append(r.members, m)
		r.space()
		if r.i >= len(r.b) {
			return dst, false
		}
		if r.b[r.i] == ',' {
			r.i++
			continue
		}
		if r.b[r.i] != '}' {
			return dst, false
		}
		r.i++
		break
	}
	if !sorted {
		ms := r.members[base:]
		r.scratch = append(r.scratch[:0], dst[open:]...)
		for k := range ms {
			ms[k].name, ms[k].start, ms[k].end = ms[k].name-open, ms[k].start-open, ms[k].end-open
		}
		slices.SortFunc(ms, func(a, b member) int {
			switch {
			case nameLess(nameOf(r.scratch, a), nameOf(r.scratch, b)):
				return -1
			case nameLess(nameOf(r.scratch, b), nameOf(r.scratch, a)):
				return 1
			}
			return 0
		})
		for k := 1; k < len(ms); k++ {
			if !nameLess(nameOf(r.scratch, ms[k-1]), nameOf(r.scratch, ms[k])) {
				return dst, false // a name twice: Canonicalize says so
			}
		}
		dst = dst[:open+1]
		for k, m := range ms {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, r.scratch[m.start:m.end]...)
		}
	}
	return append(dst, '}'), true
}

// nameOf returns the bytes of m's name between its quotes, in buf.
func nameOf(buf []byte, m member) []byte {
	end := m.name + 1
	for buf[end] != '"' {
		if buf[end] == '\\' {
			end++
		}
		end++
	}
	return buf[m.name+1 : end]
}
