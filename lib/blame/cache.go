package blame

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

// filesDir is the directory of the file index (fileIndex) in the cache.
const filesDir = "files"

// Forget removes from the blame cache in dir (DefaultCacheDir) what it
// keeps of the packs ps alone, packs a store no longer holds (ctx-gc
// removed them), and returns how many files went, one removal each
// (userconfig.RemoveCache): each pack's entry in the file index, and the
// blobs of its entry that no other pack of its
// session in the index names (its line table, the sections of the paths
// it has versions of), then the packs in the index's catalog, with the
// paths that only they had versions of and those paths' line pairs, in
// one rewrite. What it reads is the entries of those packs and of the other
// snapshots of their sessions, never the whole index.
//
// The index is shared by the stores that use dir: one that still holds
// such a pack derives its entry again, with its blobs, and adds it to the
// catalog again at its next blame, as for any pack the catalog lacks; a
// blob some other pack names after all (a fork's copy of a session) is
// missing to it, and its entry is derived again too. The texts of the
// files sessions saw stay: snapshots and sessions that read one version
// share them. So do replay results (r/), named by the packs they
// replayed, which a store that no longer holds one of those packs never
// asks for again: the results written after them for the same paths
// remove them (keepResult).
func Forget(dir string, ps []digest.Digest) (int, error) {
	if dir == "" || len(ps) == 0 {
		return 0, nil
	}
	names := make([]string, 0, 3*len(ps))
	gone := make(map[string]bool, len(ps))
	for _, d := range ps {
		gone[d.String()] = true
	}
	files := filepath.Join(dir, filesDir)
	fi, err := os.Lstat(files)
	if err != nil || !fi.IsDir() {
		// No index, or not one to remove or write through.
		return 0, nil
	}
	fx := &fileIndex{dir: files, mem: map[string][]byte{}}
	c := fx.loadCatalog()
	blobs := map[string]bool{}
	sessions := map[string]bool{}
	for _, d := range ps {
		names = append(names, filepath.Join(filesDir, entryName(d)))
		// A pack of no session (ctx-gc drops none) keeps its blobs:
		// which packs share them is not known.
		if en, ok := fx.stored(d); ok && en.Session != "" {
			for _, ref := range append(en.Sections, en.Lines) {
				blobs[ref] = true
			}
			sessions[en.Session] = true
		}
	}
	for _, p := range c.Packs {
		if gone[p.Pack] || !sessions[p.Session] {
			continue
		}
		d, err := digest.Parse(p.Pack)
		if err != nil {
			continue
		}
		// A snapshot whose entry cannot be read writes its blobs again
		// when it is derived.
		if en, ok := fx.stored(d); ok {
			for _, ref := range append(en.Sections, en.Lines) {
				delete(blobs, ref)
			}
		}
	}
	for ref := range blobs {
		if name, ok := blobName(ref); ok {
			names = append(names, filepath.Join(filesDir, name))
		}
	}
	n, err := userconfig.RemoveCache(dir, names)
	if err != nil {
		return n, err
	}
	// Written whole through a rename: a blame reads the catalog before
	// or the one after, and a blame that writes its own meanwhile
	// (adding packs) at worst names the packs gone again, which a store
	// without them passes over.
	if c.drop(gone) {
		if err := fx.saveCatalog(c); err != nil {
			return n, fmt.Errorf("rewriting the blame catalog in %s: %w", files, err)
		}
	}
	return n, nil
}
