package store

import (
	"io/fs"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// oTmpfile is O_TMPFILE (__O_TMPFILE | O_DIRECTORY), the same on every
// architecture Go supports on Linux.
const oTmpfile = 0o20000000 | syscall.O_DIRECTORY

// atSymlinkFollow is AT_SYMLINK_FOLLOW for linkat(2).
const atSymlinkFollow = 0x400

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
	fd, err := syscall.Open(dir, oTmpfile|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o444)
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
	err := linkat("/proc/self/fd/"+strconv.Itoa(t.fd), name)
	switch err {
	case nil:
		return nil
	case syscall.EEXIST:
		return fs.ErrExist
	}
	return &fs.PathError{Op: "link", Path: name, Err: err}
}

func (t *unnamedTemp) discard() { syscall.Close(t.fd) }

func linkat(oldpath, newpath string) error {
	o, err := syscall.BytePtrFromString(oldpath)
	if err != nil {
		return err
	}
	n, err := syscall.BytePtrFromString(newpath)
	if err != nil {
		return err
	}
	const atFDCWD = -100
	fdcwd := atFDCWD
	_, _, errno := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(fdcwd), uintptr(unsafe.Pointer(o)),
		uintptr(fdcwd), uintptr(unsafe.Pointer(n)), atSymlinkFollow, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
