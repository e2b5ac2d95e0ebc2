package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
)

// sharedText returns n bytes of the shared agent sessions, concatenated
// as often as needed (what scripts/bench-secrets.sh scans as text-64MB).
func sharedText(tb testing.TB, n int) string {
	tb.Helper()
	dir := sharedtest.Dir(tb, "agent-logs")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json*"))
	var b strings.Builder
	for b.Len() < n {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			b.Write(data)
		}
	}
	return b.String()[:n]
}

// BenchmarkScanText is the text scan rate (MB/s) of one object of 2 MB
// of the shared agent sessions, on every core: windowed is the scan,
// whole runs every rule over every chunk holding one of its keywords
// (the scan before windows, and gitleaks' own way).
func BenchmarkScanText(b *testing.B) {
	text := sharedText(b, 2<<20)
	sc := newScanner(b)
	for _, m := range []struct {
		name string
		f    func(string) []hit
	}{{"windowed", sc.detect}, {"whole", sc.detectWhole}} {
		b.Run(m.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			cpu0 := cpuTime()
			for b.Loop() {
				each(text, m.f)
			}
			b.ReportMetric(float64(len(text))*float64(b.N)/(float64(cpuTime()-cpu0)/1e9)/1e6, "MB/cpu-s")
		})
	}
}
