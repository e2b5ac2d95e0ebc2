package execlog

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/ctx-tools/ctx/lib/cost"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Stats counts the distinct objects a pack references, manifest included:
// New were written by this pack, Reused were already stored.
type Stats struct {
	New    int `json:"new"`
	Reused int `json:"reused"`
}

// job is one content to store and the manifest slot its digest and size
// go to.
type job struct {
	c    *Content
	d    *digest.Digest
	size *int64
}

// plan returns the log's manifest with every content reference still
// zero, and the jobs that fill them in.
func (l *Log) plan() (*manifest.Manifest, []job) {
	m := l.skeleton()
	var jobs []job
	for sl := range m.Slots() {
		if c := *l.slot(sl); c != nil {
			jobs = append(jobs, job{c: c, d: sl.Ref, size: sl.Size})
		}
	}
	return m, jobs
}

// Hash returns the hash the log's pack will have, reading and hashing its
// content but writing nothing.
func (l *Log) Hash(s *store.Store) (digest.Digest, error) {
	m, jobs := l.plan()
	for _, j := range jobs {
		var d digest.Digest
		var size int64
		var err error
		switch {
		case j.c.kind == ref:
			d = j.c.ref
			size, err = s.Size(d)
		case !j.c.stored.IsZero():
			d, size = j.c.stored, j.c.storedSize
		default:
			var r io.ReadCloser
			if r, err = j.c.open(s); err == nil {
				d, size, err = digest.OfReader(r)
				r.Close()
			}
		}
		if err != nil {
			return digest.Digest{}, fmt.Errorf("%s: %w", j.c.at, err)
		}
		*j.d = d
		if j.size != nil {
			*j.size = size
		}
	}
	b, err := manifest.Encode(m)
	if err != nil {
		return digest.Digest{}, err
	}
	return digest.Of(b), nil
}

// Pack stores the log's content and finalizes its manifest in s. Content
// objects are written first (by as many workers as there are CPUs), then
// manifest.CommitWith makes them durable and writes the manifest and the
// packs/ entry. Steps taken from a prior pack (Reuse) store nothing and
// are written as they were packed. The returned manifest has its Hash
// set; a taken step's references are in its Encoded bytes, not its
// fields, and its metadata and parameters may be as the log gave them.
func (l *Log) Pack(s *store.Store) (*manifest.Manifest, Stats, error) {
	// Hold ctx-gc off before the first object is found present, so that
	// every object found or stored stays until the commit (which then
	// need not look for them again).
	if err := s.HoldWrites(); err != nil {
		return nil, Stats{}, err
	}
	m, jobs := l.plan()
	created := make([]bool, len(jobs))
	errs := make([]error, len(jobs))
	// Content given twice (a text every turn repeats) is stored once: the
	// others take its object.
	firstOf := make([]int, len(jobs))
	seen := [3]map[string]int{nil, {}, {}}
	var todo []int
	for i, j := range jobs {
		firstOf[i] = i
		if form, k, ok := j.c.sameKey(); ok {
			if f, dup := seen[form][k]; dup {
				firstOf[i] = f
				continue
			}
			seen[form][k] = i
		}
		todo = append(todo, i)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex // guards done, last and calls to l.Progress
	done, last := 0, time.Now()
	report := func() {
		if l.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		if now := time.Now(); done == len(todo) || now.Sub(last) >= 100*time.Millisecond {
			last = now
			l.Progress(done, len(todo))
		}
	}
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				d, size, c, err := j.c.put(s)
				*j.d, created[i], errs[i] = d, c, err
				if j.size != nil {
					*j.size = size
				}
				report()
			}
		}()
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, Stats{}, err
		}
	}
	for i, f := range firstOf {
		if f != i {
			*jobs[i].d = *jobs[f].d
			if jobs[i].size != nil && jobs[f].size != nil {
				*jobs[i].size = *jobs[f].size
			} else if jobs[i].size != nil {
				// The first needed no size: the object's is the one.
				*jobs[i].size, errs[i] = s.Size(*jobs[f].d)
				if errs[i] != nil {
					return nil, Stats{}, errs[i]
				}
			}
		}
	}

	c, err := manifest.CommitWith(s, m, manifest.CommitOptions{Present: true, Spans: l.prints != nil, Usage: cost.Entry})
	if err != nil {
		return nil, Stats{}, err
	}
	isNew := map[digest.Digest]bool{c.Hash: c.Created}
	for i, j := range jobs {
		isNew[*j.d] = isNew[*j.d] || created[i]
	}
	for _, r := range l.reused {
		for _, d := range r.refs {
			if _, ok := isNew[d]; !ok {
				isNew[d] = false // the prior pack's
			}
		}
	}
	if l.prints != nil && len(c.Steps) == len(m.Steps) {
		l.committed = &packed{Committed: c, steps: stepRefs(m)}
	}
	var st Stats
	for _, n := range isNew {
		if n {
			st.New++
		} else {
			st.Reused++
		}
	}
	return m, st, nil
}

// stepRefs returns the objects each step of m references, in Slots'
// order (none for a step reused as Encoded).
func stepRefs(m *manifest.Manifest) [][]digest.Digest {
	refs := make([][]digest.Digest, len(m.Steps))
	for sl := range m.Slots() {
		switch sl.Field {
		case manifest.FieldStepOutput, manifest.FieldStepOutputPart, manifest.FieldStepReasoning, manifest.FieldStepObserved:
			if !sl.Ref.IsZero() {
				refs[sl.Index] = append(refs[sl.Index], *sl.Ref)
			}
		}
	}
	return refs
}

// Result is the line a command prints for a pack it made (ctx-pack, and
// ctx-redact with what it redacted): the pack, its counts, the objects
// written and reused, and what latest named before (Previous).
type Result struct {
	Hash     digest.Digest `json:"hash"`
	URI      string        `json:"uri"`
	Created  string        `json:"created"`
	Parent   digest.Digest `json:"parent,omitzero"`
	Previous digest.Digest `json:"previous,omitzero"`
	Objects  Stats         `json:"objects"`
	Steps    int           `json:"steps"`
	Inputs   int           `json:"inputs"`
	Outputs  int           `json:"outputs"`
}

// NewResult is the Result of the pack m, stored with stats.
func NewResult(m *manifest.Manifest, stats Stats) Result {
	return Result{Hash: m.Hash, URI: m.Hash.URI(), Created: m.Created, Parent: m.Parent, Objects: stats,
		Steps: len(m.Steps), Inputs: len(m.Inputs), Outputs: len(m.Outputs)}
}
