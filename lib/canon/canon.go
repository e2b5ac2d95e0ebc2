// Package canon produces RFC 8785 (JCS) canonical JSON, the only form in
// which ctx hashes or prints JSON.
//
// It wraps jsontext's Value.Canonicalize and adds what that leaves to the
// caller: the input is copied (Canonicalize works in place), and numbers that
// canonical JSON cannot carry exactly — values beyond 2^53 that would change
// (9007199254740993, 9007199254740993.0), numbers outside the float64 range
// and non-zero numbers that would become 0 (1e-400) — are rejected with
// their JSON path instead of being rounded or clamped. Invalid UTF-8, duplicate object names and
// malformed JSON are rejected by jsontext itself.
//
// Writer is the one hand-written canonical writer, for documents written
// member by member (a manifest, a drift report): it refuses what
// Canonicalize would, invalid UTF-8 included, with the JSON path.
// AppendString quotes one string for writers that build lines by hand.
package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// MaxSafeInteger is 2^53, the largest magnitude up to which every integer
// has an exact float64 (and so JCS) representation.
const MaxSafeInteger = 1 << 53

// Error describes JSON that cannot be canonicalised.
type Error struct {
	Path   Path  // where the problem is
	Offset int64 // byte offset into the input, or -1 if unknown
	Line   int   // 1-based line, or 0 if unknown
	Column int   // 1-based column in bytes, or 0 if unknown
	Msg    string
}

func (e *Error) Error() string {
	loc := ""
	if e.Line > 0 {
		loc = fmt.Sprintf("line %d, column %d", e.Line, e.Column)
	}
	switch {
	case len(e.Path) > 0 && loc != "":
		return fmt.Sprintf("%s (%s): %s", e.Path, loc, e.Msg)
	case len(e.Path) > 0:
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	case loc != "":
		return fmt.Sprintf("%s: %s", loc, e.Msg)
	}
	return e.Msg
}

// Canonicalize returns the canonical form of the JSON value in. It never
// modifies in.
func Canonicalize(in []byte) ([]byte, error) {
	if out, ok := reorder(in); ok {
		return out, nil
	}
	return canonicalize(in)
}

// canonicalize is Canonicalize without its fast path: the definition.
func canonicalize(in []byte) ([]byte, error) {
	if err := Check(in); err != nil {
		return nil, err
	}
	v := jsontext.Value(bytes.Clone(in))
	if err := v.Canonicalize(); err != nil {
		return nil, syntaxError(in, err)
	}
	return v, nil
}

// Marshal encodes v with encoding/json and returns its canonical form.
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Canonicalize(b)
}

// Indent returns a copy of canonical JSON indented by two spaces, for reading
// on a terminal. Member order and values are unchanged.
func Indent(in []byte) []byte {
	v := jsontext.Value(bytes.Clone(in))
	if err := v.Indent(jsontext.WithIndent("  ")); err != nil {
		return bytes.Clone(in)
	}
	return v
}

// Check reports whether in is exactly one well-formed JSON value that
// canonical JSON can carry without change: valid UTF-8, no duplicate
// object names, no number outside the float64 range, no non-zero number
// that would become 0, and no number beyond ±2^53 whose value
// canonicalisation would change (9007199254740993.0 as well as
// 9007199254740993).
func Check(in []byte) error {
	dec := jsontext.NewDecoder(bytes.NewBuffer(in))
	var path Path
	// Each open container keeps whether it is an object and, for an object,
	// whether the next string token is a name.
	type frame struct {
		object bool
		isName bool
		index  int
	}
	var stack []frame
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			if err == io.EOF && len(stack) == 0 {
				return nil
			}
			return syntaxError(in, err)
		}
		kind := tok.Kind()
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			if top.object && top.isName && kind == '"' {
				path = append(path[:len(stack)-1], tok.String())
				top.isName = false
				continue
			}
			if !top.object && kind != ']' {
				path = append(path[:len(stack)-1], top.index)
				top.index++
			}
		}
		switch kind {
		case '{', '[':
			stack = append(stack, frame{object: kind == '{', isName: kind == '{'})
		case '}', ']':
			stack = stack[:len(stack)-1]
			path = path[:len(stack)]
		case '0':
			if err := checkNumber(tok.String()); err != nil {
				start := dec.InputOffset() - int64(len(tok.String()))
				return newError(in, start, path[:len(stack)].clone(), err.Error())
			}
		}
		if n := len(stack); n > 0 && kind != '{' && kind != '[' {
			if top := &stack[n-1]; top.object {
				top.isName = true
			}
		}
		if len(stack) == 0 && kind != '{' && kind != '[' {
			// A top-level value is complete; anything after it is an error.
			if _, err := dec.ReadToken(); err != io.EOF {
				if err == nil {
					return newError(in, dec.InputOffset(), nil, "unexpected data after the top-level value")
				}
				return syntaxError(in, err)
			}
			return nil
		}
	}
}

// checkNumber rejects a number literal that has no exact canonical form:
// outside the float64 range, a non-zero value that would become 0, and a
// magnitude beyond 2^53 (where float64 has no fractional digits left) whose
// canonical form is another number. Below 2^53 a fraction is a float64
// like any other: 0.1 is 0.1.
func checkNumber(lit string) error {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return fmt.Errorf("number %s is outside the float64 range", lit)
	}
	if f == 0 {
		if _, digits, _ := decimal(lit); digits != "" {
			return fmt.Errorf("number %s is too small for float64: it would change to 0 in canonical JSON (write it as a string)", lit)
		}
		return nil
	}
	if math.Abs(f) < MaxSafeInteger {
		return nil
	}
	c := string(jsontext.AppendFloat(nil, f, 64))
	if c == lit {
		return nil
	}
	if isIntegerLiteral(lit) {
		// Beyond 2^53 an integer survives only if its canonical form is
		// the same digits (1e20 does; 2^53+1 and 2^60 do not).
		return fmt.Errorf("integer %s is beyond 2^53 and would change to %s in canonical JSON (write it as a string)", lit, c)
	}
	// A fraction or exponent is the float64 it rounds to when it gives
	// that float64's digits at its own precision (-3.3333333333333331e+20
	// does); 9007199254740993.0 names an integer float64 cannot hold.
	neg, digits, exp := decimal(lit)
	fneg, fdigits, fexp := decimal(strconv.FormatFloat(f, 'e', len(digits)-1, 64))
	if neg == fneg && digits == fdigits && exp == fexp {
		return nil
	}
	return fmt.Errorf("number %s is beyond 2^53 and would change to %s in canonical JSON (write it as a string)", lit, c)
}

// decimal splits a JSON number literal into sign, significant digits
// (without leading or trailing zeros; "" for zero) and the exponent of the
// last digit, so that equal values give equal parts whatever their
// notation. An exponent too large for an int is clamped: such literals are
// outside the float64 range or zero, and only zero-ness is asked of them.
func decimal(lit string) (neg bool, digits string, exp int) {
	if lit != "" && lit[0] == '-' {
		neg, lit = true, lit[1:]
	}
	mant, e, _ := strings.Cut(strings.ToLower(lit), "e")
	if e != "" {
		n, err := strconv.Atoi(e)
		if err != nil {
			n = math.MaxInt32
			if e[0] == '-' {
				n = math.MinInt32
			}
		}
		exp = n
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	exp -= len(frac)
	all = strings.TrimLeft(all, "0")
	trimmed := strings.TrimRight(all, "0")
	exp += len(all) - len(trimmed)
	if trimmed == "" {
		return false, "", 0
	}
	return neg, trimmed, exp
}

func syntaxError(in []byte, err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		var p Path
		if se.JSONPointer != "" {
			p = PathFromPointer(string(se.JSONPointer))
		}
		msg := err.Error()
		if se.Err != nil {
			msg = se.Err.Error()
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "unexpected end of JSON input"
		}
		return newError(in, se.ByteOffset, p, msg)
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return newError(in, int64(len(in)), nil, "unexpected end of JSON input")
	}
	return &Error{Offset: -1, Msg: err.Error()}
}

func newError(in []byte, off int64, p Path, msg string) *Error {
	e := &Error{Path: p, Offset: off, Msg: msg}
	if off >= 0 && off <= int64(len(in)) {
		e.Line = 1 + bytes.Count(in[:off], []byte{'\n'})
		e.Column = int(off) - bytes.LastIndexByte(in[:off], '\n')
	}
	return e
}

func isIntegerLiteral(lit string) bool {
	return !strings.ContainsAny(lit, ".eE")
}
