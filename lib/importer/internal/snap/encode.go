package snap

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strings"
)

// maxDepth bounds how deeply slices and maps nest inside one another
// (pointers do not count: pointees are written one after another, not
// nested). It keeps Decode's recursion, and so its stack, bounded on
// hostile data; Encode refuses what Decode would.
const maxDepth = 1000

// An encoder writes one value and everything it points at.
type encoder struct {
	buf    []byte
	lo, hi uintptr // the base's addresses
	// Pointees get ids in the order they are met; their contents are
	// written in that order after the root's (queue[0]).
	queue []pending
	ids   map[uintptr]int // the address of a pointee → its id
	// The memory saved pointers and slices refer to (see checkSpans).
	pointees, slices []span
	cur              int // the entry whose contents are being written
	depth            int
	// trap, when set, makes the encoder a search: it writes nothing that
	// matters and stops at the pointer or slice trap names (see search).
	trap *trap
}

// A trap is what a search looks for: a pointer to typ at addr, or a
// slice whose elements start at addr.
type trap struct {
	addr  uintptr
	typ   reflect.Type
	slice bool
}

// A pending is a pointee whose contents are yet to be written.
type pending struct {
	at     place
	p      *plan
	parent int // the entry in whose contents the pointer was met
}

// A span is memory a saved pointer or slice refers to: [lo, hi).
type span struct {
	lo, hi uintptr
	// entry is, for a pointer, the pointee's id; for a slice, the entry
	// in whose contents the slice was met.
	entry int
}

// A pathError is an error at a place in the value being encoded. path is
// built innermost first as the error unwinds.
type pathError struct {
	path []string
	msg  string
}

func (e *pathError) Error() string { return e.msg }

func at(err error, seg string) error {
	if pe, ok := err.(*pathError); ok {
		pe.path = append(pe.path, seg)
	}
	return err
}

func (e *encoder) fail(format string, args ...any) error {
	if e.trap != nil {
		return nil // a search walks past what it is not looking for
	}
	return &pathError{msg: fmt.Sprintf(format, args...)}
}

func (e *encoder) run(root reflect.Value, base []byte) error {
	if len(base) > 0 {
		e.lo = bytesAddr(base)
		e.hi = e.lo + uintptr(len(base))
	}
	e.ids = map[uintptr]int{}
	start := len(e.buf)
	// Room for the number of values, which goes first (Decode sizes its
	// table of them by it) and is known last.
	e.buf = append(e.buf, make([]byte, binary.MaxVarintLen64)...)
	e.pointee(placeOf(root), planFor(root.Type().Elem()))
	for e.cur = 0; e.cur < len(e.queue); e.cur++ {
		q := e.queue[e.cur]
		if err := e.encode(q.at, q.p); err != nil {
			pe, ok := err.(*pathError)
			if !ok {
				return err
			}
			return fmt.Errorf("snap: %s: %s", e.pathOf(e.cur, pe.path), pe.msg)
		}
	}
	if err := e.checkSpans(); err != nil {
		return err
	}
	// The number of values (the root and its pointees), at the end of
	// the room left for it; the bytes before the encoding (dst's) move up
	// to it, not the encoding down.
	var n [binary.MaxVarintLen64]byte
	count := binary.AppendUvarint(n[:0], uint64(len(e.queue)))
	shift := binary.MaxVarintLen64 - len(count)
	copy(e.buf[shift:], e.buf[:start])
	copy(e.buf[shift+start:], count)
	e.buf = e.buf[shift:]
	return nil
}

// pointee gives the value of plan p at to the next id and queues its
// contents.
func (e *encoder) pointee(to place, p *plan) {
	id := len(e.queue)
	e.queue = append(e.queue, pending{at: to, p: p, parent: e.cur})
	if !p.zero {
		addr := to.addr()
		e.ids[addr] = id
		e.pointees = append(e.pointees, span{lo: addr, hi: addr + p.size, entry: id})
	}
}

func (e *encoder) uvarint(x uint64) { e.buf = binary.AppendUvarint(e.buf, x) }

func (e *encoder) encode(v place, p *plan) error {
	switch p.op {
	case opBool:
		b := byte(0)
		if getBool(v) {
			b = 1
		}
		e.buf = append(e.buf, b)
	case opInt:
		e.buf = binary.AppendVarint(e.buf, getInt(v, p.size))
	case opUint:
		e.uvarint(getUint(v, p.size))
	case opFloat32:
		e.float32(getFloat32(v))
	case opFloat64:
		e.float64(getFloat64(v))
	case opComplex64:
		c := getComplex64(v)
		e.float32(real(c))
		e.float32(imag(c))
	case opComplex128:
		c := getComplex128(v)
		e.float64(real(c))
		e.float64(imag(c))
	case opString:
		s := getString(v)
		e.text(len(s), stringAddr(s), 0)
		if !e.inBase(stringAddr(s), len(s)) {
			e.buf = append(e.buf, s...)
		}
	case opBytes:
		b := getBytes(v)
		if b == nil {
			e.buf = append(e.buf, 0)
			return nil
		}
		e.text(len(b), bytesAddr(b), 1)
		if e.inBase(bytesAddr(b), len(b)) {
			// Decoded, it is in the base again; checkSpans sees to it
			// that no pointee is.
			return nil
		}
		e.buf = append(e.buf, b...)
		return e.slice(bytesAddr(b), len(b), 1)
	case opSlice:
		first, n, ok := getSlice(v)
		if !ok {
			e.buf = append(e.buf, 0)
			return nil
		}
		e.uvarint(uint64(n) + 1)
		if n == 0 {
			return nil
		}
		if err := e.slice(first.addr(), n, p.elem.size); err != nil {
			return err
		}
		return e.elems(first, n, p.elem)
	case opByteArray:
		e.buf = append(e.buf, bytesAt(v, p.len)...)
	case opArray:
		return e.elems(v, p.len, p.elem)
	case opMap:
		return e.mapping(v, p)
	case opPtr:
		return e.pointer(v, p)
	case opStruct:
		for i := range p.fields {
			f := &p.fields[i]
			if err := e.encode(v.at(f.offset), f.plan); err != nil {
				return at(err, "."+f.name)
			}
		}
	case opTime:
		b, err := getTime(v).MarshalBinary()
		if err != nil {
			return e.fail("%v", err)
		}
		e.uvarint(uint64(len(b)))
		e.buf = append(e.buf, b...)
	case opInterface:
		if isNilInterface(v) {
			e.buf = append(e.buf, 0)
			return nil
		}
		return e.fail("interface values cannot be saved unless nil (this one holds a %s)", getValue(v, p.typ).Elem().Type())
	case opUnsupported:
		return e.fail("%s values cannot be saved", kindName(p.typ))
	}
	return nil
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.UnsafePointer:
		return "unsafe.Pointer"
	case reflect.Func:
		return "func"
	case reflect.Chan:
		return "chan"
	}
	return t.Kind().String()
}

// float64 writes f's bits byte-reversed as a uvarint, as encoding/gob
// does: floats with short mantissas (small integers, halves) take few bytes.
func (e *encoder) float64(f float64) { e.uvarint(bits.ReverseBytes64(math.Float64bits(f))) }

func (e *encoder) float32(f float32) {
	e.uvarint(uint64(bits.ReverseBytes32(math.Float32bits(f))))
}

// text writes the header of a string or byte slice of n bytes at addr:
// n<<1 | 1 then its offset when the bytes lie in the base, n<<1 otherwise
// (the caller then writes the bytes). bias is 1 for byte slices, whose
// header 0 means nil.
func (e *encoder) text(n int, addr uintptr, bias uint64) {
	if e.inBase(addr, n) {
		e.uvarint(uint64(n)<<1 | 1 + bias)
		e.uvarint(uint64(addr - e.lo))
		return
	}
	e.uvarint(uint64(n)<<1 + bias)
}

func (e *encoder) inBase(addr uintptr, n int) bool {
	return n > 0 && addr >= e.lo && addr < e.hi && uintptr(n) <= e.hi-addr
}

// slice notes the elements of a saved slice, n of size bytes at addr,
// and, in a search, stops at the one searched for.
func (e *encoder) slice(addr uintptr, n int, size uintptr) error {
	if n == 0 || size == 0 {
		return nil
	}
	if t := e.trap; t != nil {
		if t.slice && t.addr == addr {
			return &pathError{}
		}
		return nil
	}
	e.slices = append(e.slices, span{lo: addr, hi: addr + uintptr(n)*size, entry: e.cur})
	return nil
}

// elems writes the n elements of a slice or array, the first at v.
func (e *encoder) elems(v place, n int, p *plan) error {
	if p.min == 0 || n == 0 {
		return nil // nothing, or zero values, which encode as nothing
	}
	if e.depth++; e.depth > maxDepth {
		e.depth--
		return e.fail("slices and maps nest deeper than %d", maxDepth)
	}
	defer func() { e.depth-- }()
	for i := range n {
		if err := e.encode(v.at(uintptr(i)*p.size), p); err != nil {
			return at(err, fmt.Sprintf("[%d]", i))
		}
	}
	return nil
}

func (e *encoder) mapping(m place, p *plan) error {
	if _, ok := getPointer(m); !ok { // a map is a pointer
		e.buf = append(e.buf, 0)
		return nil
	}
	v := getValue(m, p.typ)
	if p.key.op == opPtr && p.key.elem.zero {
		// Decode gives every such pointer one address (Go's), so the
		// keys would collide.
		return e.fail("maps keyed by pointers to zero-size values cannot be saved")
	}
	e.uvarint(uint64(v.Len()) + 1)
	if e.depth++; e.depth > maxDepth {
		e.depth--
		return e.fail("slices and maps nest deeper than %d", maxDepth)
	}
	defer func() { e.depth-- }()
	// Entries are copied out to variables, which are read as any other:
	// map entries are not addressable.
	kp, xp := reflect.New(p.key.typ), reflect.New(p.elem.typ)
	k, x := kp.Elem(), xp.Elem()
	iter := v.MapRange()
	for iter.Next() {
		k.SetIterKey(iter)
		if err := e.encode(placeOf(kp), p.key); err != nil {
			return at(err, "[key]")
		}
		x.SetIterValue(iter)
		if err := e.encode(placeOf(xp), p.elem); err != nil {
			return at(err, "[…]")
		}
	}
	return nil
}

// pointer writes 0 for nil, 1 for a pointee met for the first time
// (whose contents follow later), and id+2 for one met before.
func (e *encoder) pointer(v place, p *plan) error {
	to, ok := getPointer(v)
	if !ok {
		e.buf = append(e.buf, 0)
		return nil
	}
	addr := to.addr()
	if t := e.trap; t != nil {
		if !t.slice && t.addr == addr && t.typ == p.elem.typ {
			return &pathError{}
		}
		return nil
	}
	if !p.elem.zero {
		if id, ok := e.ids[addr]; ok {
			if e.queue[id].p != p.elem {
				return e.fail("a pointer to %s has the address of a %s at %s; %s",
					p.elem.typ, e.queue[id].p.typ, e.pathOf(id, nil), wholeRule)
			}
			e.uvarint(uint64(id) + 2)
			return nil
		}
	}
	e.buf = append(e.buf, 1)
	e.pointee(to, p.elem)
	return nil
}

const wholeRule = "pointers must point at whole values, not into a struct, array or slice that is saved too"

// checkSpans refuses an encoding in which a pointer points into memory
// that another saved pointer or slice refers to: Decode gives each its
// own memory, so a write through one would no longer be seen through the
// other. (Slices may share an array: each gets a copy, which the package
// documents.)
func (e *encoder) checkSpans() error {
	p := e.pointees
	if len(p) == 0 {
		return nil // a root of size 0, which points at nothing
	}
	slices.SortFunc(p, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	for i := 1; i < len(p); i++ {
		if p[i].lo < p[i-1].hi {
			return e.overlap(p[i-1], false, p[i])
		}
	}
	// The pointees do not overlap, so their ends are in order too: the
	// first pointee ending after a slice starts is the one to check.
	first := func(s span) (span, bool) {
		i, _ := slices.BinarySearchFunc(p, s.lo+1, func(a span, lo uintptr) int { return cmp.Compare(a.hi, lo) })
		return p[min(i, len(p)-1)], i < len(p) && p[i].lo < s.hi
	}
	for _, s := range e.slices {
		if q, ok := first(s); ok {
			return e.overlap(s, true, q)
		}
	}
	// Byte slices in the base are not among the slices: a pointee in
	// the base would not be shared with them once decoded.
	if q, ok := first(span{lo: e.lo, hi: e.hi}); ok && e.hi > e.lo {
		return fmt.Errorf("snap: %s points into the base; %s", e.pathOf(q.entry, nil), wholeRule)
	}
	return nil
}

func (e *encoder) overlap(a span, slice bool, b span) error {
	first := e.pathOf(a.entry, nil)
	if slice {
		first = e.pathOf(a.entry, e.search(a.entry, &trap{addr: a.lo, slice: true}))
	}
	return fmt.Errorf("snap: %s and %s refer to overlapping memory; %s", first, e.pathOf(b.entry, nil), wholeRule)
}

// pathOf returns the path of the place rel (innermost first) names inside
// the contents of entry id: the path of a pointer to the entry, then rel.
func (e *encoder) pathOf(id int, rel []string) string {
	segs := slices.Clone(rel)
	for id != 0 {
		q := e.queue[id]
		segs = append(segs, e.search(q.parent, &trap{addr: q.at.addr(), typ: q.p.typ})...)
		id = q.parent
	}
	slices.Reverse(segs)
	root := e.queue[0].p.typ
	name := root.Name()
	if name == "" {
		name = root.String()
	}
	return name + strings.Join(segs, "")
}

// search walks the contents of entry id again, looking for the pointer or
// slice trap describes, and returns its path there (innermost first).
// The first walk met it there, so it is found.
func (e *encoder) search(id int, t *trap) []string {
	s := &encoder{trap: t}
	q := e.queue[id]
	if pe, ok := s.encode(q.at, q.p).(*pathError); ok {
		return pe.path
	}
	return []string{"(unknown)"}
}
