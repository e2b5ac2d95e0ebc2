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
	r, err := newEntryReader(s)
	if err != nil {
		return nil, nil, err
	}
	defer r.close()
	ds, err := r.list()
	if err != nil {
		return nil, nil, err
	}
	entries, problems = r.readAll(ds)
	return entries, problems, nil
}

// ReadPacks is Read for the packs ds only.
func ReadPacks(s *store.Store, ds []digest.Digest) (entries []Entry, problems []error, err error) {
	r, err := newEntryReader(s)
	if err != nil {
		return nil, nil, err
	}
	defer r.close()
	entries, problems = r.readAll(ds)
	return entries, problems, nil
}

// readAll reads the entries of ds.
func (r *entryReader) readAll(ds []digest.Digest) (entries []Entry, problems []error) {
	if len(ds) == 0 {
		return nil, nil
	}
	// Small stores are not worth the goroutines; large ones are read in
	// parallel, each worker on a contiguous share of the names.
	workers := min(runtime.GOMAXPROCS(0)*2, max(1, len(ds)/2048))
	type share struct {
		entries  []Entry
		problems []error
	}
	shares := make([]share, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(ds)/workers, (w+1)*len(ds)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			sh := &shares[w]
			sh.entries = make([]Entry, 0, hi-lo)
			models := map[string]string{}
			buf := make([]byte, 0, 1024)
			for _, d := range ds[lo:hi] {
				var err error
				buf, err = r.read(d, buf[:0])
				if err != nil {
					sh.problems = append(sh.problems, err)
					continue
				}
				e, err := r.parse(d, buf, models)
				if err != nil {
					sh.problems = append(sh.problems, err)
					continue
				}
				sh.entries = append(sh.entries, e)
			}
		}()
	}
	wg.Wait()
	if workers == 1 {
		return shares[0].entries, shares[0].problems
	}
	n := 0
	for _, sh := range shares {
		n += len(sh.entries)
	}
	entries = make([]Entry, 0, n)
	for _, sh := range shares {
		entries = append(entries, sh.entries...)
		problems = append(problems, sh.problems...)
	}
	return entries, problems
}

// parse parses the entry b of d read by r. An entry not in canonical form
// is read again through the store, in full, and judged by the strict
// decoder.
func (r *entryReader) parse(d digest.Digest, b []byte, models map[string]string) (Entry, error) {
	if e, ok := parseCanonical(d, b, models); ok {
		return e, nil
	}
	return ReadOne(r.s, d)
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
