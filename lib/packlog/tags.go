package packlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// ReadTags returns every tag of s with its target, sorted by name. A tag
// whose ref cannot be read is returned among problems and does not hide
// the others; err is set only when refs/tags cannot be listed.
func ReadTags(s *store.Store) (tags []store.Tag, problems []error, err error) {
	if fi, err := os.Lstat(s.Path("refs", "tags")); err == nil && !fi.IsDir() {
		// A symlink would list and read tags outside the store.
		return nil, nil, fmt.Errorf("listing tags: %s is not a directory of the store", s.Path("refs", "tags"))
	}
	ents, err := os.ReadDir(s.Path("refs", "tags"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing tags: %w", err)
	}
	for _, e := range ents {
		name := e.Name()
		// Lock files and temporaries belong to writers in progress.
		if strings.HasSuffix(name, ".lock") || strings.HasPrefix(name, ".") {
			continue
		}
		if !e.Type().IsRegular() {
			problems = append(problems, fmt.Errorf("tag %s: refs/tags/%s is not a regular file", name, name))
			continue
		}
		d, err := s.Ref(name)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		tags = append(tags, store.Tag{Name: name, Target: d})
	}
	slices.SortFunc(tags, func(a, b store.Tag) int { return strings.Compare(a.Name, b.Name) })
	return tags, problems, nil
}

// TagIndex maps a pack to the names of the tags pointing at it, sorted.
type TagIndex map[digest.Digest][]string

// IndexTags returns the TagIndex of tags (sorted by name, as ReadTags
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
