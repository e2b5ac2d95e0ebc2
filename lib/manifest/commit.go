package manifest

import (
	"fmt"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Commit finalizes m in s, whose referenced objects must already be stored:
// it stores the manifest object, then s.PutPackEntry makes every object
// this Store wrote durable and writes the packs/ entry, the commit point,
// in one flush and one directory sync (see store.PutPackEntry). It sets
// m.Hash and reports whether the manifest object was new.
func Commit(s *store.Store, m *Manifest) (d digest.Digest, created bool, err error) {
	// Hold ctx-gc off from here: what is checked present stays present.
	if err := s.HoldWrites(); err != nil {
		return d, false, err
	}
	for _, ref := range m.Refs() {
		ok, err := s.Has(ref)
		if err != nil {
			return d, false, err
		}
		if !ok {
			return d, false, fmt.Errorf("committing pack: referenced object %s: %w", ref, store.ErrNotFound)
		}
	}
	b, err := Encode(m)
	if err != nil {
		return d, false, err
	}
	d, created, err = s.Put(b)
	if err != nil {
		return d, false, err
	}
	m.Hash = d
	entry, err := EncodeSummary(Summarize(m))
	if err != nil {
		return d, created, err
	}
	if _, err := s.PutPackEntry(d, entry); err != nil {
		return d, created, err
	}
	return d, created, nil
}
