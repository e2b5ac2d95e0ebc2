package packlog

import (
	"errors"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// TagIndex maps a pack to the names of the tags pointing at it, sorted.
type TagIndex map[digest.Digest][]string

// IndexTags returns the TagIndex of tags (sorted by name, as store.Tags
// returns them).
func IndexTags(tags []store.Tag) TagIndex {
	idx := TagIndex{}
	for _, t := range tags {
		idx[t.Target] = append(idx[t.Target], t.Name)
	}
	return idx
}

// Apply sets the Tags of every entry in es.
func (idx TagIndex) Apply(es []Entry) {
	if len(idx) == 0 {
		return
	}
	for i := range es {
		es[i].Tags = idx[es[i].Hash]
	}
}

// MarkLatest sets Latest on the entry of es that refs/latest names, if
// any. A store without latest marks none; a latest that cannot be read is
// returned.
func MarkLatest(s *store.Store, es []Entry) error {
	d, err := s.Ref(store.Latest)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for i := range es {
		if es[i].Hash == d {
			es[i].Latest = true
		}
	}
	return nil
}
