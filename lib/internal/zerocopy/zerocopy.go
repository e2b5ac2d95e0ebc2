// Package zerocopy holds the program's uses of package unsafe outside
// the importer's state snapshots (lib/importer/internal/snap, whose
// unsafe.go states its own): reading the same bytes as a string and as a
// byte slice without copying them, and finding where a string lies in a
// buffer. Transcripts and packs run to hundreds of megabytes, and a copy
// of each would double the memory an import or a scan takes.
//
// The invariants its callers keep:
//
//   - String(b): the bytes of b do not change for as long as the string,
//     or any string sliced from it, is in use. Go strings are immutable;
//     a string whose bytes change under it breaks maps, comparisons and
//     every caller that kept it.
//   - Bytes(s): the slice is only read, never written, appended to in
//     place or handed to code that may write it. A string's bytes may
//     live in read-only memory (a literal); writing them is undefined.
//   - Offset compares addresses and subtracts them; it never turns an
//     address back into a pointer, so the garbage collector's view of
//     memory is untouched (unsafe.Pointer rule 2 is not used at all).
package zerocopy

import "unsafe"

// String returns the bytes of b as a string sharing b's memory: b must
// not change while the string is in use.
func String(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Bytes returns the bytes of s as a slice sharing s's memory: the slice
// must never be written.
func Bytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Offset returns where the bytes of s start inside b, and true, when
// they lie wholly inside b[:len(b)] (s is a slice of b's memory, such as
// a string String made of b, or a substring of one); 0 and false for an
// empty s or one that lies elsewhere, even one equal to a part of b.
func Offset(s string, b []byte) (int, bool) {
	if len(s) == 0 || len(s) > len(b) {
		return 0, false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	q := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < q || p-q > uintptr(len(b)-len(s)) {
		return 0, false
	}
	return int(p - q), true
}
