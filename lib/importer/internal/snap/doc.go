// Package snap saves an importer's in-memory state as bytes and restores
// it exactly, so that an import can checkpoint the state it has after the
// lines of a transcript it has read and, when the transcript has grown,
// resume from there and read only the new lines.
//
// The state is an ordinary Go value: structs (with unexported fields),
// slices, maps and pointers shared between them, holding many strings
// that are slices of the transcript. Encode writes such a value and
// Decode restores it:
//
//	data, err := snap.Encode(nil, &st, transcript)
//	…
//	var st state
//	err := snap.Decode(data, &st, transcript) // transcript may have grown
//
// Encode and Decode may be called concurrently.
//
// # What is kept
//
//   - Values of every kind but func, chan, unsafe.Pointer and uintptr
//     (which Encode refuses, naming the path to the value:
//     "state.byID[…].calls[2].fn: func values cannot be saved"), and of
//     interfaces, of which only nil is saved (Encode refuses any other).
//     Struct fields are saved whether exported or not; time.Time is saved
//     as its MarshalBinary encoding (the instant and the zone offset,
//     not the zone's name nor a monotonic clock reading); every other
//     type, gjson.Result and json.RawMessage included, field by field.
//   - Pointer identity: pointers to one value decode to pointers to one
//     new value, wherever they are (a slice, a map's values or keys, a
//     struct), cycles included; nil stays nil. Pointees are written one
//     after another, not nested, so a chain of pointers of any length
//     (a message pointing at its parent) takes no stack.
//   - nil and empty apart, for slices, maps and byte slices.
//   - Strings and byte slices whose bytes lie inside base (the transcript)
//     as an offset and a length: they take a few bytes in the encoding and
//     no memory when decoded, sharing the memory of the base Decode is
//     given. Byte slices so decoded have a capacity equal to their length,
//     so an append never writes into the base (but a write to an element
//     does: the state must treat them as read-only, as it treats the
//     transcript).
//
// # Limits
//
//   - Pointers must point at whole values: at something allocated on its
//     own (new, &T{}, a variable), not into a struct, an array or the
//     elements of a slice that is saved too, nor into the base. Decode
//     gives each pointee and each slice memory of its own, so such a
//     pointer would no longer share its value. Encode refuses them (it
//     compares the memory every saved pointer and slice refers to), naming
//     both paths. Pointers to values of size zero (struct{}) are not told
//     apart, and maps keyed by them are refused.
//   - Slices are decoded with a capacity equal to their length, each into
//     an array of its own: two slices that shared an array (a and a[1:])
//     no longer do, so an append to one never changes another.
//   - Slices, arrays and maps nest at most 1,000 deep in one another (a
//     [][]T is two deep); pointers do not count.
//   - The encoding is not deterministic (maps are written in Go's
//     iteration order), and is meant for the build that wrote it.
//
// # What the caller checks
//
// Decode checks that data is an encoding, not that it is an encoding of
// the caller's type, nor that base is the transcript the state was saved
// with. So a checkpoint records:
//
//   - Fingerprint of the state's type, a hash of its shape (kinds, field
//     names and types, recursively, and the encoding's version). Decode
//     only data recorded with the same fingerprint. A change of meaning
//     that keeps the shape is not seen: key checkpoints by the program's
//     version too.
//   - A hash of the base's bytes up to the end of what the state read.
//     A base with other bytes at the offsets the state's strings come from
//     is not an error: those bytes are simply what the strings hold.
//
// # Hostile data
//
// Decode never panics on data that is not an encoding: it returns an
// error wrapping ErrCorrupt. Every length is checked against the bytes
// left, and each allocation is paid for by bytes of its own (see
// decoder.owed), so Decode allocates no more than a small multiple of
// len(data); offsets are checked against len(base). FuzzDecode checks it.
//
// # Speed
//
// Each type's plan (how its values are written) is compiled once and
// cached; numbers are uvarints. BenchmarkEncode and BenchmarkDecode work on
// the checkpoint of a 20 MB session: 5,100 structs of 8–14 fields (and
// 8,500 small ones inline: gjson.Results, members, failures), 44,000
// strings and byte slices, 26,000 of them slicing lines spread over the
// transcript; 370 KB encoded. On the shared 2-core AMD EPYC this was
// written on (go1.26, load average 6–10), the median and the best of 10
// runs of 200:
//
//	               wall/op         CPU/op          memory/op   allocs/op
//	Encode   7.3 ms (5.0 ms)   6.0 ms (4.8 ms)   3.7 MB       5,249
//	Decode   6.9 ms (5.3 ms)   5.8 ms (5.1 ms)   2.5 MB      40,457
//
// The benchmarks report CPU time (user and system, of all threads, so the
// garbage collector's included) as cpu-ns/op: on a loaded machine it
// varies less than wall time.
//
// # Encoding
//
// The data are the number of values (the root and its pointees), then the
// contents of each value in turn, the root first. A value is written by
// its kind: bools as a byte; integers as (zig-zag) varints; floats as
// byte-reversed uvarints of their bits, as encoding/gob does; strings as
// len<<1 then the bytes, or len<<1|1 then the offset in the base; byte
// slices the same plus one, 0 being nil; other slices and maps as 0 for
// nil or len+1, then the elements (keys and values); arrays and structs
// as their elements and fields in order; pointers as 0 for nil, 1 for a
// pointee met for the first time (its contents come later, in the order
// pointees are met) or id+2 for one met before; time.Time as the length
// and bytes of its MarshalBinary; nil interfaces as 0.
package snap
