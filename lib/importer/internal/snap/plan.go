package snap

import (
	"math"
	"reflect"
	"sync"
	"time"
)

// An op is how a type is encoded.
type op uint8

const (
	opBool op = iota
	opInt
	opUint
	opFloat32
	opFloat64
	opComplex64
	opComplex128
	opString
	opBytes // a slice of a byte kind
	opSlice
	opByteArray
	opArray
	opMap
	opPtr
	opStruct
	opTime
	opInterface   // only nil is saved
	opUnsupported // func, chan, unsafe.Pointer, uintptr
)

// A plan is the compiled encoding of one type: what Encode and Decode
// do with a value of it, worked out once per type.
type plan struct {
	op     op
	typ    reflect.Type
	elem   *plan // slice, array and pointer elements; map values
	key    *plan // map keys
	fields []field
	len    int // array length
	// min is the fewest bytes an encoding of the type takes. Decode
	// checks lengths against it before it allocates. It is 0 only for
	// types of size 0, which encode as nothing.
	min int
	// zero is whether values of the type take no memory. Pointers to
	// them are not told apart by address (Go may give distinct
	// zero-size variables one address).
	zero bool
	// size is the size of a value of the type in memory: how far apart
	// the elements of a slice or array of it lie.
	size uintptr
}

// A field is a struct field in a plan.
type field struct {
	name   string
	index  int
	offset uintptr // where it lies in the struct
	plan   *plan
}

var (
	plans     sync.Map // reflect.Type → *plan
	compileMu sync.Mutex
	timeType  = reflect.TypeFor[time.Time]()
)

// planFor returns the plan of t, compiling it (and the plans of the types
// it holds) on first use.
func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	compileMu.Lock()
	defer compileMu.Unlock()
	building := map[reflect.Type]*plan{}
	p := compile(t, building)
	// Publish only whole plans: a recursive type's plan is reachable
	// from itself before it is complete.
	for t, p := range building {
		plans.Store(t, p)
	}
	return p
}

func compile(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &plan{typ: t, min: 1, zero: t.Size() == 0, size: t.Size()}
	building[t] = p
	switch t.Kind() {
	case reflect.Bool:
		p.op = opBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.op = opInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		p.op = opUint
	case reflect.Float32:
		p.op = opFloat32
	case reflect.Float64:
		p.op = opFloat64
	case reflect.Complex64:
		p.op, p.min = opComplex64, 2
	case reflect.Complex128:
		p.op, p.min = opComplex128, 2
	case reflect.String:
		p.op = opString
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			p.op = opBytes
			break
		}
		p.op = opSlice
		p.elem = compile(t.Elem(), building)
	case reflect.Array:
		p.len = t.Len()
		if t.Elem().Kind() == reflect.Uint8 {
			p.op, p.min = opByteArray, p.len
			break
		}
		p.op = opArray
		p.elem = compile(t.Elem(), building)
		p.min = mulSat(p.len, p.elem.min)
	case reflect.Map:
		p.op = opMap
		p.key = compile(t.Key(), building)
		p.elem = compile(t.Elem(), building)
	case reflect.Pointer:
		p.op = opPtr
		p.elem = compile(t.Elem(), building)
	case reflect.Struct:
		if t == timeType {
			p.op = opTime
			break
		}
		p.op, p.min = opStruct, 0
		for i := range t.NumField() {
			f := t.Field(i)
			fp := compile(f.Type, building)
			p.fields = append(p.fields, field{name: f.Name, index: i, offset: f.Offset, plan: fp})
			p.min = addSat(p.min, fp.min)
		}
	case reflect.Interface:
		p.op = opInterface
	default: // func, chan, unsafe.Pointer, uintptr
		p.op = opUnsupported
	}
	if p.zero {
		// Arrays of length 0 and structs of such fields: nothing to write.
		p.min = 0
	}
	return p
}

func addSat(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

func mulSat(a, b int) int {
	if b != 0 && a > math.MaxInt/b {
		return math.MaxInt
	}
	return a * b
}
