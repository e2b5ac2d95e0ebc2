package kernelpack

import (
	"fmt"
	"math"
	"strconv"
)

// SyntaxError reports JSON text that JSON.parse would reject. The kernel's
// messages come from its JavaScript engine; this is our own wording, with the
// file, line and column of the problem.
type SyntaxError struct {
	File   string // file name inside the pack, or "" when parsing bare text
	Line   int    // 1-based
	Column int    // 1-based, in characters
	Msg    string
}

// Error renders the error as "<file>: line L, column C: <problem>".
func (e *SyntaxError) Error() string {
	loc := fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	if e.File == "" {
		return loc
	}
	return e.File + ": " + loc
}

// parseText parses JSON text as JSON.parse does: RFC 8259 grammar (no BOM, no
// comments), duplicate object keys keep the last value, numbers become
// float64 (1e400 is +Inf, big integers round), and \u escapes may leave lone
// surrogates.
func parseText(s string) (value, error) {
	p := &parser{s: s}
	p.skipSpace()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i < len(p.s) {
		return nil, p.errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// parseBytes decodes file bytes as UTF-8 (as Node does) and parses them.
func parseBytes(b []byte) (value, error) { return parseText(decodeText(b)) }

type parser struct {
	s string
	i int
}

func (p *parser) errorf(format string, args ...any) error {
	line, col := 1, 1
	for j := 0; j < p.i && j < len(p.s); {
		r, n := decodeRune(p.s[j:])
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		j += n
	}
	return &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// unexpected reports the character at the current position.
func (p *parser) unexpected(what string) error {
	if p.i >= len(p.s) {
		return p.errorf("unexpected end of input, %s", what)
	}
	r, _ := decodeRune(p.s[p.i:])
	return p.errorf("unexpected %s, %s", describe(r), what)
}

func describe(r rune) string {
	if r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || (r >= 0xD800 && r <= 0xDFFF) || r == 0xFEFF || r == 0x2028 || r == 0x2029 {
		return fmt.Sprintf("character U+%04X", r)
	}
	return "character '" + string(r) + "'"
}

func (p *parser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// container is an array or object being filled, and for an object the key
// whose value comes next.
type container struct {
	arr *array
	obj *object
	key string
}

// value parses one JSON value. It keeps its own stack instead of recursing,
// since JSON.parse accepts any depth and a pack file may nest a million
// levels.
func (p *parser) value() (value, error) {
	var stack []*container
	for {
		var v value
		if p.i >= len(p.s) {
			return nil, p.unexpected("expected a JSON value")
		}
		switch c := p.s[p.i]; {
		case c == '{':
			p.i++
			p.skipSpace()
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				v = newObject()
				break
			}
			k, err := p.key()
			if err != nil {
				return nil, err
			}
			stack = append(stack, &container{obj: newObject(), key: k})
			continue
		case c == '[':
			p.i++
			p.skipSpace()
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				v = &array{}
				break
			}
			stack = append(stack, &container{arr: &array{}})
			continue
		case c == '"':
			s, err := p.str()
			if err != nil {
				return nil, err
			}
			v = s
		case c == '-' || (c >= '0' && c <= '9'):
			n, err := p.number()
			if err != nil {
				return nil, err
			}
			v = n
		case c == 't':
			if err := p.literal("true"); err != nil {
				return nil, err
			}
			v = true
		case c == 'f':
			if err := p.literal("false"); err != nil {
				return nil, err
			}
			v = false
		case c == 'n':
			if err := p.literal("null"); err != nil {
				return nil, err
			}
			v = null
		default:
			return nil, p.unexpected("expected a JSON value")
		}

		// v is complete: add it to the open containers, closing those that end.
		for {
			if len(stack) == 0 {
				return v, nil
			}
			top := stack[len(stack)-1]
			if top.arr != nil {
				top.arr.elems = append(top.arr.elems, v)
			} else {
				top.obj.set(top.key, v)
			}
			p.skipSpace()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				p.skipSpace()
				if top.obj != nil {
					k, err := p.key()
					if err != nil {
						return nil, err
					}
					top.key = k
				}
				break
			}
			if top.arr != nil {
				if p.i < len(p.s) && p.s[p.i] == ']' {
					p.i++
					stack, v = stack[:len(stack)-1], top.arr
					continue
				}
				return nil, p.unexpected("expected ',' or ']' in an array")
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				stack, v = stack[:len(stack)-1], top.obj
				continue
			}
			return nil, p.unexpected("expected ',' or '}' in an object")
		}
	}
}

// key parses a property name and the colon after it, leaving the parser at
// the start of the value.
func (p *parser) key() (string, error) {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", p.unexpected("expected a property name in double quotes")
	}
	k, err := p.str()
	if err != nil {
		return "", err
	}
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != ':' {
		return "", p.unexpected("expected ':' after a property name")
	}
	p.i++
	p.skipSpace()
	return k, nil
}

func (p *parser) literal(word string) error {
	for j := 0; j < len(word); j++ {
		if p.i >= len(p.s) || p.s[p.i] != word[j] {
			return p.unexpected(fmt.Sprintf("expected %q", word))
		}
		p.i++
	}
	return nil
}

func (p *parser) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	// Fast path: no escapes.
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '"' {
			s := p.s[start:p.i]
			p.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.i++
	}
	b := []byte(p.s[start:p.i])
	for {
		if p.i >= len(p.s) {
			return "", p.errorf("unexpected end of input in a string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), nil
		case c < 0x20:
			return "", p.errorf("control character U+%04X in a string (it must be escaped)", c)
		case c != '\\':
			// Copy the run up to the next quote, backslash or control
			// character; the bytes of multi-byte characters are all >= 0x80.
			j := p.i + 1
			for j < len(p.s) && p.s[j] >= 0x20 && p.s[j] != '"' && p.s[j] != '\\' {
				j++
			}
			b = append(b, p.s[p.i:j]...)
			p.i = j
			continue
		}
		p.i++ // backslash
		if p.i >= len(p.s) {
			return "", p.errorf("unexpected end of input in a string")
		}
		e := p.s[p.i]
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			if p.i+5 > len(p.s) {
				return "", p.errorf("incomplete \\u escape in a string")
			}
			u, err := strconv.ParseUint(p.s[p.i+1:p.i+5], 16, 16)
			if err != nil || !isHex4(p.s[p.i+1:p.i+5]) {
				return "", p.errorf("invalid \\u escape in a string")
			}
			b = appendUnit(b, uint16(u))
			p.i += 4
		default:
			r, _ := decodeRune(p.s[p.i:])
			return "", p.errorf("invalid escape '\\%s' in a string", string(r))
		}
		p.i++
	}
}

func isHex4(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func (p *parser) number() (float64, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i >= len(p.s) || p.s[p.i] < '0' || p.s[p.i] > '9' {
		return 0, p.unexpected("expected a digit")
	}
	if p.s[p.i] == '0' {
		p.i++
	} else {
		p.digits()
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if p.i >= len(p.s) || p.s[p.i] < '0' || p.s[p.i] > '9' {
			return 0, p.unexpected("expected a digit after the decimal point")
		}
		p.digits()
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if p.i >= len(p.s) || p.s[p.i] < '0' || p.s[p.i] > '9' {
			return 0, p.unexpected("expected a digit in the exponent")
		}
		p.digits()
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, p.errorf("invalid number %s", p.s[start:p.i])
	}
	return f, nil
}

func (p *parser) digits() {
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
}
