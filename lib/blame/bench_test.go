package blame

import (
	"testing"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/store"
)

// BenchmarkBlame is ctx-blame's work on save: a 2,000-line file against
// a store of 1,000 packs, after a first run filled the file index
// (scripts/bench-blame.sh measures the command end to end).
func BenchmarkBlame(b *testing.B) {
	s, _, err := store.Init(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	ps, content, err := packgen.Edits(s, 1000, 2000)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	ix, err := openLazy(s, dir, ps)
	if err != nil {
		b.Fatal(err)
	}
	mustBlame(b, ix, "big.go", content)
	b.ResetTimer()
	for range b.N {
		ix, err := openLazy(s, dir, ps)
		if err != nil {
			b.Fatal(err)
		}
		ls := mustBlame(b, ix, "big.go", content)
		if ls[0].Origin == nil || ls[len(ls)-1].Origin == nil {
			b.Fatal("big.go not attributed")
		}
	}
}
