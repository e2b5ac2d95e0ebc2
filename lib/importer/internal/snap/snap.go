package snap

import (
	"fmt"
	"reflect"
)

// Encode appends the encoding of *v (v a non-nil pointer) to dst. Strings
// and byte slices whose bytes lie inside base are written as their offset
// and length in base, not copied.
//
// Encode fails, naming the path to the value ("state.byID[…].calls[2].fn:
// func values cannot be saved"), on a func, chan, unsafe.Pointer or uintptr,
// on an interface that is not nil, and on pointers that do not point at
// whole values (see the package documentation). dst is then returned
// unchanged.
func Encode(dst []byte, v any, base []byte) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return dst, fmt.Errorf("snap: Encode needs a non-nil pointer, not %T", v)
	}
	e := &encoder{buf: dst}
	if err := e.run(rv, base); err != nil {
		return dst, err
	}
	return e.buf, nil
}

// Decode sets *v (v a non-nil pointer to a zero value) from data made by
// Encode for the same type, with a base that holds the same bytes at those
// offsets (it may be longer). Strings and byte slices read from base share
// its memory; byte slices have capacity equal to their length, so an
// append never writes into base.
//
// Data that is not such an encoding gives an error wrapping ErrCorrupt;
// Decode never panics on it, and allocates no more than a small multiple
// of len(data). *v may then be partly set. A base that holds other bytes
// is not detected: the strings read from it are those bytes.
func Decode(data []byte, v any, base []byte) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("snap: Decode needs a non-nil pointer, not %T", v)
	}
	d := &decoder{data: data, base: base}
	return d.run(rv)
}

// Fingerprint is a hash of the shape of the type of *v: kinds, field names
// and types, recursively, and the version of the encoding. A checkpoint
// records it and is not decoded for another shape. v must be a pointer,
// which may be nil.
func Fingerprint(v any) string {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("snap: Fingerprint needs a pointer, not %T", v))
	}
	return fingerprint(t.Elem())
}
