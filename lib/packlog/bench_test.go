package packlog

import (
	"os"
	"testing"

	"github.com/ctx-tools/ctx/internal/testsys"
	"github.com/ctx-tools/ctx/lib/store"
)

// BenchmarkListStore lists the store named by $CTX_BENCH_STORE (made by
// scripts/genpacks); scripts/bench-log.sh measures the binary end to end.
func benchStore(b *testing.B) *store.Store {
	dir := os.Getenv("CTX_BENCH_STORE")
	if dir == "" {
		b.Skip("set CTX_BENCH_STORE to a store made by scripts/genpacks")
	}
	s, err := store.OpenAt(dir)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// reportCPU adds a cpu-ns/op metric: on a shared machine wall time
// measures the neighbours, CPU time measures the code.
func reportCPU(b *testing.B) func() {
	start := testsys.CPUTime()
	return func() { b.ReportMetric(float64(testsys.CPUTime()-start)/float64(b.N), "cpu-ns/op") }
}

func BenchmarkReadDir(b *testing.B) {
	s := benchStore(b)
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := s.Packs(""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRead(b *testing.B) {
	s := benchStore(b)
	defer reportCPU(b)()
	for b.Loop() {
		es, probs, err := Read(s)
		if err != nil || len(probs) > 0 || len(es) == 0 {
			b.Fatal(err, probs)
		}
	}
}

func BenchmarkListAll(b *testing.B) {
	s := benchStore(b)
	defer reportCPU(b)()
	for b.Loop() {
		l, err := List(s, Options{})
		if err != nil || len(l.Entries) == 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkList20(b *testing.B) {
	s := benchStore(b)
	defer reportCPU(b)()
	for b.Loop() {
		l, err := List(s, Options{Limit: 20})
		if err != nil || len(l.Entries) != 20 {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeAll(b *testing.B) {
	s := benchStore(b)
	l, err := List(s, Options{})
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 1<<16)
	defer reportCPU(b)()
	for b.Loop() {
		for i := range l.Entries {
			buf = l.Entries[i].AppendJSON(buf[:0])
		}
	}
}

func BenchmarkList20Cached(b *testing.B) {
	s := benchStore(b)
	opt := Options{Limit: 20, CacheDir: b.TempDir()}
	if _, err := List(s, opt); err != nil { // writes the cache
		b.Fatal(err)
	}
	defer reportCPU(b)()
	for b.Loop() {
		l, err := List(s, opt)
		if err != nil || len(l.Entries) != 20 {
			b.Fatal(err)
		}
	}
}

func BenchmarkListAllCached(b *testing.B) {
	s := benchStore(b)
	opt := Options{CacheDir: b.TempDir()}
	if _, err := List(s, opt); err != nil {
		b.Fatal(err)
	}
	defer reportCPU(b)()
	for b.Loop() {
		l, err := List(s, opt)
		if err != nil || len(l.Entries) == 0 {
			b.Fatal(err)
		}
	}
}
