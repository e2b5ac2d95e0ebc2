package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CheckDir reports whether the store directory rel ("tmp", "objects/ab",
// "refs/tags", slash-separated) and every directory between it and the
// store's root are directories of the store: not symlinks, which a
// received or copied store can carry, that would lead a write or a
// removal out of it. A missing one is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func (s *Store) CheckDir(rel string) error {
	dir := s.root
	for _, elem := range strings.Split(rel, "/") {
		dir = filepath.Join(dir, elem)
		fi, err := os.Lstat(dir)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s %s, not a directory of the store", dir, DescribeMode(fi.Mode()))
		}
	}
	return nil
}
