//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockDir takes an exclusive lock on directory dir, waiting up to
// LockTimeout while another process (or goroutine) holds it. The lock is
// flock(2) on the directory itself: the kernel releases it when its
// holder dies, so a crash never wedges the store, and no lock file is left
// behind.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(LockTimeout)
	wait := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%s is locked by another running ctx command (waited %s)", dir, LockTimeout)
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// canLockDirs: a staging directory's lock tells a live one from one whose
// maker died.
const canLockDirs = true

// tryLockDir takes an exclusive lock on directory dir if no one holds
// it, without waiting.
func tryLockDir(dir string) (unlock func(), ok bool) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
