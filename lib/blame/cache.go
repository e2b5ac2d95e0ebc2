package blame

import (
	"bytes"
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

func (c *Cache) path(d digest.Digest) string {
	h := d.Hex()
	return filepath.Join(c.dir, h[:2], h[2:]+".json")
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
