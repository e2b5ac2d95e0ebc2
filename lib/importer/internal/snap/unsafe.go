package snap

// This file holds every use of package unsafe in snap. There are three:
//
//   - writable turns a value reached through an unexported struct field into
//     one that may be set (reflect refuses to set such values, and to hand
//     them out through Interface); settable does it for all the fields of a
//     struct at once, by viewing it as its twin (plan.twin), a struct type
//     of the same layout whose fields are exported. The value must be
//     addressable: snap only ever holds addressable values (pointees and
//     their fields, slice elements, copies of map entries), so the memory
//     it names is a live variable of exactly that type (or layout).
//   - stringAddr and bytesAddr give the addresses of the bytes of strings
//     and byte slices, which Encode compares with the base's to find
//     whether they lie inside it. Addresses are only compared, never
//     turned back into pointers.
//   - baseString makes a string that shares the base's memory. The base is
//     the caller's buffer, which must not change while the decoded value is
//     in use (strings are immutable in Go).

import (
	"reflect"
	"unsafe"
)

// writable returns the addressable value v as one that may be set and read
// through Interface, even when it was reached through unexported fields.
func writable(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// settable returns the addressable struct v viewed as its twin, whose
// fields may all be set.
func settable(v reflect.Value, twin reflect.Type) reflect.Value {
	return reflect.NewAt(twin, unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// stringAddr returns the address of the bytes of s.
func stringAddr(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }

// bytesAddr returns the address of the first element of b.
func bytesAddr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// baseString returns base[off:off+n] as a string sharing base's memory.
// The caller has checked that the range lies inside base and n > 0.
func baseString(base []byte, off, n int) string {
	return unsafe.String(&base[off], n)
}
