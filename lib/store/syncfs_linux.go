package store

import (
	"os"
	"syscall"
)

// syncFS flushes the file system that holds dir with one syncfs(2).
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, _, errno := syscall.Syscall(sysSyncfs, f.Fd(), 0, 0); errno != 0 {
		return errno
	}
	return nil
}
