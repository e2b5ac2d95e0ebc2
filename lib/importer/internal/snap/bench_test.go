package snap

import (
	"sync"
	"testing"
)

// A checkpoint of a 20 MB session: about 5,000 structs of 10–20 fields
// (1,250 messages, each with a call, a step and their outputs), with
// strings and raw JSON slicing the transcript.
var bench = sync.OnceValues(func() (*state, []byte) {
	base, lines := transcript(20 << 20)
	return newState(base, lines, 1250), base
})

func BenchmarkEncode(b *testing.B) {
	s, base := bench()
	data, err := Encode(nil, s, base)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	buf := make([]byte, 0, len(data))
	for b.Loop() {
		if _, err := Encode(buf[:0], s, base); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	s, base := bench()
	data, err := Encode(nil, s, base)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(data, new(state), base); err != nil {
			b.Fatal(err)
		}
	}
}
