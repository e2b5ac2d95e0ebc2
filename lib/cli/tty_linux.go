package cli

import (
	"os"
	"syscall"
	"unsafe"
)

// isTTY reports whether fd is a terminal: whether TCGETS succeeds on it.
func isTTY(fd uintptr) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}

// readHidden writes prompt to the terminal f and reads a line from it
// with echo off, turned off before the prompt shows so that nothing
// typed at it is echoed, and restored after.
func readHidden(f *os.File, prompt string) ([]byte, error) {
	var t syscall.Termios
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t))); errno != 0 {
		return nil, errno
	}
	quiet := t
	quiet.Lflag &^= syscall.ECHO
	quiet.Lflag |= syscall.ICANON | syscall.ISIG
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCSETS, uintptr(unsafe.Pointer(&quiet))); errno != 0 {
		return nil, errno
	}
	defer syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCSETS, uintptr(unsafe.Pointer(&t)))
	if _, err := f.WriteString(prompt); err != nil {
		return nil, err
	}
	return readLine(f)
}
