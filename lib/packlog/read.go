package packlog

import (
	"runtime"
	"sync"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Read returns the entry of every finalized pack in s, in no particular
// order. An entry that cannot be read or parsed does not stop the others:
// it is returned among problems (a *store.CorruptError for bad content).
// err is set only when the packs/ directory itself cannot be listed.
func Read(s *store.Store) (entries []Entry, problems []error, err error) {
	return read(s, "", 0)
}

// readLazy is Read leaving the usage of each entry in the form ctx writes
// undecoded, for resolveUsage to decode (or drop the entry, and report
// it, as Read would have) once the caller has picked the few it keeps.
func readLazy(s *store.Store) (entries []Entry, problems []error, err error) {
	return readWith(s, "", 0, true)
}

// read is Read with an entry cache in cacheDir ("" for none), for stores
// of at least least entries.
func read(s *store.Store, cacheDir string, least int) (entries []Entry, problems []error, err error) {
	return readWith(s, cacheDir, least, false)
}

// readWith is read, leaving usage undecoded when lazy (readLazy).
func readWith(s *store.Store, cacheDir string, least int, lazy bool) (entries []Entry, problems []error, err error) {
	r, err := s.OpenPackDir()
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	names, err := r.List()
	if err != nil {
		return nil, nil, err
	}
	c := openCache(cacheDir, s, r, len(names), least)
	// Entries keep copies of what they need; cached bytes stay in res.raw
	// only until the cache is rewritten.
	defer c.close()
	res := readAll(s, r, names, c, lazy)
	if c != nil && c.stale(res) {
		// Best effort: a cache that cannot be written is only slower.
		_ = c.write(res)
	}
	return res.entries, res.problems, nil
}

// readResult is what readAll found. raw and inos run parallel to entries:
// an entry's canonical bytes (nil when it was not canonical, so not
// cacheable) and its inode number.
type readResult struct {
	entries  []Entry
	raw      [][]byte
	inos     []uint64
	problems []error
	fresh    int // canonical entries read from files, not from the cache
}

// readAll reads the entries of names: from the cache c where it holds the
// same entry file, else from packs/; with lazy, the usage of those read
// from packs/ is left to resolveUsage, as that of cached ones is.
func readAll(s *store.Store, r *store.PackDir, names []store.PackName, c *cache, lazy bool) readResult {
	if len(names) == 0 {
		return readResult{}
	}
	cached := c.match(names)
	keep := c != nil
	// One result, shared out: worker w fills its own stretch of the slices
	// from lo, and the stretches are closed up at the end. Small stores
	// are not worth the goroutines; large ones are read in parallel.
	all := readResult{entries: make([]Entry, len(names))}
	if keep {
		all.raw = make([][]byte, len(names))
		all.inos = make([]uint64, len(names))
	}
	workers := min(runtime.GOMAXPROCS(0)*2, max(1, len(names)/2048))
	shares := make([]readResult, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(names)/workers, (w+1)*len(names)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			sh := &shares[w]
			sh.entries = all.entries[lo:lo]
			if keep {
				sh.raw, sh.inos = all.raw[lo:lo], all.inos[lo:lo]
			}
			models := map[string]string{}
			var arena []byte  // copies of entries read from files, for the cache
			var usages []byte // copies of cached (or, lazy, all) entries' usage
			var fileUsages *[]byte
			if lazy {
				fileUsages = &usages
			}
			buf := make([]byte, 0, 1024)
			for i := lo; i < hi; i++ {
				n := names[i]
				if cached != nil && cached[i] != nil {
					b := cached[i]
					if e, ok := parseCanonical(n.Digest, b, models, &usages); ok {
						sh.add(e, b, n.Ino, keep)
						continue
					}
				}
				var err error
				buf, err = r.Read(n.Digest, buf[:0])
				if err != nil {
					sh.problems = append(sh.problems, err)
					continue
				}
				if e, ok := parseCanonical(n.Digest, buf, models, fileUsages); ok {
					var b []byte
					if keep {
						b = appendArena(&arena, buf)
						sh.fresh++
					}
					sh.add(e, b, n.Ino, keep)
					continue
				}
				// Not canonical: read it again in full through the store,
				// and let the strict decoder judge it.
				e, err := ReadOne(s, n.Digest)
				if err != nil {
					sh.problems = append(sh.problems, err)
					continue
				}
				sh.add(e, nil, n.Ino, keep)
			}
		}()
	}
	wg.Wait()
	n := 0
	for _, sh := range shares {
		// Each stretch starts at or after n: copy closes the gaps left by
		// entries that could not be read.
		copy(all.entries[n:], sh.entries)
		if keep {
			copy(all.raw[n:], sh.raw)
			copy(all.inos[n:], sh.inos)
		}
		n += len(sh.entries)
		all.problems = append(all.problems, sh.problems...)
		all.fresh += sh.fresh
	}
	all.entries = all.entries[:n]
	if keep {
		all.raw, all.inos = all.raw[:n], all.inos[:n]
	}
	return all
}

func (res *readResult) add(e Entry, raw []byte, ino uint64, keep bool) {
	res.entries = append(res.entries, e)
	if keep {
		res.raw = append(res.raw, raw)
		res.inos = append(res.inos, ino)
	}
}

// resolveUsage decodes the usage of the entries of es taken from the
// entry cache, in place. An entry whose cached usage does not decode (the
// cache file was changed) is read again from packs/; one that cannot be
// is left out, and returned as a problem.
func resolveUsage(s *store.Store, es []Entry) ([]Entry, []error) {
	out := es[:0]
	var problems []error
	for _, e := range es {
		if e.usageRaw != nil {
			u, err := decodeUsage(e.usageRaw)
			if err != nil {
				f, ferr := ReadOne(s, e.Hash)
				if ferr != nil {
					problems = append(problems, ferr)
					continue
				}
				u = f.Usage
			}
			e.Usage, e.usageRaw = u, nil
		}
		out = append(out, e)
	}
	return out, problems
}

// ReadOne returns the entry of pack d; store.ErrNotFound if d is not a
// finalized pack in s.
func ReadOne(s *store.Store, d digest.Digest) (Entry, error) {
	b, err := s.PackEntry(d)
	if err != nil {
		return Entry{}, err
	}
	return ParseEntry(d, b)
}
