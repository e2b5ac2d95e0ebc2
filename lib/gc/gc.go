package gc

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/packlog"
	"github.com/ctx-tools/ctx/lib/store"
)

// DefaultGrace is how old an object no pack references must be before it
// is removed, unless Options.Grace says otherwise.
const DefaultGrace = time.Hour

// Options says what Run may remove.
type Options struct {
	// DryRun reports what would be removed and removes nothing.
	DryRun bool
	// Grace is the age below which an object no pack references, or a
	// file in tmp/, is kept: it may belong to a write in progress.
	Grace time.Duration
	// Keep names more packs to keep, with their ancestors.
	Keep []digest.Digest
	// Pushed reports whether a pack was pushed to a registry; nil for
	// none.
	Pushed func(digest.Digest) bool
	// LockTimeout bounds the wait for running writers to finish.
	LockTimeout time.Duration
	// Now is the time the grace period counts back from; zero for now.
	Now time.Time
}

// Report is what Run removed, or would remove with DryRun.
type Report struct {
	DryRun  bool          `json:"dry_run"`
	Packs   Counts        `json:"packs"`
	Dropped []DroppedPack `json:"dropped"`
	Objects ObjectCounts  `json:"objects"`
	Tmp     int           `json:"tmp_removed"`
	// CacheRemoved counts the files removed from the user's caches of
	// derived data (ctx-log's manifest projections, ctx-blame's index)
	// that held only the dropped packs; Run leaves it to its caller,
	// which knows the caches (packlog.Forget, blame.Forget).
	CacheRemoved int `json:"cache_removed,omitzero"`
}

// Counts counts packs kept and removed.
type Counts struct {
	Kept    int `json:"kept"`
	Removed int `json:"removed"`
}

// ObjectCounts counts objects: kept because referenced, kept because
// younger than the grace period, and removed (with their bytes).
type ObjectCounts struct {
	Kept    int   `json:"kept"`
	Young   int   `json:"young"`
	Removed int   `json:"removed"`
	Bytes   int64 `json:"bytes"`
}

// DroppedPack is a superseded snapshot that was dropped: its session and
// the snapshot that superseded it (the session's newest).
type DroppedPack struct {
	Hash         digest.Digest `json:"hash"`
	Created      string        `json:"created"`
	Steps        int           `json:"steps"`
	Session      string        `json:"session"`
	SupersededBy digest.Digest `json:"superseded_by"`
}

// Run collects garbage in s (see the package documentation).
func Run(s *store.Store, opt Options) (*Report, error) {
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	if opt.LockTimeout == 0 {
		opt.LockTimeout = store.LockTimeout
	}
	cache := map[digest.Digest]*packRefs{}
	p, err := decide(s, opt, cache)
	if opt.DryRun {
		if err != nil {
			return nil, err
		}
		p.report.DryRun = true
		return &p.report, nil
	}
	// What the first pass could not read (another ctx-gc removing packs
	// meanwhile) is decided again under the lock, where nothing moves.
	unlock, err := s.LockWrites(opt.LockTimeout)
	if err != nil {
		return nil, fmt.Errorf("collecting garbage: %w", err)
	}
	defer unlock()
	if p, err = decide(s, opt, cache); err != nil {
		return nil, err
	}
	return p.apply(s)
}

// plan is what decide found: what to remove, and the report of it.
type plan struct {
	dropped []digest.Digest // pack entries to remove, with their manifests
	objects []obj           // objects to remove
	tmp     []string        // tmp/ files to remove
	report  Report
}

type obj struct {
	d    digest.Digest
	size int64
}

// packRefs is what deciding needs of a manifest: its session, whether it
// is a snapshot of it, and the objects it references. The manifests of a
// year of sessions take gigabytes; this is what is kept of each.
type packRefs struct {
	session  string
	snapshot bool
	refs     []digest.Digest
}

func loadRefs(s *store.Store, d digest.Digest) (*packRefs, error) {
	m, err := manifest.Load(s, d)
	if err != nil {
		return nil, err
	}
	return &packRefs{session: m.Session(), snapshot: m.Snapshot(), refs: m.Refs()}, nil
}

// decide reads the store and returns what to remove. What is needed of
// the manifests read is kept in cache, so that deciding again under the
// lock reads only what was written in between.
func decide(s *store.Store, opt Options, cache map[digest.Digest]*packRefs) (*plan, error) {
	entries, tags, err := readLog(s)
	if err != nil {
		return nil, err
	}
	load := func(d digest.Digest) (*packRefs, error) {
		if m := cache[d]; m != nil {
			return m, nil
		}
		m, err := loadRefs(s, d)
		if err != nil {
			return nil, err
		}
		cache[d] = m
		return m, nil
	}
	preload(s, entries, cache)
	keep, head, err := kept(s, opt, entries, tags, load)
	if err != nil {
		return nil, err
	}
	p := &plan{}
	live, freed := p.packs(entries, keep, head, cache)
	cutoff := opt.Now.Add(-opt.Grace)
	all, err := p.unreferenced(s, cutoff, live, freed, load)
	if err != nil {
		return nil, err
	}
	for _, d := range all {
		if live[d] {
			p.report.Objects.Kept++
		}
	}
	p.report.Objects.Young = len(all) - p.report.Objects.Kept - p.report.Objects.Removed
	if err := p.leftovers(s, cutoff); err != nil {
		return nil, err
	}
	if p.report.Dropped == nil {
		p.report.Dropped = []DroppedPack{}
	}
	return p, nil
}

// preload reads the manifests of entries not in cache, one worker per
// CPU, into cache; one that fails to load is left out, for load to meet
// its error again, in order.
func preload(s *store.Store, entries []packlog.Entry, cache map[digest.Digest]*packRefs) {
	var todo []digest.Digest
	for _, e := range entries {
		if cache[e.Hash] == nil {
			todo = append(todo, e.Hash)
		}
	}
	got := make([]*packRefs, len(todo))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				got[i], _ = loadRefs(s, todo[i])
			}
		}()
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, d := range todo {
		if got[i] != nil {
			cache[d] = got[i]
		}
	}
}

// readLog reads the pack entries and the tags; a problem with either is
// a reason not to collect.
func readLog(s *store.Store) ([]packlog.Entry, []store.Tag, error) {
	entries, problems, err := packlog.Read(s)
	if err != nil {
		return nil, nil, err
	}
	if len(problems) > 0 {
		return nil, nil, unsafe(problems[0])
	}
	tags, problems, err := s.Tags()
	if err != nil {
		return nil, nil, err
	}
	if len(problems) > 0 {
		return nil, nil, unsafe(problems[0])
	}
	return entries, tags, nil
}

// kept returns the packs to keep: the roots (each session's newest
// snapshot, latest, the tags' targets, opt.Keep, the packs opt.Pushed
// names, every pack not a snapshot) and their ancestors; and the newest
// snapshot of each session, by session id.
func kept(s *store.Store, opt Options, entries []packlog.Entry, tags []store.Tag,
	load func(digest.Digest) (*packRefs, error)) (keep map[digest.Digest]bool, head map[string]digest.Digest, err error) {
	byHash := make(map[digest.Digest]int, len(entries))
	sessions := map[string][]packlog.Entry{}
	var roots []digest.Digest
	for i, e := range entries {
		byHash[e.Hash] = i
		m, err := load(e.Hash)
		if err != nil {
			return nil, nil, unsafe(fmt.Errorf("pack %s: %w", e.Hash, err))
		}
		if m.snapshot {
			sessions[m.session] = append(sessions[m.session], e)
		} else {
			roots = append(roots, e.Hash)
		}
	}
	head = map[string]digest.Digest{}
	for id, snaps := range sessions {
		packlog.SetPackTimes(s, snaps)
		packlog.Sort(snaps)
		head[id] = snaps[0].Hash
		roots = append(roots, snaps[0].Hash)
	}
	if d, err := s.Ref(store.Latest); err == nil {
		roots = append(roots, d)
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, nil, unsafe(err)
	}
	for _, t := range tags {
		roots = append(roots, t.Target)
	}
	roots = append(roots, opt.Keep...)
	if opt.Pushed != nil {
		for _, e := range entries {
			if opt.Pushed(e.Hash) {
				roots = append(roots, e.Hash)
			}
		}
	}
	// A kept pack keeps its ancestors, as far as this store has them.
	keep = map[digest.Digest]bool{}
	for _, d := range roots {
		for !keep[d] {
			i, ok := byHash[d]
			if !ok {
				break
			}
			keep[d] = true
			d = entries[i].Parent
		}
	}
	return keep, head, nil
}

// packs plans the removal of the packs not kept, and returns the objects
// the kept packs reference (live) and those the removed ones do (freed).
func (p *plan) packs(entries []packlog.Entry, keep map[digest.Digest]bool, head map[string]digest.Digest,
	cache map[digest.Digest]*packRefs) (live, freed map[digest.Digest]bool) {
	live = map[digest.Digest]bool{}
	freed = map[digest.Digest]bool{}
	for _, e := range entries {
		m := cache[e.Hash]
		if keep[e.Hash] {
			p.report.Packs.Kept++
			live[e.Hash] = true
			for _, r := range m.refs {
				live[r] = true
			}
			continue
		}
		p.dropped = append(p.dropped, e.Hash)
		p.report.Packs.Removed++
		p.report.Dropped = append(p.report.Dropped, DroppedPack{
			Hash: e.Hash, Created: e.Created, Steps: e.Steps,
			Session: m.session, SupersededBy: head[m.session],
		})
		freed[e.Hash] = true
		for _, r := range m.refs {
			freed[r] = true
		}
	}
	slices.SortFunc(p.report.Dropped, func(a, b DroppedPack) int {
		if a.Session != b.Session {
			if a.Session < b.Session {
				return -1
			}
			return 1
		}
		return b.Steps - a.Steps
	})
	return live, freed
}

// unreferenced plans the removal of the objects nothing live references
// that a removed pack freed or that are older than cutoff, adding to live
// what the complete manifests among them (packs without an entry)
// reference. It returns every object of the store.
func (p *plan) unreferenced(s *store.Store, cutoff time.Time, live, freed map[digest.Digest]bool,
	load func(digest.Digest) (*packRefs, error)) ([]digest.Digest, error) {
	all, err := s.Objects("")
	if err != nil {
		return nil, err
	}
	type candidate struct {
		obj
		old bool
	}
	var cands []candidate
	for _, d := range all {
		if live[d] {
			continue
		}
		fi, err := os.Lstat(s.ObjectPath(d))
		if err != nil {
			continue // gone meanwhile, or not a file: ctx-verify --store says so
		}
		c := candidate{obj: obj{d, fi.Size()}, old: fi.ModTime().Before(cutoff)}
		if !freed[d] && !c.old {
			continue
		}
		// A manifest without its entry is a pack when it is complete
		// (manifest.Load decides): what it references stays.
		if !freed[d] && fi.Size() <= store.MaxEntrySize*16 {
			if m, err := load(d); err == nil {
				live[d] = true
				for _, r := range m.refs {
					live[r] = true
				}
				continue
			}
		}
		cands = append(cands, c)
	}
	for _, c := range cands {
		if live[c.d] {
			continue
		}
		p.objects = append(p.objects, c.obj)
		p.report.Objects.Removed++
		p.report.Objects.Bytes += c.size
	}
	return all, nil
}

// leftovers checks that no directory gc lists or removes from is a
// symlink, and plans the removal of the tmp/ files older than cutoff.
func (p *plan) leftovers(s *store.Store, cutoff time.Time) error {
	ds := make([]digest.Digest, len(p.objects))
	for i, o := range p.objects {
		ds[i] = o.d
	}
	if err := s.CheckRemovable(ds); err != nil {
		return unsafe(err)
	}
	p.tmp = s.TempLeftovers(cutoff)
	p.report.Tmp = len(p.tmp)
	return nil
}

// apply removes what p says: the dropped packs' entries, then their
// manifests, then the other objects, then tmp/ leftovers.
func (p *plan) apply(s *store.Store) (*Report, error) {
	for _, d := range p.dropped {
		if err := s.RemovePackEntry(d); err != nil {
			return nil, err
		}
	}
	for _, d := range p.dropped {
		if err := s.RemoveObject(d); err != nil {
			return nil, err
		}
	}
	ds := make([]digest.Digest, len(p.objects))
	for i, o := range p.objects {
		if err := s.RemoveObject(o.d); err != nil {
			return nil, err
		}
		ds[i] = o.d
	}
	// decide checked tmp/.
	if err := s.RemoveTemp(p.tmp); err != nil {
		return nil, err
	}
	if err := s.SyncRemovals(ds); err != nil {
		return nil, err
	}
	return &p.report, nil
}

// UnsafeError reports a store ctx-gc will not collect: something it
// cannot read might reference objects it would otherwise remove.
type UnsafeError struct{ Err error }

func (e *UnsafeError) Error() string {
	return "nothing removed: " + e.Err.Error()
}

func (e *UnsafeError) Unwrap() error { return e.Err }

func unsafe(err error) error { return &UnsafeError{Err: err} }
