package execlog

import (
	"bytes"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// stringReader yields the decoded contents of a raw, already validated
// JSON string token without materialising them: runs without escapes are
// handed out straight from the input.
type stringReader struct {
	raw     []byte // between the quotes
	pending []byte // decoded bytes of an escape not yet returned
	scratch [8]byte
}

func newStringReader(quoted []byte) *stringReader {
	return &stringReader{raw: quoted[1 : len(quoted)-1]}
}

// plain returns the string's bytes when it has no escapes.
func plain(quoted []byte) ([]byte, bool) {
	inner := quoted[1 : len(quoted)-1]
	return inner, bytes.IndexByte(inner, '\\') < 0
}

func (r *stringReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.pending) > 0 {
			c := copy(p[n:], r.pending)
			r.pending = r.pending[c:]
			n += c
			continue
		}
		if len(r.raw) == 0 {
			break
		}
		// Look for an escape only as far as p has room: searching the
		// whole rest of the string on every Read made a long string
		// without escapes (base64) quadratic to read.
		i := bytes.IndexByte(r.raw[:min(len(r.raw), len(p)-n)], '\\')
		if i != 0 {
			if i < 0 {
				i = min(len(r.raw), len(p)-n)
			}
			c := copy(p[n:], r.raw[:i])
			r.raw = r.raw[c:]
			n += c
			continue
		}
		r.pending = r.unescape()
	}
	if n == 0 && len(r.raw) == 0 && len(r.pending) == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// unescape decodes the escape sequence at the start of r.raw.
func (r *stringReader) unescape() []byte {
	c := r.raw[1]
	r.raw = r.raw[2:]
	switch c {
	case 'b':
		return []byte{'\b'}
	case 'f':
		return []byte{'\f'}
	case 'n':
		return []byte{'\n'}
	case 'r':
		return []byte{'\r'}
	case 't':
		return []byte{'\t'}
	case 'u':
		v := hex4(r.raw)
		r.raw = r.raw[4:]
		if utf16.IsSurrogate(v) && len(r.raw) >= 6 && r.raw[0] == '\\' && r.raw[1] == 'u' {
			if lo := hex4(r.raw[2:]); utf16.DecodeRune(v, lo) != utf8.RuneError {
				r.raw = r.raw[6:]
				v = utf16.DecodeRune(v, lo)
			}
		}
		if utf16.IsSurrogate(v) {
			v = utf8.RuneError
		}
		n := utf8.EncodeRune(r.scratch[:], v)
		return r.scratch[:n]
	}
	return []byte{c} // '"', '\\', '/'
}

func hex4(b []byte) rune {
	var v rune
	for _, c := range b[:4] {
		v <<= 4
		switch {
		case '0' <= c && c <= '9':
			v |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			v |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			v |= rune(c - 'A' + 10)
		}
	}
	return v
}

// decodeString returns the decoded contents of a raw JSON string token.
func decodeString(quoted []byte) string {
	if b, ok := plain(quoted); ok {
		return string(b)
	}
	var buf bytes.Buffer
	buf.Grow(len(quoted))
	buf.ReadFrom(newStringReader(quoted))
	return buf.String()
}
