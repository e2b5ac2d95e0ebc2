package kernelpack

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// CanonicalizeError reports a value the kernel's canonicalize() throws on: a
// number that parsed to ±Infinity (such as 1e400).
type CanonicalizeError struct {
	Path string // JSONPath-like location, "$" for the top level
	Msg  string
}

// Error renders the error as "<path>: <problem>".
func (e *CanonicalizeError) Error() string { return e.Path + ": " + e.Msg }

// canonicalHash is the kernel's canonicalHash(value).
func canonicalHash(v value) (string, error) {
	s, err := canonicalize(v)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(utf8Bytes(s))
	h.Write([]byte{'\n'})
	return hex.EncodeToString(h.Sum(nil)), nil
}

// canonicalize is the kernel's canonicalize(value): keys sorted by UTF-16
// code units, JSON.stringify's string and number forms, no whitespace.
func canonicalize(v value) (string, error) {
	var b strings.Builder
	if err := writeCanonical(&b, v, stackBudget); err != nil {
		if ce, ok := err.(*CanonicalizeError); ok {
			ce.Path = "$" + ce.Path
		}
		return "", err
	}
	return b.String(), nil
}

// The kernel's canonicalize recurses, and V8 runs out of stack on deeply
// nested values: under Node 20 at 1,933 nested arrays or 4,331 nested
// objects. Each level spends part of a budget so that the pure cases match
// and mixed nesting falls in between; the exact limit of any Node version
// is not reproducible, but no real pack comes near it.
const (
	stackBudget = 1932 * 4330
	arrayCost   = 4330
	objectCost  = 1932
)

func writeCanonical(b *strings.Builder, v value, budget int) error {
	switch x := v.(type) {
	case nullValue:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return &CanonicalizeError{Msg: "number " + numberToString(x) + " cannot be canonicalized"}
		}
		b.WriteString(numberToString(x))
	case string:
		writeQuoted(b, x)
	case *array:
		if budget -= arrayCost; budget < 0 {
			return &CanonicalizeError{Msg: "nested too deeply (the kernel's canonicalize exceeds the maximum call stack size)"}
		}
		b.WriteByte('[')
		for i, e := range x.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonical(b, e, budget); err != nil {
				return prefixPath(err, "["+strconv.Itoa(i)+"]")
			}
		}
		b.WriteByte(']')
	case *object:
		if budget -= objectCost; budget < 0 {
			return &CanonicalizeError{Msg: "nested too deeply (the kernel's canonicalize exceeds the maximum call stack size)"}
		}
		keys := slices.Clone(x.keys)
		slices.SortFunc(keys, compareUTF16)
		b.WriteByte('{')
		first := true
		for _, k := range keys {
			e := x.props[k]
			if isUndefined(e) {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			writeQuoted(b, k)
			b.WriteByte(':')
			if err := writeCanonical(b, e, budget); err != nil {
				return prefixPath(err, "."+k)
			}
		}
		b.WriteByte('}')
	default:
		return &CanonicalizeError{Msg: typeOf(v) + " cannot be canonicalized"}
	}
	return nil
}

func prefixPath(err error, seg string) error {
	if ce, ok := err.(*CanonicalizeError); ok {
		ce.Path = seg + ce.Path
	}
	return err
}

// writeQuoted writes s as JSON.stringify does (the well-formed variant):
// only '"', '\\' and control characters are escaped, control characters
// other than \b \t \n \f \r as \u00xx, and lone surrogates as \udxxx.
// '<', '>', '&', U+2028, U+2029 and DEL are written as they are.
func writeQuoted(b *strings.Builder, s string) {
	const hexDigits = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0xED {
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] != '"' && s[j] != '\\' && s[j] != 0xED {
				j++
			}
			b.WriteString(s[i:j])
			i = j
			continue
		}
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case 0xED:
			r, n := decodeRune(s[i:])
			if r >= 0xD800 && r <= 0xDFFF {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteString(s[i : i+n])
			}
			i += n
			continue
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xF])
		}
		i++
	}
	b.WriteByte('"')
}
