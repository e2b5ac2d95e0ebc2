//go:build unix

package store

import (
	"bytes"
	"io/fs"
	"syscall"
)

// readRegular returns the content of the regular store file name, with
// plain system calls (open, fstat, read, close: os.Open adds a second
// fstat, and the read to the end one more read), when it holds at most
// max bytes; for a larger file it returns nil and the size, having read
// nothing. Its errors are OpenFile's. Bytes the file gains after the fstat
// are not read: the caller verifies what it got.
func readRegular(name string, max int64) ([]byte, int64, error) {
	return readRegularAt(atCWD, name, name, max, nil)
}

// readRegularAt is readRegular of the file name, opened as the path rel
// relative to the directory dirfd (atCWD: the working directory), read
// into buf when it has room (else into a new slice). With room in buf it
// reads first and asks the size only when the read fills what it asked
// for: a read that ends short of that is taken for the whole file, which
// is one system call less for each of the thousands of small objects a
// diff or a search reads. The caller verifies the bytes, and reads again
// sized (readRegularAt with no buf) before it calls them corrupt.
func readRegularAt(dirfd int, name, rel string, max int64, buf []byte) ([]byte, int64, error) {
	const flags = syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	fd, err := openat(dirfd, rel, flags)
	for err == syscall.EINTR {
		fd, err = openat(dirfd, rel, flags)
	}
	if err == syscall.ENOENT {
		return nil, 0, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if err != nil {
		return readRegularFile(name, max) // for OpenFile's error
	}
	defer syscall.Close(fd)
	first := 0 // bytes read before the size was asked
	if ask := int(min(int64(cap(buf)), max+1)); ask > 0 {
		k, err := syscall.Read(fd, buf[:ask])
		for err == syscall.EINTR {
			k, err = syscall.Read(fd, buf[:ask])
		}
		if err != nil {
			return readRegularAt(dirfd, name, rel, max, nil) // for its error
		}
		if k < ask {
			return buf[:k], int64(k), nil
		}
		first = k
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, 0, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return readRegularFile(name, max) // for OpenFile's error
	}
	if st.Size > max {
		return nil, st.Size, nil
	}
	b := buf[:0]
	if b == nil || int64(cap(b)) < st.Size { // (nil is no object: an empty one is empty)
		b = make([]byte, st.Size)
		copy(b, buf[:first])
	}
	b = b[:st.Size]
	n := min(first, len(b))
	for n < len(b) {
		k, err := syscall.Read(fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, 0, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if k == 0 {
			break // shorter than it was: the caller's check fails
		}
		n += k
	}
	return b[:n], st.Size, nil
}

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
