package kernelpack

import (
	"strings"
	"unicode/utf8"
)

// JavaScript strings are sequences of UTF-16 code units and may hold lone
// surrogates (JSON.parse("\"\\ud800\"") is a valid string). Go strings here
// hold them as WTF-8: UTF-8, except that a lone surrogate is encoded like any
// other BMP code point (ED A0..BF xx). Strings made by decodeText and the
// parser are always in this form, with surrogate pairs combined, so a string
// equals another exactly when the JavaScript strings are equal.

// decodeRune decodes one code point of WTF-8, lone surrogates included.
func decodeRune(s string) (rune, int) {
	if len(s) >= 3 && s[0] == 0xED && s[1] >= 0xA0 && s[1] <= 0xBF && s[2] >= 0x80 && s[2] <= 0xBF {
		return rune(0xD000) | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), 3
	}
	return utf8.DecodeRuneInString(s)
}

// appendUnit appends one UTF-16 code unit as WTF-8. A low surrogate that
// follows a high surrogate joins it into one supplementary code point, as it
// would in a JavaScript string.
func appendUnit(b []byte, u uint16) []byte {
	if u >= 0xDC00 && u <= 0xDFFF && len(b) >= 3 {
		t := b[len(b)-3:]
		if t[0] == 0xED && t[1] >= 0xA0 && t[1] <= 0xAF {
			hi := 0xD000 | rune(t[1]&0x3F)<<6 | rune(t[2]&0x3F)
			cp := 0x10000 + (hi-0xD800)<<10 + rune(u-0xDC00)
			return utf8.AppendRune(b[:len(b)-3], cp)
		}
	}
	if u >= 0xD800 && u <= 0xDFFF {
		return append(b, 0xED, byte(0x80|(u>>6)&0x3F), byte(0x80|u&0x3F))
	}
	return utf8.AppendRune(b, rune(u))
}

// normalize joins surrogate halves that became adjacent by concatenation.
func normalize(s string) string {
	if !strings.Contains(s, "\xED") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, n := decodeRune(s[i:])
		if r >= 0xD800 && r <= 0xDFFF {
			b = appendUnit(b, uint16(r))
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// unitIter yields the UTF-16 code units of a WTF-8 string.
type unitIter struct {
	s       string
	pending uint16 // a low surrogate still to yield, or 0
}

func (it *unitIter) next() (uint16, bool) {
	if it.pending != 0 {
		u := it.pending
		it.pending = 0
		return u, true
	}
	if it.s == "" {
		return 0, false
	}
	r, n := decodeRune(it.s)
	it.s = it.s[n:]
	if r >= 0x10000 {
		r -= 0x10000
		it.pending = uint16(0xDC00 + r&0x3FF)
		return uint16(0xD800 + r>>10), true
	}
	return uint16(r), true
}

// compareUTF16 orders strings by UTF-16 code units, as JavaScript's < and
// Array.prototype.sort do. It differs from byte order for code points above
// U+FFFF, which sort before U+E000..U+FFFF.
func compareUTF16(a, b string) int {
	if isASCII(a) && isASCII(b) {
		return strings.Compare(a, b)
	}
	ia, ib := unitIter{s: a}, unitIter{s: b}
	for {
		ua, oka := ia.next()
		ub, okb := ib.next()
		switch {
		case !oka && !okb:
			return 0
		case !oka:
			return -1
		case !okb:
			return 1
		case ua != ub:
			if ua < ub {
				return -1
			}
			return 1
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// utf8Bytes encodes a string as Node's Buffer.from(s, "utf-8") does: a lone
// surrogate becomes U+FFFD. The length never changes (both take 3 bytes).
func utf8Bytes(s string) []byte {
	b := []byte(s)
	if !strings.Contains(s, "\xED") {
		return b
	}
	for i := 0; i+2 < len(b); i++ {
		if b[i] == 0xED && b[i+1] >= 0xA0 && b[i+1] <= 0xBF {
			b[i], b[i+1], b[i+2] = 0xEF, 0xBF, 0xBD
			i += 2
		}
	}
	return b
}

// decodeText turns file bytes into a string the way Node's
// readFileSync(path, "utf-8") does (the WHATWG UTF-8 decoder): every maximal
// ill-formed subsequence becomes one U+FFFD, and a byte order mark is kept.
func decodeText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || n > 1 {
			out = append(out, b[i:i+n]...)
			i += n
			continue
		}
		i += illFormedLen(b[i:])
		out = append(out, "\uFFFD"...)
	}
	return string(out)
}

// illFormedLen is the length of the maximal subpart of an ill-formed UTF-8
// sequence at the start of b (at least 1).
func illFormedLen(b []byte) int {
	lo, hi := byte(0x80), byte(0xBF)
	need := 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1
	}
	n := 1
	for ; n <= need && n < len(b); n++ {
		if b[n] < lo || b[n] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return n
}

// isJSSpace reports whether r is WhiteSpace or LineTerminator, the set that
// String.prototype.trim removes.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// jsTrim is String.prototype.trim.
func jsTrim(s string) string {
	for s != "" {
		r, n := decodeRune(s)
		if !isJSSpace(r) {
			break
		}
		s = s[n:]
	}
	for s != "" {
		r, n := lastRune(s)
		if !isJSSpace(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

func lastRune(s string) (rune, int) {
	if len(s) >= 3 {
		if r, n := decodeRune(s[len(s)-3:]); n == 3 && r >= 0xD800 && r <= 0xDFFF {
			return r, 3
		}
	}
	return utf8.DecodeLastRuneInString(s)
}
