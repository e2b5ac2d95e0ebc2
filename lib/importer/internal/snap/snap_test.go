package snap

//lint:file-ignore U1000 the fields of these test types are read and written by Encode and Decode through reflection only

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// roundTrip encodes v with base, decodes the result with a copy of base
// and returns the decoded value and the copy.
func roundTrip[T any](t *testing.T, v *T, base []byte) (*T, []byte) {
	t.Helper()
	data, err := Encode(nil, v, base)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	copied := bytes.Clone(base)
	got := new(T)
	if err := Decode(data, got, copied); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return got, copied
}

type (
	name    string
	count   int32
	flags   uint16
	blob    []byte
	ids     []name
	pair    [2]string
	key     struct{ a, b string }
	inner   struct{ n int }
	counted map[name]count
)

type Embedded struct{ E string }

type kinds struct {
	Embedded
	B       bool
	I       int
	I8      int8
	I16     int16
	I32     int32
	I64     int64
	U       uint
	U8      uint8
	U16     uint16
	U32     uint32
	U64     uint64
	F32     float32
	F64     float64
	C64     complex64
	C128    complex128
	S       string
	Bytes   []byte
	Raw     json.RawMessage
	Arr     [3]int
	ByteArr [4]byte
	Map     map[string]int
	Ptr     *int
	Struct  inner
	Time    time.Time
	Result  gjson.Result
	Err     error
	b       bool
	i8      int8
	u64     uint64
	f32     float32
	s       string
	name    name
	count   count
	flags   flags
	blob    blob
	ids     ids
	pair    pair
	counted counted
	byKey   map[key][]int
	byInt   map[int64]string
	byArr   map[[2]int]bool
	nested  map[string]map[string][]string
	grid    [2][3]int8
	ptrs    []*inner
	ptrPtr  **inner
	times   []time.Time
	results []gjson.Result
	empty   struct{}
	empties []struct{}
	zeroArr [0]int
	negZero float64
	nan     float64
	inf     float32
	maxes   [4]uint64
	mins    [4]int64
	unicode string
	deep    *kinds
}

func TestRoundTripKinds(t *testing.T) {
	t.Parallel()
	base := []byte(`{"a":"héllo","n":1.5,"list":[1,2,3]}`)
	one := 1
	in := &inner{7}
	pin := &in
	loc := time.FixedZone("", 5*3600+30*60)
	v := &kinds{
		Embedded: Embedded{"embedded"},
		B:        true, I: -1 << 40, I8: -128, I16: math.MaxInt16, I32: math.MinInt32, I64: math.MinInt64,
		U: math.MaxUint, U8: 255, U16: 65535, U32: math.MaxUint32, U64: math.MaxUint64,
		F32: 3.25, F64: -1e300, C64: complex(1.5, -2), C128: complex(math.Pi, math.E),
		S: "inline", Bytes: []byte{0, 1, 2}, Raw: json.RawMessage(base[1:4]),
		Arr: [3]int{1, -2, 3}, ByteArr: [4]byte{9, 8, 7, 6}, Map: map[string]int{"a": 1, "": 0},
		Ptr: &one, Struct: inner{42},
		Time:   time.Date(2026, 11, 26, 1, 2, 3, 456789012, loc),
		Result: gjson.Parse(alias(base)).Get("a"),
		b:      true, i8: -5, u64: 1 << 63, f32: -0.5, s: alias(base[6:12]),
		name: "a name", count: -3, flags: 0xbeef, blob: blob("blob"), ids: ids{"x", "y"},
		pair: pair{"l", "r"}, counted: counted{"k": 2},
		byKey:   map[key][]int{{"a", "b"}: {1}, {"", ""}: nil},
		byInt:   map[int64]string{-1: "minus", 1 << 50: "big"},
		byArr:   map[[2]int]bool{{1, 2}: true},
		nested:  map[string]map[string][]string{"o": {"i": {"s"}}, "nil": nil},
		grid:    [2][3]int8{{1, 2, 3}, {-1, -2, -3}},
		ptrs:    []*inner{{1}, nil, {3}},
		ptrPtr:  pin,
		times:   []time.Time{{}, time.Unix(0, 0).UTC(), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)},
		results: gjson.Parse(alias(base)).Get("list").Array(),
		empties: make([]struct{}, 5),
		negZero: math.Copysign(0, -1), nan: math.NaN(), inf: float32(math.Inf(-1)),
		maxes:   [4]uint64{math.MaxUint64, math.MaxUint32, 1<<7 - 1, 1 << 7},
		mins:    [4]int64{math.MinInt64, math.MaxInt64, -64, 64},
		unicode: "日本語 \x00 \xff",
		deep:    &kinds{S: "deeper", Bytes: []byte{}},
	}
	got, _ := roundTrip(t, v, base)

	// Times: the same instant and offset (MarshalBinary keeps no zone
	// name and no monotonic reading).
	if !got.Time.Equal(v.Time) || got.Time.Format(time.RFC3339Nano) != v.Time.Format(time.RFC3339Nano) {
		t.Errorf("Time = %v, want %v", got.Time, v.Time)
	}
	// NaN is not equal to itself: compare its bits.
	if math.Float64bits(got.nan) != math.Float64bits(v.nan) || math.Float64bits(got.negZero) != math.Float64bits(v.negZero) {
		t.Errorf("nan, negZero = %v, %v", got.nan, got.negZero)
	}
	got.Time, got.nan, v.Time, v.nan = time.Time{}, 0, time.Time{}, 0
	if !reflect.DeepEqual(got, v) {
		t.Errorf("round trip differs:\ngot  %+v\nwant %+v", got, v)
	}
	if got.deep.Bytes == nil || got.deep.deep != nil {
		t.Errorf("deep = %+v", got.deep)
	}
	// Roots that take no memory, or are not structs.
	roundTrip(t, &struct{}{}, nil)
	if n, _ := roundTrip(t, &[]string{"a", alias(base[1:2])}, base); len(*n) != 2 || (*n)[1] != `"` {
		t.Errorf("a root slice decoded as %q", *n)
	}
}

func TestSharedPointers(t *testing.T) {
	t.Parallel()
	base, lines := transcript(200 << 10)
	want := newState(base, lines, len(lines))
	if len(want.msgs) < 50 {
		t.Fatalf("only %d messages", len(want.msgs))
	}
	got, _ := roundTrip(t, want, base)
	checkState(t, want, got)
	if got.byID["u000003"] != got.msgs[3] {
		t.Errorf("byID[u000003] is not msgs[3]")
	}
	// One value, not two equal ones: a write through one pointer is
	// seen through the other.
	got.msgs[3].text = "changed"
	if got.byID["u000003"].text != "changed" {
		t.Errorf("a change to msgs[3] is not seen through byID")
	}
	*got.steps[5].Output = "new output"
	if *got.msgs[5].calls[0].output != "new output" {
		t.Errorf("a change to a step's output is not seen through its call")
	}
}

type node struct {
	next *node
	val  int
}

type cycle struct {
	self  *cycle
	ring  *node
	chain *node
	none  *node
	zero  *struct{}
	zeros []*struct{}
}

func TestCyclesAndChains(t *testing.T) {
	t.Parallel()
	a, b := &node{val: 1}, &node{val: 2}
	a.next, b.next = b, a
	v := &cycle{ring: a, zero: &struct{}{}, zeros: []*struct{}{{}, nil}}
	v.self = v
	// A chain longer than any recursion limit: pointees are written
	// one after another, not nested.
	for i := range 200_000 {
		v.chain = &node{next: v.chain, val: i}
	}
	got, _ := roundTrip(t, v, nil)
	if got.self != got {
		t.Errorf("self does not point at the root")
	}
	if got.ring.next.next != got.ring || got.ring.val != 1 || got.ring.next.val != 2 {
		t.Errorf("ring is not a ring of 1 and 2")
	}
	if got.none != nil || got.zero == nil || got.zeros[0] == nil || got.zeros[1] != nil {
		t.Errorf("none, zero, zeros = %v, %v, %v", got.none, got.zero, got.zeros)
	}
	n := 0
	for p := got.chain; p != nil; p = p.next {
		if p.val != 199_999-n {
			t.Fatalf("chain[%d] = %d", n, p.val)
		}
		n++
	}
	if n != 200_000 {
		t.Errorf("chain has %d nodes, want 200000", n)
	}
}

type nils struct {
	nilSlice, emptySlice []int
	nilMap, emptyMap     map[string]int
	nilRaw, emptyRaw     json.RawMessage
	nilBytes, emptyBytes []byte
	nilList, emptyList   list
	inList               list
	nilPtr               *int
	nilErr               error
}

func TestNilAndEmpty(t *testing.T) {
	t.Parallel()
	v := &nils{
		emptySlice: []int{}, emptyMap: map[string]int{}, emptyRaw: json.RawMessage{},
		emptyBytes: []byte{}, emptyList: list{}, inList: list{nil, {}, json.RawMessage("1")},
	}
	got, _ := roundTrip(t, v, []byte("base"))
	for _, c := range []struct {
		name string
		nil  bool
		want bool
	}{
		{"nilSlice", got.nilSlice == nil, true},
		{"emptySlice", got.emptySlice == nil, false},
		{"nilMap", got.nilMap == nil, true},
		{"emptyMap", got.emptyMap == nil, false},
		{"nilRaw", got.nilRaw == nil, true},
		{"emptyRaw", got.emptyRaw == nil, false},
		{"nilBytes", got.nilBytes == nil, true},
		{"emptyBytes", got.emptyBytes == nil, false},
		{"nilList", got.nilList == nil, true},
		{"emptyList", got.emptyList == nil, false},
		{"inList[0]", got.inList[0] == nil, true},
		{"inList[1]", got.inList[1] == nil, false},
		{"nilPtr", got.nilPtr == nil, true},
		{"nilErr", got.nilErr == nil, true},
	} {
		if c.nil != c.want {
			t.Errorf("%s: nil is %v, want %v", c.name, c.nil, c.want)
		}
	}
	if !reflect.DeepEqual(got, v) {
		t.Errorf("got %+v, want %+v", got, v)
	}
}

type arrays struct {
	a, b   []int
	c, d   []byte
	fromB  json.RawMessage
	fromB2 json.RawMessage
	s      string
	out    string
}

func TestBackingArraysAndAliasing(t *testing.T) {
	t.Parallel()
	base := []byte(`{"text":"hello world","more":[1,2]}`)
	shared := []int{1, 2, 3, 4}
	v := &arrays{
		a: shared[:2], b: shared[1:3], // sharing in the original
		c: []byte("abc"), d: []byte("abd"),
		fromB:  json.RawMessage(base[9:20]),
		fromB2: json.RawMessage(base[0:5:len(base)]), // spare capacity over base
		s:      alias(base[9:20]),
		out:    "not in base",
	}
	data, err := Encode(nil, v, base)
	if err != nil {
		t.Fatal(err)
	}
	// A base that is longer, and elsewhere in memory.
	newBase := append(bytes.Clone(base), "more lines\n"...)
	got := new(arrays)
	if err := Decode(data, got, newBase); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, v) {
		t.Fatalf("got %+v, want %+v", got, v)
	}
	inNew := func(p unsafe.Pointer, n int) bool {
		lo := uintptr(unsafe.Pointer(&newBase[0]))
		return uintptr(p) >= lo && uintptr(p)+uintptr(n) <= lo+uintptr(len(newBase))
	}
	if !inNew(unsafe.Pointer(unsafe.StringData(got.s)), len(got.s)) {
		t.Errorf("s does not point into the new base")
	}
	if !inNew(unsafe.Pointer(unsafe.SliceData(got.fromB)), len(got.fromB)) || &got.fromB[0] != &newBase[9] {
		t.Errorf("fromB does not point at offset 9 of the new base")
	}
	if inNew(unsafe.Pointer(unsafe.StringData(got.out)), len(got.out)) {
		t.Errorf("out points into the base, whose bytes it does not hold")
	}
	if !bytes.Contains(data, []byte("not in base")) || bytes.Contains(data, []byte("hello world")) {
		t.Errorf("the encoding should copy what is not in the base and only what is not")
	}
	// Appends never write into the base or into another slice.
	if cap(got.fromB) != len(got.fromB) || cap(got.fromB2) != len(got.fromB2) {
		t.Errorf("byte slices from the base have spare capacity: %d, %d", cap(got.fromB), cap(got.fromB2))
	}
	before := bytes.Clone(newBase)
	_ = append(got.fromB2, 'X')
	_ = append(got.fromB, 'X')
	if !bytes.Equal(newBase, before) {
		t.Errorf("an append wrote into the base")
	}
	got.a = append(got.a[:1], 99)
	got.c = append(got.c[:1], 'X')
	if got.b[0] != 2 || string(got.d) != "abd" {
		t.Errorf("decoded slices share memory: b = %v, d = %q", got.b, got.d)
	}
}

func TestBaseIsWhatIsRead(t *testing.T) {
	t.Parallel()
	base := []byte(`{"id":"abc"}`)
	v := &struct{ ID string }{alias(base[7:10])}
	data, err := Encode(nil, v, base)
	if err != nil {
		t.Fatal(err)
	}
	// The caller checks the base's hash: a base with other bytes at the
	// offset is simply what is read.
	other := []byte(`{"id":"xyz"}`)
	got := &struct{ ID string }{}
	if err := Decode(data, got, other); err != nil {
		t.Fatal(err)
	}
	if got.ID != "xyz" {
		t.Errorf("ID = %q, want the new base's bytes xyz", got.ID)
	}
	// A base too short for the offsets is corrupt.
	if err := Decode(data, got, other[:9]); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Decode with a short base: %v, want ErrCorrupt", err)
	}
}

type bad struct {
	byID map[string]*badMsg
	list []badMsg
}

type badMsg struct {
	calls []badCall
	any   any
}

type badCall struct {
	name string
	fn   func()
	ch   chan int
	up   unsafe.Pointer
	addr uintptr
}

type interior struct {
	items []inner
	p     *inner
	whole *pair2
	first *int
	mid   *string
}

type pair2 struct {
	n int
	s string
}

func TestEncodeErrors(t *testing.T) {
	t.Parallel()
	calls := []badCall{{name: "a"}, {name: "b"}, {name: "c", fn: func() {}}}
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{"func", &bad{byID: map[string]*badMsg{"x": {calls: calls}}},
			"snap: bad.byID[…].calls[0].fn: func values cannot be saved"},
		{"chan", &struct{ ch chan int }{}, "snap: struct { ch chan int }.ch: chan values cannot be saved"},
		{"func in a slice", &bad{list: []badMsg{{}, {calls: calls[:1]}}},
			"snap: bad.list[1].calls[0].fn: func values cannot be saved"},
		{"interface", &bad{list: []badMsg{{any: 3}}},
			"snap: bad.list[0].any: interface values cannot be saved unless nil (this one holds a int)"},
		{"unsafe.Pointer", &struct{ up unsafe.Pointer }{}, "snap: struct { up unsafe.Pointer }.up: unsafe.Pointer values cannot be saved"},
		{"uintptr", &struct{ n uintptr }{}, "snap: struct { n uintptr }.n: uintptr values cannot be saved"},
		{"not a pointer", bad{}, "snap: Encode needs a non-nil pointer, not snap.bad"},
		{"nil", (*bad)(nil), "snap: Encode needs a non-nil pointer, not *snap.bad"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dst := []byte("kept")
			out, err := Encode(dst, c.v, nil)
			if err == nil || err.Error() != c.want {
				t.Fatalf("Encode: %v\nwant: %s", err, c.want)
			}
			if string(out) != "kept" {
				t.Errorf("dst = %q, want it unchanged", out)
			}
		})
	}
	type keyed struct{ m map[struct{ x any }]int }
	_, err := Encode(nil, &keyed{m: map[struct{ x any }]int{{x: 1}: 1}}, nil)
	if want := "snap: keyed.m[key].x: interface values cannot be saved unless nil (this one holds a int)"; err == nil || err.Error() != want {
		t.Errorf("Encode: %v\nwant: %s", err, want)
	}
	type rec []rec
	deep := rec{}
	for range maxDepth + 1 {
		deep = rec{deep}
	}
	if _, err := Encode(nil, &deep, nil); err == nil || !strings.HasSuffix(err.Error(), "slices and maps nest deeper than 1000") {
		t.Errorf("Encode of slices nested %d deep: %v", maxDepth+1, err)
	}
	// What Encode takes, Decode takes.
	if got, _ := roundTrip(t, &deep[0], nil); !reflect.DeepEqual(*got, deep[0]) {
		t.Errorf("slices nested %d deep do not round-trip", maxDepth)
	}
	// A func deep in the pointer graph: the path goes through the
	// pointers to it.
	m := &badMsg{calls: calls}
	_, err = Encode(nil, &bad{byID: map[string]*badMsg{"a": m}, list: []badMsg{{}}}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "snap: bad.byID[…].calls[") {
		t.Errorf("Encode: %v", err)
	}
}

func TestInteriorPointers(t *testing.T) {
	t.Parallel()
	items := []inner{{1}, {2}, {3}}
	w := &pair2{n: 1, s: "s"}
	for _, c := range []struct {
		name string
		v    *interior
		want string
	}{
		{"into a slice", &interior{items: items, p: &items[1]},
			"snap: interior.items and interior.p refer to overlapping memory; " + wholeRule},
		{"into a pointee", &interior{whole: w, mid: &w.s},
			"snap: interior.whole and interior.mid refer to overlapping memory; " + wholeRule},
		{"at a pointee's first field", &interior{whole: w, first: &w.n},
			"snap: interior.first: a pointer to int has the address of a snap.pair2 at interior.whole; " + wholeRule},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Encode(nil, c.v, nil)
			if err == nil || err.Error() != c.want {
				t.Fatalf("Encode: %v\nwant: %s", err, c.want)
			}
		})
	}
	base := []byte("0123456789")
	_, err := Encode(nil, &struct {
		raw []byte
		p   *byte
	}{base[2:5], &base[3]}, base)
	if want := "snap: struct { raw []uint8; p *uint8 }.p points into the base; " + wholeRule; err == nil || err.Error() != want {
		t.Errorf("Encode: %v\nwant: %s", err, want)
	}
	if _, err := Encode(nil, &struct{}{}, nil); err != nil {
		t.Errorf("Encode of a struct{}: %v", err)
	}
	// Whole values are fine, and so are slices sharing an array.
	if _, err := Encode(nil, &interior{items: items, whole: w}, nil); err != nil {
		t.Errorf("Encode: %v", err)
	}
	if _, err := Encode(nil, &arrays{a: []int{1, 2, 3}[:2], b: []int{1, 2, 3}[1:]}, nil); err != nil {
		t.Errorf("Encode: %v", err)
	}
}

// Shapes for Fingerprint: each differs from base1 in one way.
type (
	base1 struct {
		a, b string
		n    []int
		m    map[string]*base1
	}
	same1 struct {
		a, b string
		n    []int
		m    map[string]*same1
	} // another name, one shape
	added struct {
		a, b string
		n    []int
		m    map[string]*added
		c    bool
	}
	renamed struct {
		a, c string
		n    []int
		m    map[string]*renamed
	}
	retyped struct {
		a, b string
		n    []int64
		m    map[string]*retyped
	}
	keyed struct {
		a, b string
		n    []int
		m    map[int]*keyed
	}
	valued struct {
		a, b string
		n    []int
		m    map[string]base1
	}
	deepA struct {
		x []struct{ p *struct{ a int } }
	}
	deepB struct {
		x []struct{ p *struct{ b int } }
	}
	deepC struct {
		x []struct{ p *struct{ a uint } }
	}
)

func TestFingerprint(t *testing.T) {
	t.Parallel()
	f := Fingerprint((*base1)(nil))
	if g := Fingerprint(&base1{}); g != f {
		t.Errorf("Fingerprint of a value and of a nil pointer differ")
	}
	if g := Fingerprint((*same1)(nil)); g != f {
		t.Errorf("a type of the same shape has another fingerprint")
	}
	for name, g := range map[string]string{
		"added":   Fingerprint((*added)(nil)),
		"renamed": Fingerprint((*renamed)(nil)),
		"retyped": Fingerprint((*retyped)(nil)),
		"keyed":   Fingerprint((*keyed)(nil)),
		"valued":  Fingerprint((*valued)(nil)),
		"time":    Fingerprint((*struct{ t time.Time })(nil)),
		"state":   Fingerprint((*state)(nil)),
	} {
		if g == f {
			t.Errorf("%s: same fingerprint as base1", name)
		}
	}
	if a := Fingerprint((*deepA)(nil)); a == Fingerprint((*deepB)(nil)) || a == Fingerprint((*deepC)(nil)) {
		t.Errorf("a field renamed or retyped deep inside has the same fingerprint")
	}
	if Fingerprint((*struct{ t time.Time })(nil)) == Fingerprint((*struct {
		t struct {
			wall uint64
			ext  int64
			loc  *time.Location
		}
	})(nil)) {
		t.Errorf("time.Time has the fingerprint of its fields")
	}
}

// TestFingerprintStable checks that a fingerprint is the same in another
// process: it depends on nothing but the type.
func TestFingerprintStable(t *testing.T) {
	if os.Getenv("SNAP_PRINT_FINGERPRINT") == "1" {
		os.Stdout.WriteString(Fingerprint((*state)(nil)))
		os.Exit(0)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestFingerprintStable$")
	cmd.Env = append(os.Environ(), "SNAP_PRINT_FINGERPRINT=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), Fingerprint((*state)(nil)); got != want {
		t.Errorf("another process: %s, this one: %s", got, want)
	}
}

type corruptible struct {
	b    bool
	i8   int8
	u16  uint16
	f32  float32
	s    string
	raw  json.RawMessage
	ns   []int
	m    map[string]*node
	p    *node
	q    *pair2
	arr  [3]byte
	t    time.Time
	err  error
	emps map[struct{}]struct{}
}

func TestCorrupt(t *testing.T) {
	t.Parallel()
	base := []byte("0123456789")
	n := &node{val: 5}
	v := &corruptible{b: true, i8: -3, u16: 300, f32: 1.5, s: alias(base[2:6]), raw: json.RawMessage("raw"),
		ns: []int{1, 2}, m: map[string]*node{"n": n}, p: n, q: &pair2{1, "x"}, arr: [3]byte{1, 2, 3},
		t: time.Unix(1, 0).UTC(), emps: map[struct{}]struct{}{{}: {}}}
	data, err := Encode(nil, v, base)
	if err != nil {
		t.Fatal(err)
	}
	if err := Decode(data, new(corruptible), base); err != nil {
		t.Fatalf("Decode of the encoding: %v", err)
	}
	// Every truncation and every one-byte change is either an error or
	// some value, never a panic.
	for i := range data {
		if err := Decode(data[:i], new(corruptible), base); !errors.Is(err, ErrCorrupt) {
			t.Errorf("truncated to %d bytes: %v, want ErrCorrupt", i, err)
		}
		for _, x := range []byte{0, 1, 2, 0x7f, 0x80, 0xff} {
			d := bytes.Clone(data)
			d[i] = x
			if err := Decode(d, new(corruptible), base); err != nil && !errors.Is(err, ErrCorrupt) {
				t.Errorf("byte %d set to %#x: %v", i, x, err)
			}
		}
	}
	if err := Decode(append(bytes.Clone(data), 0), new(corruptible), base); err == nil || !strings.Contains(err.Error(), "1 bytes after the end") {
		t.Errorf("trailing byte: %v", err)
	}
	for _, c := range []struct {
		name string
		data []byte
		v    any
		want string
	}{
		{"bool", []byte{1, 2}, new(bool), "bool is 2"},
		{"int8", []byte{1, 0x80, 0x02}, new(int8), "128 overflows int8"},
		{"negative int8", []byte{1, 0x81, 0x02}, new(int8), "-129 overflows int8"},
		{"int32", []byte{1, 0x80, 0x80, 0x80, 0x80, 0x10}, new(int32), "2147483648 overflows int32"},
		{"uint8", []byte{1, 0x80, 0x02}, new(uint8), "256 overflows uint8"},
		{"uint16", []byte{1, 0x80, 0x80, 0x04}, new(flags), "65536 overflows snap.flags"},
		{"uint32", []byte{1, 0x80, 0x80, 0x80, 0x80, 0x10}, new(uint32), "4294967296 overflows uint32"},
		{"varint", []byte{1, 0x80}, new(int), "bad or truncated varint"},
		{"string past data", []byte{1, 20, 'a'}, new(string), "10 bytes of text do not fit in the 1 bytes left"},
		{"string past base", []byte{1, 21, 5}, new(string), "10 bytes at offset 5 run past the end of the base (10 bytes)"},
		{"huge slice", []byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, new([]int), "do not fit in the 0 bytes left"},
		{"values", []byte{3, 0}, new(*int), "3 values do not fit in the 1 bytes left"},
		{"fewer values", []byte{2, 0}, new(*int), "1 values, not 2"},
		{"more values", []byte{1, 1, 0}, new(**int), "more values than the 1 announced"},
		{"huge map", []byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2}, new(map[int]int), "do not fit in the 2 bytes left"},
		{"zero-key map", []byte{1, 3}, new(map[struct{}]struct{}), "2 entries in a map whose keys are all the zero value"},
		{"duplicate keys", []byte{1, 3, 2, 0, 2, 1}, new(map[int]int), "2 map entries of which 1 have distinct keys"},
		{"pointer id", []byte{1, 5}, new(*int), "pointer to value 3 of 1"},
		{"pointer type", []byte{1, 2}, new(*int), "a pointer to int refers to a *int"},
		{"interface", []byte{1, 1}, new(error), "a non-nil error, which Encode never writes"},
		{"func", []byte{1, 0}, new(func()), "a value of func(), which Encode never writes"},
		{"float32", []byte{1, 0x80, 0x80, 0x80, 0x80, 0x10}, new(float32), "float32 of more than 32 bits"},
		{"time", []byte{1, 1, 0}, new(time.Time), "Time.UnmarshalBinary"},
		{"big pointee", []byte{2, 1}, new(*[100]byte), "a new [100]uint8 (of at least 100 bytes) does not fit in the 0 bytes left"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// The data are one value (the count that starts them), then
			// the value.
			err := Decode(c.data, c.v, base)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Decode: %v, want ErrCorrupt with %q", err, c.want)
			}
		})
	}
}

// TestDecodeBoundsMemory checks that lengths claimed by the data are
// paid for by the data, however they nest.
func TestDecodeBoundsMemory(t *testing.T) {
	type rec []rec
	// Each level claims as many elements as bytes are left.
	var data []byte
	for range 200 {
		data = append(data, 0xe8, 0x07) // 1000 elements, header 1001
	}
	for range 100 {
		if err := Decode(data, new(rec), nil); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Decode: %v, want ErrCorrupt", err)
		}
	}
	allocs := testing.AllocsPerRun(10, func() { _ = Decode(data, new(rec), nil) })
	if allocs > 50 {
		t.Errorf("Decode of %d bytes made %v allocations", len(data), allocs)
	}
}

type entry struct {
	s   []int
	b   []byte
	p   *inner
	m   map[string]int
	e   error
	n   int16
	str string
}

// TestMapEntriesSetWhole checks that each map entry is decoded whole: the
// variables Decode reads entries into are reused, so a nil or zero field
// must not keep the entry before's value.
func TestMapEntriesSetWhole(t *testing.T) {
	t.Parallel()
	v := &struct{ m map[int]entry }{map[int]entry{}}
	for i := range 64 {
		if i%2 == 0 {
			v.m[i] = entry{s: []int{i}, b: []byte{byte(i)}, p: &inner{i}, m: map[string]int{"i": i}, n: int16(i), str: "x"}
		} else {
			v.m[i] = entry{}
		}
	}
	got, _ := roundTrip(t, v, nil)
	if !reflect.DeepEqual(got, v) {
		t.Errorf("round trip differs:\ngot  %+v\nwant %+v", got.m, v.m)
	}
}

type fresh struct {
	a  []*fresh
	m  map[string]fresh2
	at time.Time
}

type fresh2 struct{ s string }

// TestConcurrent encodes and decodes from several goroutines at once,
// types whose plans are compiled meanwhile (run it with -race).
func TestConcurrent(t *testing.T) {
	t.Parallel()
	errs := make(chan error, 8)
	for range cap(errs) {
		go func() {
			v := &fresh{m: map[string]fresh2{"k": {"v"}}}
			v.a = []*fresh{v, nil}
			data, err := Encode(nil, v, nil)
			if err == nil {
				got := new(fresh)
				err = Decode(data, got, nil)
				if err == nil && (got.a[0] != got || got.m["k"].s != "v" || Fingerprint(got) != Fingerprint(v)) {
					err = errors.New("the round trip lost something")
				}
			}
			errs <- err
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
