package halves

import (
	"runtime"
	"sync"
	"testing"
)

// TestDo checks that every item is done once, in halves when there are
// enough of them and two CPUs (run it with -race).
func TestDo(t *testing.T) {
	for _, n := range []int{0, 1, 2*MinEach - 1, 2 * MinEach, 2*MinEach + 1, 5000} {
		done := make([]int, n)
		var mu sync.Mutex
		var calls [][2]int
		Do(n, func(from, to int) {
			mu.Lock()
			calls = append(calls, [2]int{from, to})
			mu.Unlock()
			for i := from; i < to; i++ {
				done[i]++
			}
		})
		for i, c := range done {
			if c != 1 {
				t.Fatalf("n=%d: item %d done %d times", n, i, c)
			}
		}
		want := 1
		if n >= 2*MinEach && runtime.GOMAXPROCS(0) > 1 {
			want = 2
		}
		if len(calls) != want {
			t.Errorf("n=%d: %d calls %v, want %d", n, len(calls), calls, want)
		}
	}
}
