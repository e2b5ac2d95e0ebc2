package replay

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Interrupt runs f with a context that SIGINT or SIGTERM cancels. Work
// that watches the context stops by itself and f returns. If f has not
// returned grace after the signal — blocked in a system call on a file
// that never answers, say — or a second signal comes, cleanup runs (to
// remove the workspace) and the process ends as the signal would have
// ended it.
func Interrupt(grace time.Duration, cleanup func(), f func(ctx context.Context) error) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// mu keeps cleanup and the end of f apart: once f has returned, the
	// caller cleans up as usual and no signal path runs.
	var mu sync.Mutex
	finished := false
	done := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case <-done:
			return
		case sig = <-sigs:
		}
		cancel()
		select {
		case <-done:
			return
		case <-time.After(grace):
		case <-sigs:
		}
		mu.Lock()
		if finished {
			mu.Unlock()
			return
		}
		cleanup()
		die(sig)
	}()
	err := f(ctx)
	mu.Lock()
	finished = true
	mu.Unlock()
	close(done)
	return err
}
