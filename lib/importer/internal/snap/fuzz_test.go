package snap

import (
	"encoding/json"
	"runtime"
	"testing"
	"time"
)

// fuzzBase is the base every fuzzed decoding reads strings from.
var fuzzBase, fuzzLines = transcript(8 << 10)

// fuzzTargets are the types FuzzDecode decodes into, chosen by the first
// byte of the input, with a value of each to seed the corpus.
var fuzzTargets = []struct {
	new  func() any
	seed func() any
}{
	{func() any { return new(state) }, func() any { return newState(fuzzBase, fuzzLines, 3) }},
	{func() any { return new(nils) }, func() any {
		return &nils{emptySlice: []int{}, emptyMap: map[string]int{}, emptyRaw: json.RawMessage{}, inList: list{nil, {}}}
	}},
	{func() any { return new(corruptible) }, func() any {
		n := &node{val: 5}
		return &corruptible{b: true, i8: -3, s: alias(fuzzBase[2:6]), raw: json.RawMessage("raw"), ns: []int{1},
			m: map[string]*node{"n": n}, p: n, t: time.Unix(1, 0).UTC(), emps: map[struct{}]struct{}{{}: {}}}
	}},
	{func() any { return new(cycle) }, func() any {
		c := &cycle{ring: &node{val: 1}, zeros: []*struct{}{{}, nil}}
		c.self, c.ring.next = c, c.ring
		return c
	}},
	{func() any { return new(kinds) }, func() any {
		return &kinds{S: "s", Bytes: []byte{1}, Map: map[string]int{"a": 1}, byKey: map[key][]int{{"a", "b"}: {1}},
			nested: map[string]map[string][]string{"o": {"i": {"s"}}}, ptrs: []*inner{{1}, nil}, times: []time.Time{{}}}
	}},
}

// FuzzDecode checks that Decode never panics, and that what it decodes
// encodes and decodes again.
func FuzzDecode(f *testing.F) {
	for i, target := range fuzzTargets {
		data, err := Encode([]byte{byte(i)}, target.seed(), fuzzBase)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		target := fuzzTargets[int(data[0])%len(fuzzTargets)]
		v := target.new()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := Decode(data[1:], v, fuzzBase)
		runtime.ReadMemStats(&after)
		// A generous bound: what Decode allocates is paid for by the
		// data, at some tens of bytes of memory for a byte of data.
		if n := after.TotalAlloc - before.TotalAlloc; n > uint64(256*len(data)+64<<10) {
			t.Fatalf("Decode of %d bytes allocated %d bytes", len(data), n)
		}
		if err != nil {
			return
		}
		again, err := Encode(nil, v, fuzzBase)
		if err != nil {
			t.Fatalf("Encode of a decoded value: %v", err)
		}
		if err := Decode(again, target.new(), fuzzBase); err != nil {
			t.Fatalf("Decode of an encoded decoded value: %v", err)
		}
	})
}
