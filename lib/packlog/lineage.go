package packlog

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Lineage returns pack d, its parent, its parent's parent, … to the root,
// in that order, read from packs/ entries; a snapshot of an agent session
// is followed by the snapshot taken before it (Previous), as its parent
// would be. If an ancestor is not in this store (a fork of a pack made
// elsewhere) or its entry is corrupt, the lineage found so far is returned
// with the error.
func Lineage(s *store.Store, d digest.Digest) ([]Entry, error) {
	var out []Entry
	seen := map[digest.Digest]bool{}
	child := digest.Digest{}
	// The snapshots of the session being walked, newest first: each
	// one's predecessor is the next, so they are found once, not once a
	// snapshot (each time reading every entry and their manifests).
	var snaps []digest.Digest
	for {
		if seen[d] {
			// Content addressing makes a cycle impossible for honest
			// entries: one of them lies about its parent.
			return out, &store.CorruptError{What: "pack entry " + child.String(), Err: fmt.Errorf("its parent %s closes a cycle", d)}
		}
		seen[d] = true
		e, err := ReadOne(s, d)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) && !child.IsZero() {
				return out, fmt.Errorf("parent %s of pack %s is not in this store: %w", d, child, store.ErrNotFound)
			}
			return out, err
		}
		out = append(out, e)
		next := e.Parent
		if next.IsZero() {
			if !slices.Contains(snaps, d) {
				if snaps, err = Snapshots(s, d); err != nil {
					return out, err
				}
			}
			if next = previousIn(snaps, d); next.IsZero() {
				return out, nil
			}
		}
		child, d = d, next
	}
}
