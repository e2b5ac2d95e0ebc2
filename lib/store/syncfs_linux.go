package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFS flushes the file system that holds dir with one syncfs(2).
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
