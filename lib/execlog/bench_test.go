package execlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/store"
)

// benchLog returns a log with n distinct inputs of size bytes.
func benchLog(n, size int) []byte {
	var b strings.Builder
	b.WriteString(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"bench"},"steps":[],"inputs":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		body := strings.Repeat(fmt.Sprintf("%08d", i), size/8+1)[:size]
		fmt.Fprintf(&b, `{"name":"in/%d.txt","content":"%s"}`, i, body)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// BenchmarkPack measures parse, validation, object writes and the durable
// commit in process, without process start-up: W1 is 5 inputs of 1 KiB,
// W2 1,000 of 10 KiB, each packed into a fresh store.
func BenchmarkPack(b *testing.B) {
	for _, w := range []struct {
		name    string
		n, size int
	}{{"W1", 5, 1 << 10}, {"W2", 1000, 10 << 10}} {
		data := benchLog(w.n, w.size)
		b.Run(w.name, func(b *testing.B) {
			b.SetBytes(int64(w.n * w.size))
			dir := b.TempDir()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				os.RemoveAll(filepath.Join(dir, fmt.Sprint(i-1)))
				s, _, err := store.Init(filepath.Join(dir, fmt.Sprint(i)))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				l, err := Parse(data, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := l.Pack(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
