package drift

import (
	"math/bits"
	"slices"
	"sort"
)

// Match is a run of equal elements in an alignment: a[A:A+N] equals
// b[B:B+N].
type Match struct {
	A, B, N int
}

// Align returns a common subsequence of a and b as matching runs, in
// increasing order of both A and B, with adjacent runs merged. Elements of
// a outside every run are deleted and elements of b outside every run are
// inserted: the runs are an edit script from a to b.
//
// The result is a longest common subsequence whenever the two sequences
// are close (see the package documentation for the bound); otherwise it is
// anchored on elements that occur exactly once in both, as patience diff
// does. Time is O((N+M)·log(N+M)) in every case.
func Align[T comparable](a, b []T) []Match {
	ia, ib := number(make(map[T]int32, len(a)), a, b, nil, nil)
	var x aligner
	return x.align(ia, ib)
}

// number numbers the elements of a and b for alignment, appending their
// ids to ia and ib: equal elements have equal ids, in ids (empty when
// given), and elements of b that a lacks share one that no element of a
// has, so they cost nothing but still differ from a.
func number[T comparable](ids map[T]int32, a, b []T, ia, ib []int32) ([]int32, []int32) {
	for _, v := range a {
		id, ok := ids[v]
		if !ok {
			id = int32(len(ids))
			ids[v] = id
		}
		ia = append(ia, id)
	}
	missing := int32(len(ids))
	for _, v := range b {
		id, ok := ids[v]
		if !ok {
			id = missing
		}
		ib = append(ib, id)
	}
	return ia, ib
}

// Alignment cost bounds, in units of element comparisons.
const (
	// budgetFactor scales the total work allowed: budgetFactor·(N+M)·
	// (log2(N+M)+1).
	budgetFactor = 64
	// myersFactor and myersBase bound one exact attempt on a range of n+m
	// elements to myersFactor·(n+m) + myersBase comparisons: enough for
	// an edit distance D with D² about that.
	myersFactor = 64
	myersBase   = 1 << 16
	// maxMyersD caps the edit distance an exact attempt looks for, which
	// bounds its trace memory to maxMyersD² entries.
	maxMyersD = 1024
)

// aligner aligns two sequences of ids. Its buffers are kept from one
// alignment to the next (a diff of a thousand outputs aligns a thousand
// pairs of a few lines each).
type aligner struct {
	a, b   []int32
	budget int
	out    []Match
	// occurrence counts per id, zero outside a patience step
	ca, cb []int32
	pb     []int32 // position in b of an id counted once there
	// myers' working memory
	v, trace []int32
}

// align returns the matching runs of a and b (Align), in x.out: valid
// until x aligns again.
func (x *aligner) align(a, b []int32) []Match {
	n := len(a) + len(b)
	x.a, x.b = a, b
	x.budget = budgetFactor*n*(bits.Len(uint(n))+1) + 4*myersBase
	x.out = x.out[:0]
	x.run(0, len(a), 0, len(b))
	return merge(x.out)
}

func (x *aligner) emit(ai, bi, n int) {
	if n > 0 {
		x.out = append(x.out, Match{ai, bi, n})
	}
}

// run aligns a[alo:ahi] with b[blo:bhi], appending matches in order.
func (x *aligner) run(alo, ahi, blo, bhi int) {
	if x.budget <= 0 {
		return
	}
	// Common prefix and suffix.
	p := 0
	for alo+p < ahi && blo+p < bhi && x.a[alo+p] == x.b[blo+p] {
		p++
	}
	x.emit(alo, blo, p)
	alo, blo = alo+p, blo+p
	s := 0
	for alo < ahi-s && blo < bhi-s && x.a[ahi-1-s] == x.b[bhi-1-s] {
		s++
	}
	x.budget -= p + s + 1
	defer x.emit(ahi-s, bhi-s, s)
	ahi, bhi = ahi-s, bhi-s
	if alo == ahi || blo == bhi {
		return
	}
	n := ahi - alo + bhi - blo
	limit := min(myersFactor*n+myersBase, x.budget)
	if x.myers(alo, ahi, blo, bhi, limit) {
		return
	}
	x.patience(alo, ahi, blo, bhi)
}

// myers finds a shortest edit script between the ranges with Myers' O(ND)
// greedy algorithm, giving up once it has spent limit comparisons or the
// distance exceeds maxMyersD. It reports whether it succeeded; work spent
// is charged to the budget either way.
func (x *aligner) myers(alo, ahi, blo, bhi, limit int) bool {
	a, b := x.a[alo:ahi], x.b[blo:bhi]
	n, m := len(a), len(b)
	dmax := min(n+m, maxMyersD)
	off := dmax + 1
	x.v = slices.Grow(x.v[:0], 2*dmax+3)[:2*dmax+3]
	v := x.v
	clear(v)
	trace := x.trace[:0] // V after step d, for k in [-d, d], at trace[d*d:]
	defer func() { x.trace = trace[:0] }()
	cost := 0
	defer func() { x.budget -= cost }()
	for d := 0; d <= dmax; d++ {
		for k := -d; k <= d; k += 2 {
			var xi int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				xi = int(v[off+k+1])
			} else {
				xi = int(v[off+k-1]) + 1
			}
			yi := xi - k
			for xi < n && yi < m && a[xi] == b[yi] {
				xi++
				yi++
				cost++
			}
			cost++
			v[off+k] = int32(xi)
			if xi >= n && yi >= m {
				trace = append(trace, v[off-d:off+d+1]...)
				x.backtrack(trace, d, k, n, alo, blo)
				return true
			}
		}
		if cost > limit {
			return false
		}
		trace = append(trace, v[off-d:off+d+1]...)
	}
	return false
}

// backtrack walks the Myers trace back from (n, m) on diagonal k at step
// d, emitting the snakes in increasing order.
func (x *aligner) backtrack(trace []int32, d, k, n, alo, blo int) {
	start := len(x.out)
	xi := n
	for ; d > 0; d-- {
		prev := trace[(d-1)*(d-1):]
		at := func(k int) int { return int(prev[k+d-1]) }
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		sx := px // start of this step's snake
		if pk == k-1 {
			sx = px + 1
		}
		if xi > sx {
			x.out = append(x.out, Match{alo + sx, blo + sx - k, xi - sx})
		}
		xi, k = px, pk
	}
	if xi > 0 {
		x.out = append(x.out, Match{alo, blo, xi})
	}
	// Reverse what was appended, since it was found end first.
	r := x.out[start:]
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
}

// patience anchors the ranges on elements that occur exactly once in each,
// keeping the longest increasing run of them (patience sorting), and
// aligns the gaps between anchors recursively.
func (x *aligner) patience(alo, ahi, blo, bhi int) {
	if x.ca == nil || len(x.ca) < len(x.a)+1 {
		// Ids are below len(a)+1 (number); the counts are zero
		// outside a patience step, so they last from one alignment to
		// the next.
		size := len(x.a) + 1
		x.ca = make([]int32, size)
		x.cb = make([]int32, size)
		x.pb = make([]int32, size)
	}
	for _, id := range x.a[alo:ahi] {
		x.ca[id]++
	}
	for j := blo; j < bhi; j++ {
		id := x.b[j]
		x.cb[id]++
		x.pb[id] = int32(j)
	}
	// Unique pairs in order of a; their b positions are what patience
	// sorting finds the longest increasing subsequence of.
	type pair struct{ i, j int32 }
	var pairs []pair
	for i := alo; i < ahi; i++ {
		id := x.a[i]
		if x.ca[id] == 1 && x.cb[id] == 1 {
			pairs = append(pairs, pair{int32(i), x.pb[id]})
		}
	}
	for _, id := range x.a[alo:ahi] {
		x.ca[id] = 0
	}
	for _, id := range x.b[blo:bhi] {
		x.cb[id] = 0
	}
	x.budget -= ahi - alo + bhi - blo + len(pairs)*(bits.Len(uint(len(pairs)))+1)
	if len(pairs) == 0 {
		return
	}
	// tops[h] is the index in pairs of the smallest tail of an increasing
	// run of length h+1; back links each pair to its predecessor.
	var tops []int
	back := make([]int, len(pairs))
	for p, pr := range pairs {
		h := sort.Search(len(tops), func(h int) bool { return pairs[tops[h]].j >= pr.j })
		back[p] = -1
		if h > 0 {
			back[p] = tops[h-1]
		}
		if h == len(tops) {
			tops = append(tops, p)
		} else {
			tops[h] = p
		}
	}
	anchors := make([]pair, len(tops))
	for p, h := tops[len(tops)-1], len(tops)-1; p >= 0; p, h = back[p], h-1 {
		anchors[h] = pairs[p]
	}
	ai, bi := alo, blo
	for _, an := range anchors {
		x.run(ai, int(an.i), bi, int(an.j))
		x.emit(int(an.i), int(an.j), 1)
		ai, bi = int(an.i)+1, int(an.j)+1
	}
	x.run(ai, ahi, bi, bhi)
}

// merge joins adjacent runs.
func merge(ms []Match) []Match {
	out := ms[:0]
	for _, m := range ms {
		if k := len(out) - 1; k >= 0 && out[k].A+out[k].N == m.A && out[k].B+out[k].N == m.B {
			out[k].N += m.N
			continue
		}
		out = append(out, m)
	}
	return out
}
