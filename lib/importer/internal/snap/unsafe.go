package snap

// This file holds every use of package unsafe in snap. There are three:
//
//   - Encode reads values, and Decode sets them, through places: the
//     address of a variable of the type a plan describes, which is the
//     caller's root, a pointee or slice element of it, or memory reflect
//     allocated for that type (reflect.New, MakeSlice), so every load and
//     store below reads or writes a variable of the type it names, or of
//     one with the same layout (a named bool is a bool, a named slice type
//     a slice). Fields and elements are reached by the offsets and sizes
//     reflect gives for the type. Stores of pointers are ordinary typed
//     stores, which the garbage collector sees.
//   - stringAddr and bytesAddr give the addresses of the bytes of strings
//     and byte slices, which Encode compares with the base's to find
//     whether they lie inside it. Addresses are only compared, never
//     turned back into pointers.
//   - baseString makes a string that shares the base's memory. The base is
//     the caller's buffer, which must not change while the decoded value is
//     in use (strings are immutable in Go).

import (
	"reflect"
	"time"
	"unsafe"
)

// A place is the address of a variable Encode reads or Decode sets.
type place struct{ ptr unsafe.Pointer }

// placeOf returns the place the non-nil pointer v points at.
func placeOf(v reflect.Value) place { return place{v.UnsafePointer()} }

// newPlace allocates a zero variable of type t.
func newPlace(t reflect.Type) place { return place{reflect.New(t).UnsafePointer()} }

// at returns the place off bytes into the variable at p (a field, an
// element).
func (p place) at(off uintptr) place { return place{unsafe.Add(p.ptr, off)} }

func setBool(p place, b bool)             { *(*bool)(p.ptr) = b }
func setString(p place, s string)         { *(*string)(p.ptr) = s }
func setBytes(p place, b []byte)          { *(*[]byte)(p.ptr) = b }
func setFloat32(p place, f float32)       { *(*float32)(p.ptr) = f }
func setFloat64(p place, f float64)       { *(*float64)(p.ptr) = f }
func setComplex64(p place, c complex64)   { *(*complex64)(p.ptr) = c }
func setComplex128(p place, c complex128) { *(*complex128)(p.ptr) = c }
func setTime(p place, t time.Time)        { *(*time.Time)(p.ptr) = t }
func setPointer(p place, to place)        { *(*unsafe.Pointer)(p.ptr) = to.ptr }
func bytesAt(p place, n int) []byte       { return unsafe.Slice((*byte)(p.ptr), n) }
func setValue(p place, t reflect.Type, v reflect.Value) {
	reflect.NewAt(t, p.ptr).Elem().Set(v)
}

// setInt stores x in the signed integer of size bytes at p.
func setInt(p place, size uintptr, x int64) {
	switch size {
	case 1:
		*(*int8)(p.ptr) = int8(x)
	case 2:
		*(*int16)(p.ptr) = int16(x)
	case 4:
		*(*int32)(p.ptr) = int32(x)
	default:
		*(*int64)(p.ptr) = x
	}
}

// setUint stores x in the unsigned integer of size bytes at p.
func setUint(p place, size uintptr, x uint64) {
	switch size {
	case 1:
		*(*uint8)(p.ptr) = uint8(x)
	case 2:
		*(*uint16)(p.ptr) = uint16(x)
	case 4:
		*(*uint32)(p.ptr) = uint32(x)
	default:
		*(*uint64)(p.ptr) = x
	}
}

// sliceHeader is the layout of every slice type.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// makeSlice sets the slice of type t at p to a new slice of n zero
// elements and returns the place of its first.
func makeSlice(p place, t reflect.Type, n int) place {
	data := reflect.MakeSlice(t, n, n).UnsafePointer()
	*(*sliceHeader)(p.ptr) = sliceHeader{data, n, n}
	return place{data}
}

// clearSlice sets the slice at p to nil; clearPointer does it for a
// pointer or a map, clearInterface for an interface.
func clearSlice(p place)     { *(*sliceHeader)(p.ptr) = sliceHeader{} }
func clearPointer(p place)   { *(*unsafe.Pointer)(p.ptr) = nil }
func clearInterface(p place) { *(*[2]unsafe.Pointer)(p.ptr) = [2]unsafe.Pointer{} }

// addr returns the address of the variable at p, to compare.
func (p place) addr() uintptr { return uintptr(p.ptr) }

func getBool(p place) bool                           { return *(*bool)(p.ptr) }
func getString(p place) string                       { return *(*string)(p.ptr) }
func getBytes(p place) []byte                        { return *(*[]byte)(p.ptr) }
func getFloat32(p place) float32                     { return *(*float32)(p.ptr) }
func getFloat64(p place) float64                     { return *(*float64)(p.ptr) }
func getComplex64(p place) complex64                 { return *(*complex64)(p.ptr) }
func getComplex128(p place) complex128               { return *(*complex128)(p.ptr) }
func getTime(p place) time.Time                      { return *(*time.Time)(p.ptr) }
func getValue(p place, t reflect.Type) reflect.Value { return reflect.NewAt(t, p.ptr).Elem() }

// getPointer returns the place the pointer (or map) at p points at, and
// false for nil.
func getPointer(p place) (place, bool) {
	to := *(*unsafe.Pointer)(p.ptr)
	return place{to}, to != nil
}

// getSlice returns the place of the first element of the slice at p and
// its length, and false for a nil slice.
func getSlice(p place) (place, int, bool) {
	h := (*sliceHeader)(p.ptr)
	return place{h.data}, h.len, h.data != nil
}

// isNilInterface reports whether the interface at p is nil (its type word
// is).
func isNilInterface(p place) bool { return (*[2]unsafe.Pointer)(p.ptr)[0] == nil }

// getInt returns the signed integer of size bytes at p.
func getInt(p place, size uintptr) int64 {
	switch size {
	case 1:
		return int64(*(*int8)(p.ptr))
	case 2:
		return int64(*(*int16)(p.ptr))
	case 4:
		return int64(*(*int32)(p.ptr))
	}
	return *(*int64)(p.ptr)
}

// getUint returns the unsigned integer of size bytes at p.
func getUint(p place, size uintptr) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p.ptr))
	case 2:
		return uint64(*(*uint16)(p.ptr))
	case 4:
		return uint64(*(*uint32)(p.ptr))
	}
	return *(*uint64)(p.ptr)
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
