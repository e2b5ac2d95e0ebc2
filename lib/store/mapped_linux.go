package store

import "syscall"

// mapRegular is readRegular mapping the file instead of reading it: a
// private mapping, readable and writable, whose pages are the kernel's
// copies of the file until written (then this process's own). A file it
// cannot map (empty, not a regular file, an error) is read.
func mapRegular(name string, max int64) ([]byte, int64, error) {
	const flags = syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	fd, err := syscall.Open(name, flags, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(name, flags, 0)
	}
	if err != nil {
		return readRegular(name, max) // for its error
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size == 0 || st.Size > max {
		return readRegular(name, max)
	}
	b, err := syscall.Mmap(fd, 0, int(st.Size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return readRegular(name, max)
	}
	return b, st.Size, nil
}
