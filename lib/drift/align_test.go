package drift

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// lcsLen is the textbook O(nm) dynamic programme, the reference Align is
// checked against.
func lcsLen[T comparable](a, b []T) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkAlignment fails unless ms is a valid alignment of a and b: runs in
// increasing order, not adjacent, of equal elements, and applying the edit
// script they describe to a gives b. It returns the number of matched
// elements.
func checkAlignment[T comparable](t testing.TB, a, b []T, ms []Match) int {
	t.Helper()
	matched := 0
	ai, bi := 0, 0
	var got []T // a with the script applied
	var kept []T
	for k, m := range ms {
		if m.N <= 0 || m.A < ai || m.B < bi || m.A+m.N > len(a) || m.B+m.N > len(b) {
			t.Fatalf("run %d %+v out of order or range (a %d, b %d, after a[%d] b[%d])", k, m, len(a), len(b), ai, bi)
		}
		if k > 0 && m.A == ai && m.B == bi {
			t.Fatalf("run %d %+v not merged with the previous one", k, m)
		}
		// a[ai:m.A] deleted, b[bi:m.B] inserted
		kept = append(kept, a[ai:m.A]...)
		got = append(got, b[bi:m.B]...)
		for i := 0; i < m.N; i++ {
			if a[m.A+i] != b[m.B+i] {
				t.Fatalf("run %d %+v: a[%d] != b[%d]", k, m, m.A+i, m.B+i)
			}
		}
		got = append(got, a[m.A:m.A+m.N]...)
		kept = append(kept, a[m.A:m.A+m.N]...)
		matched += m.N
		ai, bi = m.A+m.N, m.B+m.N
	}
	kept = append(kept, a[ai:]...)
	got = append(got, b[bi:]...)
	if !slices.Equal(got, b) {
		t.Fatalf("applying the alignment does not give b")
	}
	if !slices.Equal(kept, a) {
		t.Fatalf("the alignment does not cover a")
	}
	return matched
}

func TestAlign(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want []Match
	}{
		{"", "", nil},
		{"abc", "", nil},
		{"", "abc", nil},
		{"abc", "abc", []Match{{0, 0, 3}}},
		{"abc", "axc", []Match{{0, 0, 1}, {2, 2, 1}}},
		{"abcdef", "abXcdef", []Match{{0, 0, 2}, {2, 3, 4}}},
		{"abXcdef", "abcdef", []Match{{0, 0, 2}, {3, 2, 4}}},
		{"abc", "xyz", nil},
		{"abcabba", "cbabac", nil}, // Myers' example: LCS length 4
	}
	for _, tt := range tests {
		t.Run(tt.a+"_"+tt.b, func(t *testing.T) {
			t.Parallel()
			a, b := []byte(tt.a), []byte(tt.b)
			got := Align(a, b)
			n := checkAlignment(t, a, b, got)
			if want := lcsLen(a, b); n != want {
				t.Errorf("matched %d, want LCS length %d", n, want)
			}
			if tt.want != nil && !slices.Equal(got, tt.want) {
				t.Errorf("Align = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestAlignOneInsertion is the step alignment promise: one inserted
// element gives one insertion, however long the sequences.
func TestAlignOneInsertion(t *testing.T) {
	t.Parallel()
	a := make([]string, 10000)
	for i := range a {
		a[i] = fmt.Sprintf("read_file src/%d.go", i)
	}
	for _, at := range []int{0, 1, 5000, 9999, 10000} {
		b := slices.Insert(slices.Clone(a), at, "grep TODO")
		got := Align(a, b)
		want := []Match{{0, 0, at}, {at, at + 1, 10000 - at}}
		if at == 0 {
			want = want[1:]
		}
		if at == 10000 {
			want = want[:1]
		}
		if !slices.Equal(got, want) {
			t.Errorf("insert at %d: Align = %v, want %v", at, got, want)
		}
	}
}

// TestAlignExactWhenClose checks minimality against the quadratic
// reference on random sequences over small alphabets, where repeated
// elements make unique anchors rare.
func TestAlignExactWhenClose(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 2000; iter++ {
		n := r.IntN(60)
		alpha := 1 + r.IntN(6)
		a := make([]int, n)
		for i := range a {
			a[i] = r.IntN(alpha)
		}
		b := slices.Clone(a)
		for e := r.IntN(8); e > 0; e-- {
			switch {
			case len(b) > 0 && r.IntN(2) == 0:
				i := r.IntN(len(b))
				b = slices.Delete(b, i, i+1)
			default:
				b = slices.Insert(b, r.IntN(len(b)+1), r.IntN(alpha+2))
			}
		}
		got := checkAlignment(t, a, b, Align(a, b))
		if want := lcsLen(a, b); got != want {
			t.Fatalf("a=%v b=%v: matched %d, want LCS length %d", a, b, got, want)
		}
	}
}

// TestAlignFarApart checks that sequences too far apart for the exact
// search still give a valid alignment that keeps the unique anchors.
func TestAlignFarApart(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	n := 20000
	a := make([]int, n)
	b := make([]int, n)
	for i := range a {
		a[i] = i
		b[i] = i
		if r.IntN(3) == 0 {
			b[i] = -1 - r.IntN(4) // repeated, never in a
		}
	}
	got := checkAlignment(t, a, b, Align(a, b))
	want := lcsLenSparse(a, b)
	if got != want {
		t.Errorf("matched %d, want %d", got, want)
	}
}

// lcsLenSparse counts the elements of a that b keeps in place, the LCS of
// TestAlignFarApart's sequences.
func lcsLenSparse(a, b []int) int {
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return n
}

func TestAlignStrings(t *testing.T) {
	t.Parallel()
	a := strings.Split("the quick brown fox jumps over the lazy dog", " ")
	b := strings.Split("the quick red fox jumps over the dog again", " ")
	got := checkAlignment(t, a, b, Align(a, b))
	if want := lcsLen(a, b); got != want {
		t.Errorf("matched %d, want %d", got, want)
	}
}

// An aligner used again, as Unified's kept scratch is, aligns as a new
// one does: pairs near and far apart (myers, then patience and the
// budget), long and short, one after the other.
func TestAlignerReused(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	var x aligner
	for iter := range 300 {
		n := 1 + r.IntN(50)
		if iter%10 == 0 {
			n = 3000 + r.IntN(3000)
		}
		a, b := make([]int, n), make([]int, n)
		for i := range a {
			a[i], b[i] = r.IntN(n), r.IntN(n)
			if iter%2 == 0 {
				b[i] = a[i] // close: only a few changes
				if r.IntN(8) == 0 {
					b[i] = -1
				}
			}
		}
		ia, ib := number(map[int]int32{}, a, b, nil, nil)
		want := Align(a, b)
		if got := x.align(ia, ib); !slices.Equal(got, want) {
			t.Fatalf("iteration %d: aligned again %v, new %v", iter, got, want)
		}
		for id := range x.ca {
			if x.ca[id] != 0 || x.cb[id] != 0 {
				t.Fatalf("iteration %d: counts left at id %d", iter, id)
			}
		}
	}
}
