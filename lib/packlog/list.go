package packlog

import (
	"slices"
	"strings"

	"github.com/ctx-tools/ctx/lib/store"
)

// Options says which packs List returns, and how.
type Options struct {
	Filter
	Limit int // at most this many; 0 means all

	// CacheDir holds the entry caches of large stores ("" for none); see
	// the comment at the top of cache.go for why and how it stays correct.
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
	entries, bad, err := read(s, opt.CacheDir)
	if err != nil {
		return Listing{}, err
	}
	problems = append(problems, bad...)
	// Workers find problems in directory order; report them in a stable one.
	slices.SortStableFunc(problems, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	IndexTags(tags).Apply(entries)
	SetPackTimes(s, entries)
	l := Listing{Problems: problems, Total: len(entries)}
	if !opt.needsManifest() {
		l.Entries = top(entries, opt.Limit, opt.matchSummary, true)
		return l, nil
	}
	l.Entries, l.Problems = selectManifests(s, top(entries, 0, opt.matchSummary, true), opt, l.Problems)
	return l, nil
}

// Select applies opt to entries already in the order wanted (a lineage),
// keeping that order.
func Select(s *store.Store, entries []Entry, opt Options) (kept []Entry, problems []error) {
	for i := range entries {
		if opt.matchSummary(&entries[i]) {
			kept = append(kept, entries[i])
		}
	}
	if opt.needsManifest() {
		return selectManifests(s, kept, opt, nil)
	}
	if opt.Limit > 0 && len(kept) > opt.Limit {
		kept = kept[:opt.Limit]
	}
	return kept, nil
}

// selectManifests keeps the entries whose manifests match opt's manifest
// queries, reading manifests in order until Limit entries are kept.
func selectManifests(s *store.Store, entries []Entry, opt Options, problems []error) ([]Entry, []error) {
	var kept []Entry
	for _, e := range entries {
		if opt.Limit > 0 && len(kept) == opt.Limit {
			break
		}
		doc, err := s.Get(e.Hash)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if opt.matchManifest(doc) {
			kept = append(kept, e)
		}
	}
	return kept, problems
}
