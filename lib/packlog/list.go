package packlog

import (
	"cmp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

// Options says which packs List returns, and how.
type Options struct {
	Filter
	Limit int // at most this many; 0 means all

	// CacheMin is the number of packs from which a store's caches are
	// kept in CacheDir; 0 means 2,048.
	CacheMin int
	// CacheDir holds the entry caches of large stores ("" for none), and
	// their manifests' projections (manifests/); see the comments at the
	// top of cache.go and projection.go for why and how they stay correct.
	CacheDir string
}

// Listing is what List found: the entries, newest first, and the problems
// met on the way (corrupt entries, unreadable tags or manifests), none of
// which stopped the listing.
type Listing struct {
	Entries  []Entry
	Problems []error
	Total    int // finalized packs read, before filtering
}

// List returns the packs of s selected by opt, newest first, each with its
// tags. It reads every packs/ entry and no manifest, unless a query needs
// manifest fields; then manifests are read in listing order, only until
// Limit packs matched.
func List(s *store.Store, opt Options) (Listing, error) {
	tags, problems, err := s.Tags()
	if err != nil {
		return Listing{}, err
	}
	least := cmp.Or(opt.CacheMin, cacheMin)
	entries, bad, err := read(s, opt.CacheDir, least)
	if err != nil {
		return Listing{}, err
	}
	problems = append(problems, bad...)
	total := len(entries)
	packs := total + len(bad)
	if opt.needsLine() {
		// Queries on the log line read every entry's usage.
		entries, bad = resolveUsage(s, entries)
		problems = append(problems, bad...)
	}
	// Workers find problems in directory order; report them in a stable one.
	slices.SortStableFunc(problems, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	IndexTags(tags).Apply(entries)
	l := Listing{Problems: problems, Total: total}
	if !opt.needsManifest() {
		l.Entries = top(entries, opt.Limit, opt.matchSummary, true, s)
	} else {
		l.Entries, l.Problems = selectManifests(s, top(entries, 0, opt.matchSummary, true, s), opt, opt.projections(packs), l.Problems)
	}
	l.Entries, bad = resolveUsage(s, l.Entries)
	l.Problems = append(l.Problems, bad...)
	return l, nil
}

// Select applies opt to entries already in the order wanted (a lineage),
// keeping that order. Manifest queries are answered as List answers them,
// from the projections in opt.CacheDir when the store is large enough to
// keep them.
func Select(s *store.Store, entries []Entry, opt Options) (kept []Entry, problems []error) {
	for i := range entries {
		if opt.matchSummary(&entries[i]) {
			kept = append(kept, entries[i])
		}
	}
	if opt.needsManifest() {
		var pc *userconfig.DigestCache
		if opt.CacheDir != "" && len(kept) > 0 {
			// The store's size, as List counts it: its packs/ entries.
			if n, err := countPacks(s); err == nil {
				pc = opt.projections(n)
			}
		}
		return selectManifests(s, kept, opt, pc, nil)
	}
	if opt.Limit > 0 && len(kept) > opt.Limit {
		kept = kept[:opt.Limit]
	}
	return kept, nil
}

// projections returns the cache of manifest projections opt keeps for a
// store of n packs (finalized pack entries, corrupt ones counted): nil
// when opt keeps no caches, or the store has fewer packs than CacheMin.
func (opt *Options) projections(n int) *userconfig.DigestCache {
	if opt.CacheDir == "" || n < cmp.Or(opt.CacheMin, cacheMin) {
		return nil
	}
	pc := projectionCache(opt.CacheDir)
	return &pc
}

// countPacks returns the number of entries in s's packs/, listed and not
// read.
func countPacks(s *store.Store) (int, error) {
	r, err := s.OpenPackDir()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	names, err := r.List()
	return len(names), err
}

// selectManifests keeps the entries whose manifests match opt's manifest
// queries, in order, reading manifests (or their projections, from pc when
// not nil) until Limit entries are kept. The manifests are read and
// matched by one worker per CPU, a window of them at a time: a year of
// sessions holds gigabytes of manifests, and reading and hashing them one
// after another leaves all but one core idle.
func selectManifests(s *store.Store, entries []Entry, opt Options, pc *userconfig.DigestCache, problems []error) ([]Entry, []error) {
	workers := runtime.GOMAXPROCS(0)
	window := 16 * workers
	match := make([]bool, window)
	errs := make([]error, window)
	var kept []Entry
	for start := 0; start < len(entries); start += window {
		if opt.Limit > 0 && len(kept) == opt.Limit {
			break
		}
		batch := entries[start:min(start+window, len(entries))]
		next := make(chan int)
		var wg sync.WaitGroup
		for range min(workers, len(batch)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					match[i], errs[i] = matchManifest(s, pc, batch[i].Hash, &opt)
				}
			}()
		}
		for i := range batch {
			next <- i
		}
		close(next)
		wg.Wait()
		for i, e := range batch {
			if opt.Limit > 0 && len(kept) == opt.Limit {
				break
			}
			if errs[i] != nil {
				problems = append(problems, errs[i])
				continue
			}
			if match[i] {
				kept = append(kept, e)
			}
		}
	}
	return kept, problems
}
