package packlog

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/store"
)

// The entry cache keeps a copy of a large store's packs/ entries in one
// file outside the store (in the user's cache directory), because opening
// 100,000 small files costs about half a second of system time on this
// class of machine, and reading one file of the same bytes a few
// milliseconds.
//
// It stays correct without trusting time stamps: packs/ is still listed on
// every run, and an entry is taken from the cache only if the cache holds
// an entry of that name read from the same inode (names are content
// hashes, and entries are written once, read-only, by link or rename, so
// a different entry file under a name has a different inode). Any other
// entry is read from packs/. Only canonical entries that parsed are
// cached, so corrupt entries are read, and reported, every time. What the
// cache cannot see is an entry file rewritten in place; ctx-verify --store
// checks every entry against its manifest.
//
// The file is
//
//	ctx-packlog-cache 1 <dev>:<ino of packs/> "<store root>"\n
//	<64 hex> <inode> <entry bytes, ending in \n>
//	…
//
// written to a temporary file and renamed into place, so concurrent
// listings at worst each write a valid cache.

// cacheMin is the number of entries below which stores are read directly
// (unless Options.CacheMin says otherwise): reading a few thousand files
// is fast enough, and small stores (tests, fresh projects) leave nothing
// in the user's cache directory.
var cacheMin = 2048

const cacheMagic = "ctx-packlog-cache 1"

// maxCacheFile bounds the cache file read: some 10 million entries.
const maxCacheFile = 4 << 30

type cache struct {
	path   string
	header []byte
	valid  bool       // a cache file for this store was loaded
	recs   []cacheRec // in file order, which is the listing order it was made in
	unmap  func()
}

type cacheRec struct {
	d   digest.Digest
	ino uint64
	raw []byte
}

// openCache returns the cache of s's entries in dir, loaded if present;
// nil if dir is "", the store has fewer than least entries, or packs/
// cannot be identified.
func openCache(dir string, s *store.Store, r *store.PackDir, entries, least int) *cache {
	if dir == "" || entries < least {
		return nil
	}
	id, ok := r.ID()
	if !ok {
		return nil
	}
	c := &cache{
		path:   filepath.Join(dir, digest.Of([]byte(s.Root())).Hex()[:32]),
		header: fmt.Appendf(nil, "%s %s %s\n", cacheMagic, id, strconv.Quote(s.Root())),
	}
	c.load()
	return c
}

// load reads the cache file; a missing, foreign or malformed file leaves
// c invalid.
func (c *cache) load() {
	// Not a pipe that would block, nor /dev/zero, nor a link out of
	// the cache directory: lib/found's rule, as for every cache.
	b, unmap, err := mapFile(c.path, found.Rule{What: "pack list cache", Max: maxCacheFile, Within: filepath.Dir(c.path)})
	if err != nil {
		return
	}
	c.unmap = unmap
	if !bytes.HasPrefix(b, c.header) {
		return
	}
	b = b[len(c.header):]
	recs := make([]cacheRec, 0, len(b)/300)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return
		}
		line := b[:i+1]
		b = b[i+1:]
		var d digest.Digest
		if len(line) < digest.HexSize+4 || line[digest.HexSize] != ' ' || !digest.FromLowerHex(&d, line[:digest.HexSize]) {
			return
		}
		rest := line[digest.HexSize+1:]
		j := bytes.IndexByte(rest, ' ')
		if j < 1 {
			return
		}
		ino, err := strconv.ParseUint(string(rest[:j]), 10, 64)
		if err != nil || ino == 0 {
			return
		}
		recs = append(recs, cacheRec{d: d, ino: ino, raw: rest[j+1:]})
	}
	c.recs, c.valid = recs, true
}

// close releases the cache file's bytes: after it, no cached bytes may be
// used.
func (c *cache) close() {
	if c != nil && c.unmap != nil {
		c.unmap()
		c.unmap, c.recs, c.valid = nil, nil, false
	}
}

// match returns, for each of names, the cached bytes of its entry, or nil
// where the cache does not hold that entry file. The cache was written in
// listing order and directories list in a stable order, so names and
// records are walked in step; a map is built only if they part.
func (c *cache) match(names []store.PackName) [][]byte {
	if c == nil || !c.valid {
		return nil
	}
	out := make([][]byte, len(names))
	var index map[digest.Digest]int
	k := 0
	for i, n := range names {
		if n.Ino == 0 {
			continue
		}
		if k < len(c.recs) && c.recs[k].d == n.Digest {
			if c.recs[k].ino == n.Ino {
				out[i] = c.recs[k].raw
			}
			k++
			continue
		}
		if index == nil {
			index = make(map[digest.Digest]int, len(c.recs))
			for j, r := range c.recs {
				index[r.d] = j
			}
		}
		if j, ok := index[n.Digest]; ok {
			if c.recs[j].ino == n.Ino {
				out[i] = c.recs[j].raw
			}
			k = j + 1
		}
	}
	return out
}

// stale reports whether the cache is worth rewriting after res: it was
// missing, or enough entries had to be read from files, or enough cached
// entries are gone, that the next listing would be noticeably slower.
func (c *cache) stale(res readResult) bool {
	if !c.valid {
		return true
	}
	slack := max(256, len(res.entries)/64)
	fromCache := 0
	for _, raw := range res.raw {
		if raw != nil {
			fromCache++
		}
	}
	fromCache -= res.fresh
	return res.fresh >= slack || len(c.recs)-fromCache >= slack
}

// write replaces the cache with the canonical entries of res.
func (c *cache) write(res readResult) error {
	size := len(c.header)
	for _, raw := range res.raw {
		size += len(raw) + digest.HexSize + 22
	}
	buf := make([]byte, 0, size)
	buf = append(buf, c.header...)
	for i, raw := range res.raw {
		if raw == nil || res.inos[i] == 0 {
			continue
		}
		d := res.entries[i].Hash
		buf = hexAppend(buf, d[:])
		buf = append(buf, ' ')
		buf = strconv.AppendUint(buf, res.inos[i], 10)
		buf = append(buf, ' ')
		buf = append(buf, raw...)
	}
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// A cache: a crash loses only work to do again.
	return store.WriteOptions{Perm: 0o600, NoSync: true}.WriteFile(c.path, buf)
}

func hexAppend(dst, src []byte) []byte {
	n := len(dst)
	dst = append(dst, make([]byte, 2*len(src))...)
	hex.Encode(dst[n:], src)
	return dst
}
