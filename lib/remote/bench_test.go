package remote

import (
	"fmt"
	"net/http"
	"testing"
	"time"

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

// BenchmarkReferrers fetches 200 referrers of a pack from a registry
// that takes 2ms to answer each manifest and blob request, one at a time
// (jobs=1) and --jobs at a time (8).
func BenchmarkReferrers(b *testing.B) {
	reg := newRegistry(b)
	a := newStore(b)
	m := makePack(b, a, "refs", sizes(2, 20), digest.Digest{})
	c := reg.client(b, "refs")
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{}); err != nil {
		b.Fatal(err)
	}
	subject, err := c.PackDescriptor(ctx, m.Hash.Hex())
	if err != nil {
		b.Fatal(err)
	}
	rp := reg.raw(b, "refs")
	for i := range 200 {
		plantReferrer(b, rp, subject, ReportMediaType, ReportMediaType, fmt.Sprintf("r%03d.html", i), []byte(fmt.Sprint(i)))
	}
	reg.c.fault = func(k string, _ *http.Request) *http.Response {
		if k == "GET manifest" || k == "GET blob" {
			time.Sleep(2 * time.Millisecond) // a round trip
		}
		return nil
	}
	for _, jobs := range []int{1, 8} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			c.jobs = jobs
			for range b.N {
				if _, _, err := c.FetchReferrers(ctx, subject, b.TempDir(), ReferrerOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
