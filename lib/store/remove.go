package store

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/ctx-tools/ctx/lib/digest"
)

// The removals below are ctx-gc's, the only writer that removes anything
// from a store: the caller holds the writers' lock exclusively
// (LockWrites), so that no pack being written needs what goes.

// RemovePackEntry removes the packs/ entry of d: the pack is no longer
// finalized here. A missing entry is not an error.
func (s *Store) RemovePackEntry(d digest.Digest) error {
	err := os.Remove(s.PackEntryPath(d))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing pack entry %s: %w", d, err)
	}
	return nil
}

// RemoveObject removes object d. A missing object is not an error.
func (s *Store) RemoveObject(d digest.Digest) error {
	err := os.Remove(s.ObjectPath(d))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing object %s: %w", d, err)
	}
	return nil
}

// SyncRemovals makes the removals from packs/ and those of the objects
// ds from their fan-out directories durable.
func (s *Store) SyncRemovals(ds []digest.Digest) error {
	dirs := map[string]bool{s.packsDir(): true}
	for _, d := range ds {
		name := s.ObjectPath(d)
		dirs[name[:len(name)-objectRelLen+2]] = true
	}
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		if err := syncDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
