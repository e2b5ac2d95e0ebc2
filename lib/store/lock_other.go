//go:build !unix

package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// lockDir takes an exclusive lock on directory dir with a lock file
// created exclusively, waiting up to LockTimeout. Unlike flock(2) on Unix,
// a crashed holder leaves the file behind: it must then be removed.
func lockDir(dir string) (unlock func(), err error) {
	name := filepath.Join(dir, ".lock")
	deadline := time.Now().Add(LockTimeout)
	wait := time.Millisecond
	for {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(name) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is held by another process (if none is running, a crashed one left it: remove it)", name)
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// canLockDirs: without flock(2), staging directories are told stale by
// age alone, a long one.
const canLockDirs = false

// tryLockDir cannot lock a directory without flock(2).
func tryLockDir(dir string) (unlock func(), ok bool) {
	return func() {}, true
}
