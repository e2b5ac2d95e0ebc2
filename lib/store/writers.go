package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The writers' lock keeps ctx-gc from removing an object a pack being
// written needs. Every process that writes objects or pack entries holds
// it shared, from its first write (or the start of a commit, before the
// commit checks what its manifest references) until it exits; ctx-gc
// holds it exclusively while it decides what is unreferenced and removes
// it. So no pack is ever finalized while objects are being removed, and
// every pack finalized before is seen by ctx-gc. The lock is flock(2) on
// the objects/ directory: no file is added to the store, and the kernel
// releases it when its holder dies (kill -9 included).

// WritersTimeout is how long a writer waits while ctx-gc holds the
// writers' lock exclusively.
var WritersTimeout = 2 * time.Minute

// writerLocks holds one descriptor of objects/ per store directory and
// process, shared by every Store of that directory, so that a process's
// own shared lock and its exclusive one are one lock, converted.
var writerLocks = struct {
	mu sync.Mutex
	m  map[string]*writerLock
}{m: map[string]*writerLock{}}

type writerLock struct {
	mu   sync.Mutex
	f    *os.File
	mode lockMode
}

type lockMode int

const (
	unlocked lockMode = iota
	sharedLock
	exclusiveLock
)

func (s *Store) writerLock() *writerLock {
	writerLocks.mu.Lock()
	defer writerLocks.mu.Unlock()
	l := writerLocks.m[s.objects]
	if l == nil {
		l = &writerLock{}
		writerLocks.m[s.objects] = l
	}
	return l
}

// HoldWrites takes the writers' lock shared, once per process: call it
// before deciding that an object the new pack will reference is present.
// Put, PutReader and PutPackEntry take it themselves. It waits up to
// WritersTimeout while ctx-gc runs.
func (s *Store) HoldWrites() error {
	if s.holding.Load() {
		return nil
	}
	l := s.writerLock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mode != unlocked {
		return nil
	}
	if err := l.open(s.objects); err != nil {
		return err
	}
	if err := flockWait(l.f, false, WritersTimeout); err != nil {
		return fmt.Errorf("writing to the store: %w", gcBusy(err))
	}
	l.mode = sharedLock
	s.holding.Store(true)
	return nil
}

// LockWrites takes the writers' lock exclusively, waiting up to timeout
// for the writers that hold it to finish, and returns the function that
// releases it. While it is held, no object or pack entry is written by a
// ctx command, in this process or another.
func (s *Store) LockWrites(timeout time.Duration) (unlock func(), err error) {
	l := s.writerLock()
	l.mu.Lock()
	if err := l.open(s.objects); err != nil {
		l.mu.Unlock()
		return nil, err
	}
	prev := l.mode
	if err := flockWait(l.f, true, timeout); err != nil {
		if prev == sharedLock {
			// A conversion that failed may have dropped the shared lock.
			if flockWait(l.f, false, WritersTimeout) != nil {
				l.mode = unlocked
				s.holding.Store(false)
			}
		}
		l.mu.Unlock()
		if errors.Is(err, errLockBusy) {
			err = fmt.Errorf("other ctx commands are writing to the store (waited %s)", timeout)
		}
		return nil, err
	}
	l.mode = exclusiveLock
	// Held across the caller's work: writers of this process wait on l.mu.
	return func() {
		if prev == sharedLock {
			flockWait(l.f, false, WritersTimeout)
			l.mode = sharedLock
		} else {
			funlock(l.f)
			l.mode = unlocked
		}
		l.mu.Unlock()
	}, nil
}

func (l *writerLock) open(objects string) error {
	if l.f != nil {
		return nil
	}
	f, err := openDir(filepath.Clean(objects))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("store objects directory %s: %w", objects, ErrNotFound)
		}
		return fmt.Errorf("opening %s: %w", objects, err)
	}
	l.f = f
	return nil
}

var errLockBusy = errors.New("lock busy")

func gcBusy(err error) error {
	if errors.Is(err, errLockBusy) {
		return errors.New("ctx-gc is removing objects from this store and did not finish in time; try again")
	}
	return err
}
