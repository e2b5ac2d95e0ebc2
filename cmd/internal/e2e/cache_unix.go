//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// cacheDir returns root's binary directory for mode, locked against other
// test processes until unlock is called.
func cacheDir(root, mode string) (dir string, unlock func(), err error) {
	base := filepath.Join(cacheRoot(), checkoutKey(root))
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", nil, err
	}
	lock, err := os.OpenFile(filepath.Join(base, mode+".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return "", nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return "", nil, fmt.Errorf("locking %s: %w", lock.Name(), err)
	}
	unlock = func() { lock.Close() } // closing releases the lock
	dir = filepath.Join(base, mode)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		unlock()
		return "", nil, err
	}
	return dir, unlock, nil
}
