package snap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"time"
)

// ErrCorrupt is the error Decode's errors wrap when data is not an
// encoding of the type it is asked to decode.
var ErrCorrupt = errors.New("snap: corrupt data")

// A decoder reads one value and everything it points at.
type decoder struct {
	data  []byte
	pos   int
	base  []byte
	queue []decoded // by id
	depth int
	// owed is the fewest bytes still to be read for elements, entries and
	// pointees already allocated. A count is checked against the bytes
	// left beyond it, so each allocation is paid for by bytes of its own
	// and the memory Decode allocates is bounded by a small multiple of
	// len(data), however the data nests.
	owed int
}

// A decoded is a pointee: where it is, and the plan of what it is.
type decoded struct {
	at place
	p  *plan
}

func (d *decoder) corrupt(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", ErrCorrupt, d.pos, fmt.Sprintf(format, args...))
}

func (d *decoder) run(root reflect.Value) error {
	// The encoding starts with the number of values: the root and its
	// pointees. Each pointee takes at least a byte.
	n, err := d.uvarint()
	if err != nil {
		return err
	}
	if n == 0 || n-1 > uint64(d.remaining()) {
		return d.corrupt("%d values do not fit in the %d bytes left", n, d.remaining())
	}
	d.queue = make([]decoded, 0, n)
	d.queue = append(d.queue, decoded{placeOf(root), planFor(root.Type().Elem())})
	for i := 0; i < len(d.queue); i++ {
		q := d.queue[i]
		if i > 0 {
			d.owed -= q.p.min
		}
		if err := d.decode(q.at, q.p); err != nil {
			return err
		}
	}
	if d.pos != len(d.data) {
		return d.corrupt("%d bytes after the end of the value", len(d.data)-d.pos)
	}
	if len(d.queue) != cap(d.queue) {
		return d.corrupt("%d values, not %d", len(d.queue), n)
	}
	return nil
}

func (d *decoder) remaining() int { return len(d.data) - d.pos }

func (d *decoder) uvarint() (uint64, error) {
	if d.pos < len(d.data) && d.data[d.pos] < 0x80 {
		x := uint64(d.data[d.pos]) // the common case: one byte
		d.pos++
		return x, nil
	}
	x, n := binary.Uvarint(d.data[d.pos:])
	if n <= 0 {
		return 0, d.corrupt("bad or truncated varint")
	}
	d.pos += n
	return x, nil
}

// avail is the number of bytes left that are not owed.
func (d *decoder) avail() int { return max(0, d.remaining()-d.owed) }

// promise checks that n things of at least cost bytes each fit in the
// bytes available and sets those bytes aside for them. Things that
// encode as nothing (cost 0) take no memory either, so any number of them
// that fits in an int is allowed.
func (d *decoder) promise(n uint64, cost int, what string) (int, error) {
	if n > math.MaxInt || cost > 0 && n > uint64(d.avail()/cost) {
		return 0, d.corrupt("%d %s do not fit in the %d bytes left", n, what, d.avail())
	}
	d.owed += int(n) * cost
	return int(n), nil
}

// decode sets the variable at v, of p's type, from the data. Decode's
// variables start as zero values (the caller's, or new memory), and a
// map's entries are decoded into variables that every decode sets whole,
// so what the data leaves as zero is not set.
func (d *decoder) decode(v place, p *plan) error {
	switch p.op {
	case opBool:
		if d.remaining() < 1 {
			return d.corrupt("truncated bool")
		}
		b := d.data[d.pos]
		if b > 1 {
			return d.corrupt("bool is %d", b)
		}
		d.pos++
		setBool(v, b == 1)
	case opInt:
		x, n := binary.Varint(d.data[d.pos:])
		if n <= 0 {
			return d.corrupt("bad or truncated varint")
		}
		if shift := 64 - 8*p.size; x<<shift>>shift != x {
			return d.corrupt("%d overflows %s", x, p.typ)
		}
		d.pos += n
		setInt(v, p.size, x)
	case opUint:
		x, err := d.uvarint()
		if err != nil {
			return err
		}
		if shift := 64 - 8*p.size; x<<shift>>shift != x {
			return d.corrupt("%d overflows %s", x, p.typ)
		}
		setUint(v, p.size, x)
	case opFloat32:
		f, err := d.float32()
		if err != nil {
			return err
		}
		setFloat32(v, f)
	case opFloat64:
		f, err := d.float64()
		if err != nil {
			return err
		}
		setFloat64(v, f)
	case opComplex64:
		re, err := d.float32()
		if err != nil {
			return err
		}
		im, err := d.float32()
		if err != nil {
			return err
		}
		setComplex64(v, complex(re, im))
	case opComplex128:
		re, err := d.float64()
		if err != nil {
			return err
		}
		im, err := d.float64()
		if err != nil {
			return err
		}
		setComplex128(v, complex(re, im))
	case opString:
		h, err := d.uvarint()
		if err != nil {
			return err
		}
		off, n, inBase, err := d.text(h)
		if err != nil {
			return err
		}
		var s string
		switch {
		case n == 0:
		case inBase:
			s = baseString(d.base, off, n)
		default:
			s = string(d.data[off : off+n])
		}
		setString(v, s)
	case opBytes:
		h, err := d.uvarint()
		if err != nil {
			return err
		}
		if h == 0 {
			clearSlice(v)
			return nil
		}
		off, n, inBase, err := d.text(h - 1)
		if err != nil {
			return err
		}
		var b []byte
		if inBase {
			b = d.base[off : off+n : off+n]
		} else {
			b = make([]byte, n)
			copy(b, d.data[off:])
		}
		setBytes(v, b)
	case opSlice:
		h, err := d.uvarint()
		if err != nil {
			return err
		}
		if h == 0 {
			clearSlice(v)
			return nil
		}
		n, err := d.promise(h-1, p.elem.min, "slice elements")
		if err != nil {
			return err
		}
		return d.elems(makeSlice(v, p.typ, n), n, p.elem, true)
	case opByteArray:
		if d.remaining() < p.len {
			return d.corrupt("truncated %s", p.typ)
		}
		copy(bytesAt(v, p.len), d.data[d.pos:])
		d.pos += p.len
	case opArray:
		return d.elems(v, p.len, p.elem, false)
	case opMap:
		return d.mapping(v, p)
	case opPtr:
		return d.pointer(v, p)
	case opStruct:
		for i := range p.fields {
			f := &p.fields[i]
			if err := d.decode(v.at(f.offset), f.plan); err != nil {
				return err
			}
		}
	case opTime:
		x, err := d.uvarint()
		if err != nil {
			return err
		}
		if x > uint64(d.remaining()) {
			return d.corrupt("%d bytes of time do not fit in the %d bytes left", x, d.remaining())
		}
		n := int(x)
		var t time.Time
		if err := t.UnmarshalBinary(d.data[d.pos : d.pos+n]); err != nil {
			return d.corrupt("%v", err)
		}
		d.pos += n
		setTime(v, t)
	case opInterface:
		h, err := d.uvarint()
		if err != nil {
			return err
		}
		if h != 0 {
			return d.corrupt("a non-nil %s, which Encode never writes", p.typ)
		}
		clearInterface(v)
	case opUnsupported:
		return d.corrupt("a value of %s, which Encode never writes", p.typ)
	}
	return nil
}

// text reads the rest of a string or byte slice with header h (see
// encoder.text): the offset and length of its bytes, in the base when
// inBase and else in the data, which it then skips.
func (d *decoder) text(h uint64) (off, n int, inBase bool, err error) {
	size := h >> 1
	if h&1 == 0 {
		if size > uint64(d.remaining()) {
			return 0, 0, false, d.corrupt("%d bytes of text do not fit in the %d bytes left", size, d.remaining())
		}
		off, n = d.pos, int(size)
		d.pos += n
		return off, n, false, nil
	}
	o, err := d.uvarint()
	if err != nil {
		return 0, 0, false, err
	}
	if o > uint64(len(d.base)) || size > uint64(len(d.base))-o {
		return 0, 0, false, d.corrupt("%d bytes at offset %d run past the end of the base (%d bytes)", size, o, len(d.base))
	}
	return int(o), int(size), true, nil
}

func (d *decoder) float64() (float64, error) {
	x, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(bits.ReverseBytes64(x)), nil
}

func (d *decoder) float32() (float32, error) {
	x, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	if x > math.MaxUint32 {
		return 0, d.corrupt("float32 of more than 32 bits")
	}
	return math.Float32frombits(bits.ReverseBytes32(uint32(x))), nil
}

// elems decodes the n elements of a slice or array, the first at v. A
// slice's elements were promised (see promise): each takes its bytes back
// as it is read.
func (d *decoder) elems(v place, n int, p *plan, promised bool) error {
	if p.min == 0 || n == 0 {
		return nil // nothing, or zero values, which encode as nothing
	}
	if d.depth++; d.depth > maxDepth {
		return d.corrupt("slices and maps nest deeper than %d", maxDepth)
	}
	for i := range n {
		if promised {
			d.owed -= p.min
		}
		if err := d.decode(v.at(uintptr(i)*p.size), p); err != nil {
			return err
		}
	}
	d.depth--
	return nil
}

func (d *decoder) mapping(v place, p *plan) error {
	h, err := d.uvarint()
	if err != nil {
		return err
	}
	if h == 0 {
		clearPointer(v) // a map is a pointer
		return nil
	}
	cost := p.key.min + p.elem.min
	if cost == 0 && h-1 > 1 {
		// A key that encodes as nothing is the zero value: one entry.
		return d.corrupt("%d entries in a map whose keys are all the zero value", h-1)
	}
	n, err := d.promise(h-1, cost, "map entries")
	if err != nil {
		return err
	}
	if d.depth++; d.depth > maxDepth {
		return d.corrupt("slices and maps nest deeper than %d", maxDepth)
	}
	m := reflect.MakeMapWithSize(p.typ, n)
	// Every decode sets the whole value, so the two can be reused:
	// SetMapIndex copies them into the map.
	k := reflect.New(p.key.typ)
	x := reflect.New(p.elem.typ)
	for range n {
		d.owed -= cost
		if err := d.decode(placeOf(k), p.key); err != nil {
			return err
		}
		if err := d.decode(placeOf(x), p.elem); err != nil {
			return err
		}
		m.SetMapIndex(k.Elem(), x.Elem())
	}
	if m.Len() != n {
		return d.corrupt("%d map entries of which %d have distinct keys", n, m.Len())
	}
	d.depth--
	setValue(v, p.typ, m)
	return nil
}

// pointer reads what encoder.pointer writes.
func (d *decoder) pointer(v place, p *plan) error {
	h, err := d.uvarint()
	if err != nil {
		return err
	}
	switch {
	case h == 0:
		clearPointer(v)
	case h == 1:
		if len(d.queue) == cap(d.queue) {
			return d.corrupt("more values than the %d announced", cap(d.queue))
		}
		if p.elem.min > d.avail() {
			return d.corrupt("a new %s (of at least %d bytes) does not fit in the %d bytes left", p.elem.typ, p.elem.min, d.avail())
		}
		d.owed += p.elem.min
		ptr := newPlace(p.elem.typ)
		d.queue = append(d.queue, decoded{ptr, p.elem})
		setPointer(v, ptr)
	default:
		id := h - 2
		if id >= uint64(len(d.queue)) {
			return d.corrupt("pointer to value %d of %d", id, len(d.queue))
		}
		q := d.queue[id]
		if q.p != p.elem {
			return d.corrupt("a pointer to %s refers to a %s", p.elem.typ, q.p.typ)
		}
		setPointer(v, q.at)
	}
	return nil
}
