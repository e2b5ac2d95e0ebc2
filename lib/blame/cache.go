package blame

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-json-experiment/json"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

// Cache keeps what blame derives from each pack's manifest (its edit
// steps and first views), one file per pack named by the pack's hash.
// A pack never changes, so an entry is never stale; entries carry a
// format line, and one that does not parse, or belongs to another
// format, is read again from the manifest and rewritten. The cache holds
// the text the sessions wrote, as the store does: it lives in the user's
// cache directory, never in a shared place.
type Cache struct {
	dir string
}

// cacheFormat heads every cache entry; a change of what is derived
// changes it.
const cacheFormat = "ctx-blame-cache 6\n"

// maxCacheEntry bounds a cache entry: it holds a pack's edit steps, so
// one larger than this is read from the manifest instead.
const maxCacheEntry = 256 << 20

// OpenCache returns the cache in dir ("" for none: every pack is read
// from its manifest).
func OpenCache(dir string) *Cache {
	if dir == "" {
		return nil
	}
	return &Cache{dir: dir}
}

// DefaultCacheDir is $CTX_BLAME_CACHE, "" when that is "off", else
// ctx/blame in the user's cache directory ("" when there is none).
func DefaultCacheDir() string { return userconfig.CacheDir("CTX_BLAME_CACHE", "blame") }

func (c *Cache) path(d digest.Digest) string { return filepath.Join(c.dir, cacheName(d)) }

// cacheName is the file of pack d's entry in the cache's directory.
func cacheName(d digest.Digest) string {
	h := d.Hex()
	return filepath.Join(h[:2], h[2:]+".json")
}

// load returns the edits of pack d, from the cache when it has them.
func (c *Cache) load(s *store.Store, d digest.Digest) (*packEdits, bool, error) {
	if c != nil {
		// An entry that is not a regular file (a pipe, a link to
		// /dev/zero), leads out of the cache or is too large is not
		// read: the manifest is, and the entry is written again.
		b, err := found.ReadFile(c.path(d), found.Rule{What: "blame cache entry", Max: maxCacheEntry, Within: c.dir})
		if err == nil && bytes.HasPrefix(b, []byte(cacheFormat)) {
			var pe packEdits
			if json.Unmarshal(b[len(cacheFormat):], &pe) == nil && pe.Pack == d.String() {
				return &pe, true, nil
			}
		}
	}
	m, err := manifest.Load(s, d)
	if err != nil {
		return nil, false, err
	}
	pe, err := edits(s, m)
	if err != nil {
		return nil, false, err
	}
	if c != nil {
		c.store(d, pe)
	}
	return pe, false, nil
}

// store writes an entry through a temporary file and a rename, so
// concurrent runs at worst each write a whole entry. A cache that cannot
// be written is no error: the next run reads the manifest again.
func (c *Cache) store(d digest.Digest, pe *packEdits) {
	b, err := json.Marshal(pe)
	if err != nil {
		return
	}
	// A cache that cannot be written is no error.
	_ = userconfig.WriteCache(c.path(d), append([]byte(cacheFormat), b...))
}

// filesDir is the directory of the file index (fileIndex) in the cache.
const filesDir = "files"

// Forget removes from the blame cache in dir (DefaultCacheDir) what it
// keeps of the packs ps alone, packs a store no longer holds (ctx-gc
// removed them), and returns how many files went, one removal each
// (userconfig.RemoveCache): each pack's entry in the --pack cache and in
// the file index, and the blobs of its entry that no other pack of its
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
// asks for again.
func Forget(dir string, ps []digest.Digest) (int, error) {
	if dir == "" || len(ps) == 0 {
		return 0, nil
	}
	names := make([]string, 0, 4*len(ps))
	gone := make(map[string]bool, len(ps))
	for _, d := range ps {
		names = append(names, cacheName(d))
		gone[d.String()] = true
	}
	files := filepath.Join(dir, filesDir)
	fi, err := os.Lstat(files)
	if err != nil || !fi.IsDir() {
		// No index, or not one to remove or write through.
		return userconfig.RemoveCache(dir, names)
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
