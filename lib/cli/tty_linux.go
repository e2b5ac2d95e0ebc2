package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTTY reports whether fd is a terminal: whether TCGETS succeeds on it.
func isTTY(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	return err == nil
}

// readHidden writes prompt to the terminal f and reads a line from it
// with echo off, turned off before the prompt shows so that nothing
// typed at it is echoed, and restored after.
func readHidden(f *os.File, prompt string) ([]byte, error) {
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, err
	}
	quiet := *t
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return nil, err
	}
	defer unix.IoctlSetTermios(fd, unix.TCSETS, t)
	if _, err := f.WriteString(prompt); err != nil {
		return nil, err
	}
	return readLine(f)
}
