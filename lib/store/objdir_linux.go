package store

import (
	"io/fs"
	"syscall"
)

type objectDir struct{ fd int }

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
	return readRegularAt(o.fd, name, rel, max, nil)
}

// readInto is read into buf when it has room.
func (o *objectDir) readInto(name, rel string, max int64, buf []byte) ([]byte, int64, error) {
	return readRegularAt(o.fd, name, rel, max, buf)
}

func (o *objectDir) close() error { return syscall.Close(o.fd) }

// atCWD is AT_FDCWD: a path relative to the working directory.
const atCWD = -100

func openat(dirfd int, path string, flags int) (int, error) {
	if dirfd == atCWD {
		return syscall.Open(path, flags, 0)
	}
	return syscall.Openat(dirfd, path, flags, 0)
}
