//go:build unix

package store

import (
	"bytes"
	"io/fs"
	"syscall"
)

// sameContent reports whether the file name holds exactly b, with plain
// system calls: os.Open's poller set-up costs more than the read when
// re-packing checks thousands of small objects. A missing file is
// fs.ErrNotExist.
func sameContent(name string, b []byte) (bool, error) {
	const flags = syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	fd, err := syscall.Open(name, flags, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(name, flags, 0)
	}
	if err == syscall.ENOENT {
		return false, fs.ErrNotExist
	}
	if err != nil {
		return false, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return false, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size != int64(len(b)) {
		return false, nil // the general check says what it is
	}
	// One byte more than b, to see a longer file.
	buf := make([]byte, min(len(b)+1, 1<<20))
	rest := b
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return false, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return len(rest) == 0, nil
		}
		if n > len(rest) || !bytes.Equal(buf[:n], rest[:n]) {
			return false, nil
		}
		rest = rest[n:]
	}
}
