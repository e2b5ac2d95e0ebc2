package store

import (
	"io/fs"
	"sync/atomic"
	"syscall"
)

// objectDir reads objects relative to the objects directory, and to each
// fan-out directory once it has opened it: a search reads hundreds of
// thousands of objects, and looking up the fan-out directory again for
// each was a twentieth of its time.
type objectDir struct {
	fd   int
	fans [256]atomic.Int32 // the fan-out directories' descriptors, plus one; 0: not open
}

func (o *objectDir) open(dir string) error {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	}
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	o.fd = fd
	return nil
}

// read is readRegular of the object file name, opened relative to the
// directory as rel.
func (o *objectDir) read(name, rel string, max int64) ([]byte, int64, error) {
	return o.readInto(name, rel, max, nil)
}

// readInto is read into buf when it has room.
func (o *objectDir) readInto(name, rel string, max int64, buf []byte) ([]byte, int64, error) {
	if dir, ok := o.fan(rel); ok {
		return readRegularAt(dir, name, rel[3:], max, buf)
	}
	return readRegularAt(o.fd, name, rel, max, buf)
}

// fan returns the descriptor of rel's fan-out directory ("ab" of
// "ab/cdef…"), opening it the first time; false when rel is not so
// named or the directory cannot be opened as one (a symlink among them),
// for the caller to open rel from the objects directory.
func (o *objectDir) fan(rel string) (int, bool) {
	if len(rel) < 4 || rel[2] != '/' {
		return 0, false
	}
	hi, ok1 := unhex(rel[0])
	lo, ok2 := unhex(rel[1])
	if !ok1 || !ok2 {
		return 0, false
	}
	f := &o.fans[hi<<4|lo]
	if v := f.Load(); v > 0 {
		return int(v - 1), true
	}
	const flags = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	fd, err := syscall.Openat(o.fd, rel[:2], flags, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Openat(o.fd, rel[:2], flags, 0)
	}
	if err != nil {
		return 0, false
	}
	if !f.CompareAndSwap(0, int32(fd)+1) {
		syscall.Close(fd) // another reader opened it first
	}
	return int(f.Load() - 1), true
}

func unhex(c byte) (int, bool) {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0'), true
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10, true
	}
	return 0, false
}

func (o *objectDir) close() error {
	for i := range o.fans {
		if v := o.fans[i].Load(); v > 0 {
			syscall.Close(int(v - 1))
		}
	}
	return syscall.Close(o.fd)
}

// atCWD is AT_FDCWD: a path relative to the working directory.
const atCWD = -100

func openat(dirfd int, path string, flags int) (int, error) {
	if dirfd == atCWD {
		return syscall.Open(path, flags, 0)
	}
	return syscall.Openat(dirfd, path, flags, 0)
}
