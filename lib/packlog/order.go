package packlog

import (
	"bytes"
	"cmp"
	"container/heap"
	"os"
	"slices"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Compare orders entries as ctx-log lists them: newest created first;
// among equal times, descendants before their ancestors (as git log lists
// a commit before its parent), then the pack with more steps (snapshots of
// one agent session share its start as created, and a session grows), then
// the one packed later, then by hash ascending, so equal times still give
// one deterministic order. The descendant rule needs SetGenerations, the
// packing time SetPackTimes.
func Compare(a, b *Entry) int {
	switch {
	case a.sec != b.sec:
		if a.sec > b.sec {
			return -1
		}
		return 1
	case a.nsec != b.nsec:
		if a.nsec > b.nsec {
			return -1
		}
		return 1
	case a.gen != b.gen:
		if a.gen > b.gen {
			return -1
		}
		return 1
	case a.Steps != b.Steps:
		if a.Steps > b.Steps {
			return -1
		}
		return 1
	case a.packed != b.packed:
		if a.packed > b.packed {
			return -1
		}
		return 1
	}
	return bytes.Compare(a.Hash[:], b.Hash[:])
}

// SetGenerations records, for each entry, how many of its ancestors in es
// share its created time, so that Compare lists descendants first. Only
// entries whose time is not unique are looked at: usually none.
func SetGenerations(es []Entry) { setTies(es, nil) }

// setTies sets gen, and packed when s is not nil, for the entries whose
// created time is not unique.
func setTies(es []Entry, s *store.Store) {
	type instant struct {
		sec  int64
		nsec int32
	}
	times := make([]instant, len(es))
	for i := range es {
		times[i] = instant{es[i].sec, es[i].nsec}
	}
	slices.SortFunc(times, func(a, b instant) int {
		if c := cmp.Compare(a.sec, b.sec); c != 0 {
			return c
		}
		return cmp.Compare(a.nsec, b.nsec)
	})
	shared := map[instant]bool{}
	for i := 1; i < len(times); i++ {
		if times[i] == times[i-1] {
			shared[times[i]] = true
		}
	}
	if len(shared) == 0 {
		return
	}
	byHash := map[digest.Digest]int{}
	for i := range es {
		if shared[instant{es[i].sec, es[i].nsec}] {
			byHash[es[i].Hash] = i
			if s != nil {
				if fi, err := lstat(s.PackEntryPath(es[i].Hash)); err == nil {
					es[i].packed = fi.ModTime().UnixNano()
				}
			}
		}
	}
	for _, i := range byHash {
		n := int32(0)
		// Bounded: content hashes cannot form a cycle, but a corrupt store
		// must not hang the listing.
		for e := &es[i]; !e.Parent.IsZero() && int(n) < len(byHash); {
			j, ok := byHash[e.Parent]
			if !ok || es[j].sec != e.sec || es[j].nsec != e.nsec {
				break
			}
			n++
			e = &es[j]
		}
		es[i].gen = n
	}
}

// lstat is os.Lstat, counted by tests.
var lstat = os.Lstat

// SetPackTimes records when each entry whose created time another entry
// shares was packed (its packs/ file's modification time), for Compare,
// and sets the generations as SetGenerations does. Entries of unique
// times are not looked at: usually all of them.
func SetPackTimes(s *store.Store, es []Entry) { setTies(es, s) }

// Sort sorts entries newest first (Compare).
func Sort(es []Entry) {
	SetGenerations(es)
	slices.SortFunc(es, func(a, b Entry) int { return Compare(&a, &b) })
}

// top returns the n first entries of es in Compare order, newest first,
// among those keep accepts (all if keep is nil). It keeps a heap of at most
// n entries, so it costs O(len(es)·log n), not a full sort. n <= 0 means
// every accepted entry. inPlace lets it filter and sort es itself when it
// keeps everything, instead of a copy. With s not nil, it reads the
// packing times (SetPackTimes) of the entries it sorts: with n > 0, only
// of those as new as the n-th, not of the whole store.
func top(es []Entry, n int, keep func(*Entry) bool, inPlace bool, s *store.Store) []Entry {
	if n <= 0 || n >= len(es) {
		out := es[:0]
		if !inPlace {
			out = make([]Entry, 0, len(es))
		}
		for i := range es {
			if keep == nil || keep(&es[i]) {
				out = append(out, es[i])
			}
		}
		if s != nil {
			SetPackTimes(s, out)
		}
		Sort(out)
		if n > 0 && len(out) > n {
			out = out[:n]
		}
		return out
	}
	h := make(oldestFirst, 0, n)
	for i := range es {
		e := &es[i]
		if len(h) == n && Compare(e, h[0]) >= 0 {
			continue // not newer than the oldest kept: cheap rejection first
		}
		if keep != nil && !keep(e) {
			continue
		}
		if len(h) < n {
			heap.Push(&h, e)
		} else {
			h[0] = e
			heap.Fix(&h, 0)
		}
	}
	out := make([]Entry, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = *heap.Pop(&h).(*Entry)
	}
	if len(out) == 0 {
		return out
	}
	// The heap compared without generations, nor packing times. Among
	// entries created at the same instant a descendant comes first (a fork
	// keeps its parent's time), then the one packed later, so take every
	// accepted entry at least as new as the oldest kept — the kept ones
	// and their ties — and sort those fully.
	last := out[len(out)-1]
	cands := out[:0:0]
	for i := range es {
		e := &es[i]
		if e.sec < last.sec || e.sec == last.sec && e.nsec < last.nsec {
			continue
		}
		if keep == nil || keep(e) {
			cands = append(cands, *e)
		}
	}
	if s != nil {
		SetPackTimes(s, cands)
	}
	Sort(cands)
	return cands[:min(n, len(cands))]
}

// oldestFirst is a heap whose root is the entry that sorts last.
type oldestFirst []*Entry

func (h oldestFirst) Len() int           { return len(h) }
func (h oldestFirst) Less(i, j int) bool { return Compare(h[i], h[j]) > 0 }
func (h oldestFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *oldestFirst) Push(x any)        { *h = append(*h, x.(*Entry)) }
func (h *oldestFirst) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
