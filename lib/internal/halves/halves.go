// Package halves does the work on a long list in two halves at once: a
// long session's steps and messages, each handled on its own, are most of
// an import's and a pack's work.
package halves

import (
	"runtime"
	"sync"
)

// MinEach is how many items each half must hold for Do to split the work:
// fewer cost less than starting a goroutine saves.
const MinEach = 256

// Do calls fn(0, n); where there are two CPUs and each half would hold
// MinEach items or more, it calls fn(n/2, n) on another goroutine and
// fn(0, n/2) on this one instead, and returns when both have.
func Do(n int, fn func(from, to int)) {
	mid := n / 2
	if mid < MinEach || runtime.GOMAXPROCS(0) < 2 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { fn(mid, n) })
	fn(0, mid)
	wg.Wait()
}
