package packlog

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
)

func entry(t testing.TB, hash digest.Digest, created string) Entry {
	t.Helper()
	e, err := NewEntry(manifest.Summary{Hash: hash, Created: created, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func hashes(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Hash.Short())
	}
	return out
}

// Created times compare as instants: offsets and fractions count, and
// the hash breaks ties.
func TestSortOrder(t *testing.T) {
	t.Parallel()
	h := func(c byte) digest.Digest {
		var d digest.Digest
		for i := range d {
			d[i] = c
		}
		return d
	}
	es := []Entry{
		entry(t, h(0x11), "2026-02-10T09:30:00+02:00"), // 07:30Z
		entry(t, h(0x22), "2026-02-10T09:00:00Z"),
		entry(t, h(0x33), "2026-02-10T10:00:00+01:00"), // 09:00Z, a tie
		entry(t, h(0x44), "2026-02-10T09:00:00.000000001Z"),
		entry(t, h(0x05), "2026-02-10T09:00:00Z"), // a tie, smaller hash
		entry(t, h(0x66), "1969-12-31T23:59:59Z"), // before the epoch
	}
	Sort(es)
	want := []string{"444444444444", "050505050505", "222222222222", "333333333333", "111111111111", "666666666666"}
	if got := hashes(es); !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// top with a bounded heap gives exactly the first n of a full sort, for
// every n, with and without a filter, and many equal times.
func TestTop(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var es []Entry
	for i := range 300 {
		var d digest.Digest
		for j := range d {
			d[j] = byte(r.IntN(256))
		}
		created := base.Add(time.Duration(r.IntN(40)) * time.Second).Format(time.RFC3339)
		e := entry(t, d, created)
		e.Steps = i
		es = append(es, e)
	}
	sorted := slices.Clone(es)
	Sort(sorted)
	odd := func(e *Entry) bool { return e.Steps%2 == 1 }
	var sortedOdd []Entry
	for i := range sorted {
		if odd(&sorted[i]) {
			sortedOdd = append(sortedOdd, sorted[i])
		}
	}
	for _, n := range []int{0, 1, 2, 7, 20, 149, 150, 151, 299, 300, 301, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			want := sorted
			if n > 0 && n < len(want) {
				want = want[:n]
			}
			input := slices.Clone(es)
			if got := top(input, n, nil, false, nil); !slices.Equal(hashes(got), hashes(want)) {
				t.Errorf("top(%d) differs from the sort", n)
			}
			if !slices.EqualFunc(input, es, func(a, b Entry) bool { return a.Hash == b.Hash }) {
				t.Error("top reordered its input")
			}
			want = sortedOdd
			if n > 0 && n < len(want) {
				want = want[:n]
			}
			if got := top(slices.Clone(es), n, odd, false, nil); !slices.Equal(hashes(got), hashes(want)) {
				t.Errorf("top(%d, odd) differs from the sort", n)
			}
		})
	}
}

// TestDescendantsFirst lists a fork that kept its parent's created time
// before the parent, and a grandchild before both, whatever their hashes.
func TestDescendantsFirst(t *testing.T) {
	t.Parallel()
	at := "2026-01-01T00:00:00Z"
	mk := func(seed string, parent digest.Digest) Entry {
		e, err := NewEntry(manifest.Summary{Hash: digest.Of([]byte(seed)), Created: at, Model: "m", Parent: parent})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	root := mk("root", digest.Digest{})
	child := mk("child", root.Hash)
	grand := mk("grand", child.Hash)
	other := mk("other", digest.Of([]byte("elsewhere")))
	for _, perm := range [][]Entry{{root, child, grand, other}, {other, grand, root, child}, {child, other, grand, root}} {
		es := slices.Clone(perm)
		Sort(es)
		pos := map[digest.Digest]int{}
		for i, e := range es {
			pos[e.Hash] = i
		}
		if !(pos[grand.Hash] < pos[child.Hash] && pos[child.Hash] < pos[root.Hash]) {
			t.Fatalf("order %v: want grandchild, child, root", es)
		}
	}
}

// TestTopTiedFork: a fork keeps its parent's created time, so the newest
// pack is the child; top(1), as ctx-log -n 1 asks, must say so however the
// hashes compare, and with more packs around than it keeps.
func TestTopTiedFork(t *testing.T) {
	t.Parallel()
	h := func(c byte) digest.Digest {
		var d digest.Digest
		for i := range d {
			d[i] = c
		}
		return d
	}
	old := entry(t, h(0x01), "2026-02-09T09:00:00Z")
	parent := entry(t, h(0x22), "2026-02-10T09:00:00Z")
	child := entry(t, h(0x99), "2026-02-10T09:00:00Z")
	child.Parent = parent.Hash
	grandchild := entry(t, h(0x55), "2026-02-10T09:00:00Z")
	grandchild.Parent = child.Hash
	for n := 1; n <= 3; n++ {
		es := []Entry{old, parent, child, grandchild}
		got := hashes(top(es, n, nil, false, nil))
		want := hashes([]Entry{grandchild, child, parent}[:n])
		if !slices.Equal(got, want) {
			t.Errorf("top(%d) = %v, want %v", n, got, want)
		}
	}
	es := []Entry{old, parent, child}
	if got := hashes(top(es, 1, nil, false, nil)); !slices.Equal(got, hashes([]Entry{child})) {
		t.Errorf("Top(1) after a fork = %v, want the child %v", got, child.Hash.Short())
	}
}

// Among packs created at one instant (the snapshots of an agent session
// share its start), the one with more steps comes first, then the one
// packed later, then the lower hash; a descendant still precedes its
// ancestor.
func TestSortTies(t *testing.T) {
	t.Parallel()
	h := func(c byte) digest.Digest {
		var d digest.Digest
		for i := range d {
			d[i] = c
		}
		return d
	}
	at := "2026-03-01T10:00:01Z"
	mk := func(c byte, steps int, packed int64) Entry {
		e := entry(t, h(c), at)
		e.Steps, e.packed = steps, packed
		return e
	}
	es := []Entry{
		mk(1, 6, 300), // first snapshot, packed last (a re-pack)
		mk(2, 22, 100),
		mk(3, 14, 200),
		mk(4, 14, 250), // as many steps as 3, packed later
		mk(5, 14, 250), // same steps and time as 4: the hash decides
	}
	fork := mk(6, 1, 50) // a fork of 2, with fewer steps and packed earlier
	fork.Parent = h(2)
	es = append(es, fork)
	for range 20 {
		rand.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		Sort(es)
		want := []string{h(6).Short(), h(2).Short(), h(4).Short(), h(5).Short(), h(3).Short(), h(1).Short()}
		if got := hashes(es); !slices.Equal(got, want) {
			t.Fatalf("order = %v, want %v", got, want)
		}
	}
}
