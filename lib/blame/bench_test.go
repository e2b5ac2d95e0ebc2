package blame

import (
	"testing"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/store"
)

// BenchmarkBlame is ctx-blame's work on save: a 2,000-line file against
// a store of 1,000 packs, after a first run filled the cache
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
	c := OpenCache(b.TempDir())
	if _, _, err := New(s, ps, c); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		ix, st, err := New(s, ps, c)
		if err != nil {
			b.Fatal(err)
		}
		if st.Cached != len(ps) {
			b.Fatalf("%d of %d packs from the cache", st.Cached, len(ps))
		}
		ls := mustBlame(b, ix, "big.go", content)
		if ls[0].Origin == nil || ls[len(ls)-1].Origin == nil {
			b.Fatal("big.go not attributed")
		}
	}
}
