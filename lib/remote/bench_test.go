package remote

import (
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// BenchmarkPull10k pulls a 10,000-object pack (W3's shape: 1 KiB
// objects) from the in-process registry into an empty store, in process;
// scripts/bench-remote.sh measures the binaries against docker-registry.
func BenchmarkPull10k(b *testing.B) {
	reg := newRegistry(b)
	a := newStore(b)
	m := makePack(b, a, "bench", sizes(10000, 1024), digest.Digest{})
	c := reg.client(b, "bench")
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		s, _, err := store.Init(b.TempDir() + "/.ctx")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := c.Pull(ctx, s, m.Hash.Hex(), PullOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuild10k lays out the same pack: what a re-push costs locally.
func BenchmarkBuild10k(b *testing.B) {
	a := newStore(b)
	m := makePack(b, a, "bench", sizes(10000, 1024), digest.Digest{})
	b.ResetTimer()
	for range b.N {
		if _, err := Build(ctx, a, m.Hash, 8); err != nil {
			b.Fatal(err)
		}
	}
}
