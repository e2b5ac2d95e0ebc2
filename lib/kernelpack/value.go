package kernelpack

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// The kernel's verifiers are JavaScript and check values of any JSON type
// with JavaScript's loose operators ('>', template strings, property reads
// that throw on null). This file models the JSON-derived JavaScript values and
// those operators, so that the Go checks give the same answers, and throw in
// the same places, as the reference verifier.
//
// A value is one of:
//
//	undefinedValue  JavaScript undefined (a missing property)
//	nullValue       null
//	bool            true / false
//	float64         a Number (JSON.parse yields float64; -0 and ±Inf included)
//	string          a String, held as WTF-8 (see wtf8.go)
//	*array          an Array
//	*object         a plain Object
type value any

type undefinedValue struct{}

type nullValue struct{}

var (
	undefined value = undefinedValue{}
	null      value = nullValue{}
)

// array is a JavaScript Array made by JSON.parse.
type array struct{ elems []value }

// object is a plain JavaScript Object made by JSON.parse: own enumerable data
// properties only, in insertion order.
type object struct {
	keys  []string
	props map[string]value
}

func newObject() *object { return &object{props: map[string]value{}} }

// set adds or replaces a property; a replaced property keeps its position,
// as JSON.parse does with a duplicate key.
func (o *object) set(k string, v value) {
	if _, ok := o.props[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.props[k] = v
}

// jsError is an exception the reference verifier would throw (a TypeError
// from a property read on null, a failed conversion, …). It aborts the whole
// verification: the kernel's CLI prints no JSON and exits 2.
type jsError struct{ msg string }

func (e *jsError) Error() string { return e.msg }

func typeError(msg string) error { return &jsError{msg} }

// typeOf is JavaScript's typeof operator.
func typeOf(v value) string {
	switch v.(type) {
	case undefinedValue:
		return "undefined"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	}
	return "object" // null, arrays and objects
}

func isUndefined(v value) bool { _, ok := v.(undefinedValue); return ok }
func isNull(v value) bool      { _, ok := v.(nullValue); return ok }
func isNullish(v value) bool   { return isUndefined(v) || isNull(v) }

// isPlainObject is the kernel's isObject: non-null, typeof "object", not an array.
func isPlainObject(v value) bool { _, ok := v.(*object); return ok }

func isArray(v value) bool { _, ok := v.(*array); return ok }

// isObjectLike is `v !== null && typeof v === 'object'` (arrays included).
func isObjectLike(v value) bool { return isPlainObject(v) || isArray(v) }

// get is the property read v[key] for the non-index, non-prototype keys the
// verifiers use: it throws on null and undefined, and yields undefined for
// anything that is not a plain object carrying key as an own property.
func get(v value, key string) (value, error) {
	switch x := v.(type) {
	case undefinedValue:
		return nil, typeError("Cannot read properties of undefined (reading '" + key + "')")
	case nullValue:
		return nil, typeError("Cannot read properties of null (reading '" + key + "')")
	case *object:
		if p, ok := x.props[key]; ok {
			return p, nil
		}
	}
	return undefined, nil
}

// prop reads an own property of a plain object (undefined when absent).
func (o *object) prop(key string) value {
	if p, ok := o.props[key]; ok {
		return p
	}
	return undefined
}

// has is `key in v` for an object or array and the verifiers' field names
// (none of which is an array index or an inherited property).
func has(v value, key string) bool {
	if o, ok := v.(*object); ok {
		_, ok := o.props[key]
		return ok
	}
	return false
}

// truthy is JavaScript's ToBoolean.
func truthy(v value) bool {
	switch x := v.(type) {
	case undefinedValue, nullValue:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

// toPrimitive converts arrays and objects the way ToPrimitive does for the
// values JSON.parse makes: an array becomes its join(","), an object
// "[object Object]" — unless it has an own "toString" property, which, not
// being callable, leaves no conversion and throws.
func toPrimitive(v value) (value, error) {
	switch x := v.(type) {
	case *object:
		if _, ok := x.props["toString"]; ok {
			return nil, typeError("Cannot convert object to primitive value")
		}
		return "[object Object]", nil
	case *array:
		return joinDepth(x, ",", 1)
	}
	return v, nil
}

// maxJoinDepth is how deeply nested arrays V8 (Node 20) can turn into a
// string before Array.prototype.join overflows the stack and throws.
const maxJoinDepth = 3211

// join is Array.prototype.join: null and undefined elements become "".
func join(a *array, sep string) (string, error) { return joinDepth(a, sep, 1) }

func joinDepth(a *array, sep string, depth int) (string, error) {
	if depth > maxJoinDepth {
		return "", &jsError{"Maximum call stack size exceeded"}
	}
	var b strings.Builder
	for i, e := range a.elems {
		if i > 0 {
			b.WriteString(sep)
		}
		if isNullish(e) {
			continue
		}
		s, err := toStringDepth(e, depth)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// toString is JavaScript's ToString (as in a template literal `${v}`).
func toString(v value) (string, error) { return toStringDepth(v, 0) }

func toStringDepth(v value, depth int) (string, error) {
	var p value
	var err error
	if a, ok := v.(*array); ok {
		p, err = joinDepth(a, ",", depth+1)
	} else {
		p, err = toPrimitive(v)
	}
	if err != nil {
		return "", err
	}
	switch x := p.(type) {
	case undefinedValue:
		return "undefined", nil
	case nullValue:
		return "null", nil
	case bool:
		if x {
			return "true", nil
		}
		return "false", nil
	case float64:
		return numberToString(x), nil
	case string:
		return x, nil
	}
	panic("kernelpack: toString of unknown value")
}

// toNumber is JavaScript's ToNumber for a primitive.
func toNumber(p value) float64 {
	switch x := p.(type) {
	case undefinedValue:
		return math.NaN()
	case nullValue:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		return stringToNumber(x)
	}
	return math.NaN()
}

var decimalLiteral = regexp.MustCompile(`^[+-]?(?:Infinity|[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)$`)

// stringToNumber is StringToNumber: whitespace-trimmed decimal literals,
// Infinity, and unsigned 0x / 0o / 0b integers; anything else is NaN.
func stringToNumber(s string) float64 {
	s = jsTrim(s)
	if s == "" {
		return 0
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			n, ok := new(big.Int).SetString(s[2:], base)
			if !ok || strings.ContainsAny(s[2:], "_+-") {
				return math.NaN()
			}
			f, _ := new(big.Float).SetInt(n).Float64()
			return f
		}
	}
	if !decimalLiteral.MatchString(s) {
		return math.NaN()
	}
	switch strings.TrimLeft(s, "+-") {
	case "Infinity":
		if s[0] == '-' {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return math.NaN()
	}
	return f
}

// lessThan is the IsLessThan abstract operation behind a < b: strings compare
// by UTF-16 code units, everything else numerically (NaN compares false).
func lessThan(a, b value) (bool, error) {
	pa, err := toPrimitive(a)
	if err != nil {
		return false, err
	}
	pb, err := toPrimitive(b)
	if err != nil {
		return false, err
	}
	sa, aok := pa.(string)
	sb, bok := pb.(string)
	if aok && bok {
		return compareUTF16(sa, sb) < 0, nil
	}
	return toNumber(pa) < toNumber(pb), nil
}

// greaterThan is a > b.
func greaterThan(a, b value) (bool, error) {
	// a > b evaluates a before b, then asks whether b < a.
	pa, err := toPrimitive(a)
	if err != nil {
		return false, err
	}
	pb, err := toPrimitive(b)
	if err != nil {
		return false, err
	}
	return lessThan(pb, pa)
}

// strictEqual is a === b.
func strictEqual(a, b value) bool {
	switch x := a.(type) {
	case undefinedValue:
		return isUndefined(b)
	case nullValue:
		return isNull(b)
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case *array:
		y, ok := b.(*array)
		return ok && x == y
	case *object:
		y, ok := b.(*object)
		return ok && x == y
	}
	return false
}

// numberToString is Number::toString(10), the form JSON.stringify and
// template literals give a Number. For a finite number other than -0 that
// is RFC 8785's form, which jsontext.AppendFloat writes: shortest
// round-trip digits, plain notation for magnitudes in [1e-6, 1e21),
// "e+N"/"e-N" otherwise.
func numberToString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case f == 0:
		return "0" // and -0
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return string(jsontext.AppendFloat(nil, f, 64))
}
