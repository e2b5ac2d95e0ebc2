package store

import (
	"io/fs"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// noUnnamed is set once O_TMPFILE or linking through /proc fails here.
var noUnnamed atomic.Bool

// unnamedTemp is an O_TMPFILE file: it has no name until linkat gives it
// one, and vanishes if the process dies first.
type unnamedTemp struct{ fd int }

// procOnce checks once that /proc/self/fd exists, through which linkat
// names an unnamed file.
var procOnce sync.Once

func newUnnamed(dir string) (tempObject, bool) {
	procOnce.Do(func() {
		if _, err := os.Stat("/proc/self/fd"); err != nil {
			noUnnamed.Store(true)
		}
	})
	if noUnnamed.Load() {
		return nil, false
	}
	fd, err := syscall.Open(dir, unix.O_TMPFILE|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o444)
	if err != nil {
		noUnnamed.Store(true)
		return nil, false
	}
	return &unnamedTemp{fd: fd}, true
}

func (t *unnamedTemp) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := syscall.Write(t.fd, p[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "write", Path: "(unnamed object)", Err: err}
		}
		n += m
	}
	return n, nil
}

func (t *unnamedTemp) Sync() error { return syscall.Fsync(t.fd) }

func (t *unnamedTemp) link(name string) error {
	defer syscall.Close(t.fd)
	err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(t.fd), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
	switch err {
	case nil:
		return nil
	case syscall.EEXIST:
		return fs.ErrExist
	}
	return &fs.PathError{Op: "link", Path: name, Err: err}
}

func (t *unnamedTemp) discard() { syscall.Close(t.fd) }
