package cli

import (
	"syscall"
	"unsafe"
)

// isTTY reports whether fd is a terminal: whether TCGETS succeeds on it.
func isTTY(fd uintptr) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
