package canon

import "unicode/utf8"

// AppendString appends s as a JSON string in canonical form (RFC 8785
// §3.2.2.2): '"', '\\' and C0 controls escaped, with the short forms JSON
// has (\b \t \n \f \r) and \u00xx otherwise, every other character as it
// is. s must be valid UTF-8. Writers that build canonical JSON by hand
// (the log printer, the importers) quote with it, so that their output
// needs no second pass.
func AppendString[T ~string | ~[]byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	return append(AppendEscaped(dst, s), '"')
}

// AppendEscaped appends what AppendString writes between the quotes. As
// only ASCII bytes are escaped, s may be any piece of valid UTF-8 text,
// cut anywhere: escaping the pieces one by one gives the escaping of the
// whole, which is how large objects are streamed into canonical output.
func AppendEscaped[T ~string | ~[]byte](dst []byte, s T) []byte {
	const hexDigits = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	return append(dst, s[start:]...)
}

// ToValidUTF8 returns s with each byte that is not part of valid UTF-8
// replaced by U+FFFD, as encoding/json writes such a string: for writers
// that keep their output JSON while they refuse (Writer) or cannot
// refuse.
func ToValidUTF8(s string) string {
	var b []byte
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// Unescape returns the character the short JSON escape \e stands for: e
// is one of " \\ / b f n r t.
func Unescape(e byte) (c byte, ok bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}
