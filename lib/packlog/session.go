package packlog

import (
	"errors"
	"slices"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// A session's snapshots. An agent's hook packs its session each time the
// agent stops (ctx-pack --from claude-code reading a hook payload), and
// each pack is a snapshot of the same session (manifest.Session), with no
// parent: its content is what the transcript holds, so that the same
// transcript gives the same pack in any store. The snapshots share the
// session's start as created, and ctx-log lists them in the order they
// were taken (Compare: more steps, then packed later, first). The
// snapshot before one in that order is its predecessor: what `REF^`
// names when REF has no parent, and what ctx-diff compares it with.

// Previous returns the snapshot of pack d's session taken before d, zero
// when d is not a snapshot (manifest.Snapshot) or is its session's first
// in this store.
func Previous(s *store.Store, d digest.Digest) (digest.Digest, error) {
	m, err := manifest.Load(s, d)
	if err != nil {
		return digest.Digest{}, err
	}
	return PreviousOf(s, m)
}

// PreviousOf is Previous of pack m.Hash, whose manifest m is, for a caller
// that has loaded it.
func PreviousOf(s *store.Store, m *manifest.Manifest) (digest.Digest, error) {
	d := m.Hash
	snaps, err := snapshotsOf(s, m)
	if err != nil {
		return digest.Digest{}, err
	}
	return previousIn(snaps, d), nil
}

// previousIn returns the snapshot after d in snaps (Snapshots, newest
// first): the one taken before it; zero when there is none.
func previousIn(snaps []digest.Digest, d digest.Digest) digest.Digest {
	i := slices.Index(snaps, d)
	if i < 0 || i+1 >= len(snaps) {
		return digest.Digest{}
	}
	return snaps[i+1]
}

// Snapshots returns the finalized snapshots of the session pack d is a
// snapshot of, newest first, d among them; nil when d is not a snapshot.
// Only the packs created at d's time are read beyond their entries.
func Snapshots(s *store.Store, d digest.Digest) ([]digest.Digest, error) {
	m, err := manifest.Load(s, d)
	if err != nil {
		return nil, err
	}
	return snapshotsOf(s, m)
}

// snapshotsOf is Snapshots of pack m.Hash, whose manifest m is.
func snapshotsOf(s *store.Store, m *manifest.Manifest) ([]digest.Digest, error) {
	d := m.Hash
	if !m.Snapshot() {
		return nil, nil
	}
	one, err := ReadOne(s, d)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil // not finalized here: no order to place it in
		}
		return nil, err
	}
	// Usage is decoded only for the entries kept, which drops those whose
	// usage does not decode, as Read does.
	all, _, err := readLazy(s)
	if err != nil {
		return nil, err
	}
	var same []Entry
	for _, e := range all {
		if e.sec == one.sec && e.nsec == one.nsec && e.Parent.IsZero() {
			same = append(same, e)
		}
	}
	same, _ = resolveUsage(s, same)
	SetPackTimes(s, same)
	slices.SortFunc(same, func(a, b Entry) int { return Compare(&a, &b) })
	session := m.Session()
	var out []digest.Digest
	for _, e := range same {
		if e.Hash == d {
			out = append(out, d)
			continue
		}
		o, err := manifest.Load(s, e.Hash)
		if err != nil {
			continue // not a pack to chain to; ctx-verify --store says why
		}
		if o.Snapshot() && o.Session() == session {
			out = append(out, e.Hash)
		}
	}
	return out, nil
}
