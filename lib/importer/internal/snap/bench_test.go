package snap

import (
	"sync"
	"syscall"
	"testing"
	"time"
)

// A checkpoint of a 20 MB session: 5,100 structs of 8–14 fields (1,700
// messages, each with a call and a step) and 8,500 smaller ones inline,
// with strings and raw JSON slicing lines spread over the whole
// transcript.
var bench = sync.OnceValues(func() (*state, []byte) {
	base, lines := transcript(20 << 20)
	var some [][2]int
	for i := 0; i < len(lines); i += len(lines) / 1700 {
		some = append(some, lines[i])
	}
	return newState(base, some, 1700), base
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
	defer reportCPU(b)()
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
	defer reportCPU(b)()
	for b.Loop() {
		if err := Decode(data, new(state), base); err != nil {
			b.Fatal(err)
		}
	}
}

// reportCPU reports the CPU time (user and system, of all threads, so the
// garbage collector's included) per operation: on a shared machine it
// varies less than ns/op, which counts time spent waiting for a core.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op") }
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
