//go:build unix && !linux

package store

import "syscall"

// atCWD stands for the working directory; without openat in package
// syscall here, only paths relative to it are opened.
const atCWD = -1

func openat(_ int, path string, flags int) (int, error) {
	return syscall.Open(path, flags, 0)
}
