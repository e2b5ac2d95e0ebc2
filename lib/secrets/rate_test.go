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

// BenchmarkScanText is the text scan rate: 8 MB of the shared agent
// sessions as one object, on every core (SetBytes: MB/s).
func BenchmarkScanText(b *testing.B) {
	text := sharedText(b, 8<<20)
	sc := newScanner(b)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		sc.scan(text)
	}
}
