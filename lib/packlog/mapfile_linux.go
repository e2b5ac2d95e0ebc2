package packlog

import (
	"fmt"
	"syscall"

	"github.com/ctx-tools/ctx/lib/found"
)

// mapFile maps the file name read-only, under rule r: the entry cache
// is read in place, without copying tens of megabytes into fresh heap
// pages. release unmaps it; nothing may hold on to the bytes after that.
func mapFile(name string, r found.Rule) (b []byte, release func(), err error) {
	f, size, err := found.Open(name, r)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if size == 0 {
		return nil, nil, fmt.Errorf("%s: empty", name)
	}
	b, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { syscall.Munmap(b) }, nil
}
