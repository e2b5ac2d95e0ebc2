package secrets

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkScanW3Object scans objects like those of the W3 pack
// (scripts/genlog: 1 KiB of random lowercase letters), the worst case of
// gitleaks' rules: nearly every keyword occurs, and the letters decode
// as base64. It reports the CPU time per object, and on how many of them
// the generic rule had to run (mayAssign).
func BenchmarkScanW3Object(b *testing.B) {
	sc := newScanner(b)
	r := rand.New(rand.NewPCG(1, 2))
	texts := make([]string, 2000)
	for i := range texts {
		buf := make([]byte, 1024)
		for j := range buf {
			buf[j] = byte('a' + r.IntN(26))
		}
		texts[i] = string(buf)
	}
	c0 := cpuTime()
	for b.Loop() {
		for _, t := range texts {
			sc.scan(t)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/float64(len(texts))/1e3, "cpu-us/obj")
	gen := 0
	for _, t := range texts {
		if strings.ContainsAny(t, assignChars) || mayAssign(t) {
			gen++
		}
	}
	b.ReportMetric(float64(gen), "gen-runs")
}
