package store

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
)

// The store's layout (doc.go), relative to its root and slash-separated.
// This package alone spells these names: other packages ask it for paths
// (Store.ConfigPath, PackEntryPath, …) or, to report on the layout itself
// (ctx-verify --fsck), use these constants and the …Rel functions.
const (
	ConfigFile = "config.json"
	ObjectsDir = "objects"
	PacksDir   = "packs"
	RefsDir    = "refs"
	TagsDir    = RefsDir + "/tags"
	DraftsDir  = "drafts"
	TempDir    = "tmp"
)

// ObjectRel is the object d's path in the store: objects/ab/cdef….
func ObjectRel(d digest.Digest) string {
	h := d.Hex()
	return ObjectsDir + "/" + h[:2] + "/" + h[2:]
}

// FanOutRel is the path of the fan-out directory fan (two hex digits):
// objects/ab.
func FanOutRel(fan string) string { return ObjectsDir + "/" + fan }

// PackRel is the path of the pack d's entry: packs/<64 hex>.
func PackRel(d digest.Digest) string { return PacksDir + "/" + d.Hex() }

// RefRel is the path of the ref name: refs/latest, refs/tags/NAME.
func RefRel(name string) string {
	if name == Latest {
		return RefsDir + "/" + Latest
	}
	return TagsDir + "/" + name
}

// Abs is the absolute path of rel, a path relative to the store's root
// such as the …Rel functions return.
func (s *Store) Abs(rel string) string {
	return filepath.Join(s.root, filepath.FromSlash(rel))
}

// ConfigPath is the path of the store's config.json.
func (s *Store) ConfigPath() string { return filepath.Join(s.root, ConfigFile) }

// PackEntryPath is the path of the pack d's entry in packs/, for its
// modification time (when it was last packed); read it with PackEntry.
func (s *Store) PackEntryPath(d digest.Digest) string {
	return filepath.Join(s.root, PacksDir, d.Hex())
}

func (s *Store) packsDir() string { return filepath.Join(s.root, PacksDir) }

// Tags returns every tag of s with its target, sorted by name. A tag
// whose ref cannot be read is returned among problems and does not hide
// the others; err is set only when refs/tags cannot be listed.
func (s *Store) Tags() (tags []Tag, problems []error, err error) {
	dir := s.Abs(TagsDir)
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		// A symlink would list and read tags outside the store.
		return nil, nil, fmt.Errorf("listing tags: %s is not a directory of the store", dir)
	}
	ents, err := os.ReadDir(dir)
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
			problems = append(problems, fmt.Errorf("tag %s: %s is not a regular file", name, RefRel(name)))
			continue
		}
		d, err := s.Ref(name)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		tags = append(tags, Tag{Name: name, Target: d})
	}
	slices.SortFunc(tags, func(a, b Tag) int { return strings.Compare(a.Name, b.Name) })
	return tags, problems, nil
}

// CheckRemovable checks, before ctx-gc removes anything, that packs/,
// objects/, tmp/ and the fan-out directories of the objects ds are
// directories of the store (CheckDir): nothing is listed or removed
// through a symlink, which a received or copied store can carry (tmp/
// leading to a home directory), and removing a tmp/ leftover removes a
// whole tree. Missing ones are fine.
func (s *Store) CheckRemovable(ds []digest.Digest) error {
	dirs := map[string]bool{PacksDir: true, ObjectsDir: true, TempDir: true}
	for _, d := range ds {
		dirs[FanOutRel(d.Hex()[:2])] = true
	}
	for _, rel := range slices.Sorted(maps.Keys(dirs)) {
		if err := s.CheckDir(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// TempLeftovers returns the names of the entries of tmp/ last modified
// before cutoff: what interrupted writes left, and no write in progress
// can still need. A tmp/ that cannot be listed has none.
func (s *Store) TempLeftovers(cutoff time.Time) []string {
	ents, err := os.ReadDir(s.Abs(TempDir))
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			names = append(names, e.Name())
		}
	}
	return names
}

// RemoveTemp removes the entries names of tmp/ (TempLeftovers), each a
// whole tree, through an os.Root: a symlink put in the store since
// CheckRemovable cannot lead the removal out of it. Errors removing one
// are ignored: it stays garbage for the next collection.
func (s *Store) RemoveTemp(names []string) error {
	if len(names) == 0 {
		return nil
	}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return fmt.Errorf("removing tmp/ leftovers: %w", err)
	}
	defer root.Close()
	for _, name := range names {
		root.RemoveAll(TempDir + "/" + name)
	}
	return nil
}
