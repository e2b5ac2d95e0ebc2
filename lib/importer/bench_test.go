package importer

import (
	"runtime"
	"strings"
	"testing"
)

// BenchmarkOneLine32MB imports an Inspect log of one 32 MB line (a
// message with a line break every few bytes): alloc-x is the bytes
// allocated per input byte, which the streamed writing of large text
// (lib/execlog/stream.go) and the copy-free parse keep near three.
func BenchmarkOneLine32MB(b *testing.B) {
	data := []byte(`{"version":2,"eval":{"model":"m"},"samples":[{"id":1,"epoch":1,"messages":[{"role":"user","content":"` +
		strings.Repeat(`abc def\n`, 32<<20/9) + `"},{"role":"assistant","content":"ok"}]}]}`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	for b.Loop() {
		if _, _, err := Import(Inspect, data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.TotalAlloc-before)/float64(b.N)/float64(len(data)), "alloc-x")
}
