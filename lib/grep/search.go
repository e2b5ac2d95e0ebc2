package grep

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

// Field is a kind of place in a pack that holds content; a set of them
// selects what Search looks at.
type Field uint8

// The fields, by the names --in takes.
const (
	Prompt    Field = 1 << iota // the system prompt and the prompts
	Answer                      // an llm_call step's output
	Reasoning                   // a step's reasoning
	Call                        // a step's parameters (inline in the manifest)
	Output                      // a tool_call step's output
	Input                       // an input's content
	File                        // an output's content

	AllFields = Prompt | Answer | Reasoning | Call | Output | Input | File
)

var fieldNames = []struct {
	f    Field
	name string
}{{Prompt, "prompt"}, {Answer, "answer"}, {Reasoning, "reasoning"}, {Call, "call"}, {Output, "output"}, {Input, "input"}, {File, "file"}}

// String returns the name of a single field.
func (f Field) String() string {
	for _, n := range fieldNames {
		if n.f == f {
			return n.name
		}
	}
	return fmt.Sprintf("Field(%d)", uint8(f))
}

// ParseFields reads field names (prompt, answer, reasoning, call, output,
// input, file) into a set; no name at all is every field.
func ParseFields(names []string) (Field, error) {
	if len(names) == 0 {
		return AllFields, nil
	}
	var set Field
next:
	for _, name := range names {
		for _, n := range fieldNames {
			if n.name == name {
				set |= n.f
				continue next
			}
		}
		all := make([]string, len(fieldNames))
		for i, n := range fieldNames {
			all[i] = n.name
		}
		return 0, fmt.Errorf("unknown field %q: want %s", name, strings.Join(all, ", "))
	}
	return set, nil
}

// Place is where in a pack some content is referenced.
type Place struct {
	Pack  digest.Digest
	Field Field
	// Step is the step's index, -1 for a place outside the steps; Tool
	// and Agent are the step's.
	Step        int
	Tool, Agent string
	// Index is the position of a prompt, input or output in its list, -1
	// for the system prompt and for steps.
	Index int
	Part  int    // the part of a multimodal prompt or output, -1 for none
	Role  string // a prompt's role ("system" for the system prompt)
	Name  string // an input's or output's name
}

// Mode says how much of a matching object a Result reports.
type Mode uint8

// The modes: every matching line with its matches, a count of matching
// lines, or only that the object matches.
const (
	ModeLines Mode = iota
	ModeCount
	ModeExists
)

// Options says what Search looks at and how much it reports.
type Options struct {
	Fields  Field  // the fields to search; 0 means all
	Session string // only packs that are snapshots of this agent session (manifest.Session)
	// Agent and Tool, when set, restrict the search to the steps of that
	// agent or tool (and so to step fields).
	Agent, Tool string
	Mode        Mode
	SkipBinary  bool // leave out binary objects rather than report that they match
	Workers     int  // concurrent searches (default GOMAXPROCS)
	// CacheDir, when set, keeps there each manifest read without its
	// metadata (placesCache), which later searches read instead.
	CacheDir string
	window   int // packs gathered at a time (default packWindow); tests set it
}

// Result is what Search found in one object, or in one step's
// parameters: the matching lines, or a count, for every place that
// references it.
type Result struct {
	Object digest.Digest // zero for a step's parameters, held in its manifest
	Places []Place       // where the content is referenced, in search order
	Lines  []Line        // ModeLines: the matching lines (Text is the stored bytes)
	Count  int           // the number of matching lines (1 for a binary match)
	Binary bool          // a binary object (NUL in its first 8 KiB) that matches: no lines
	Err    error         // the pack or object could not be read; Places say where it was needed
}

// Stats counts what a search read.
type Stats struct {
	Packs   int   // packs searched
	Objects int   // distinct objects searched
	Bytes   int64 // their total size
	Binary  int   // binary objects left out (SkipBinary)
	Matches int   // matching lines, counted once per object
}

// BinaryPrefix is how much of an object is looked at for a NUL byte,
// which makes it binary, as grep decides.
const BinaryPrefix = 8 << 10

// job is one distinct content to search: an object, or a step's
// parameters (inline), with the places that reference it.
type job struct {
	obj    digest.Digest
	inline []byte
	sum    digest.Digest // of inline: the key it is known by
	places []Place
	// seen: an earlier window searched the content; prior is its
	// Result then (nil: no match).
	seen  bool
	prior *Result
}

// Search searches packs (in the order given) with m and calls emit with
// the Result of each object that matches or could not be read, in the
// order their first places were met, as the search goes: each object is
// read and searched once, by one of opt.Workers goroutines, and results
// are held only until emitted. A pack that cannot be read is reported as
// a Result whose Err is set and whose one Place names the pack. Search
// stops at emit's first error and returns it.
//
// The packs are taken packWindow at a time, so that what is held is
// bounded by a window's places, not the store's: an object met again in a
// later window is not searched again, and when it matched, its Result is
// emitted again with that window's places.
func Search(s *store.Store, packs []digest.Digest, m *Matcher, opt Options, emit func(*Result) error) (Stats, error) {
	if opt.Fields == 0 {
		opt.Fields = AllFields
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	var st Stats
	done := searched{objects: map[digest.Digest]int32{}, inline: map[digest.Digest]int32{}}
	if opt.window <= 0 {
		opt.window = packWindow
	}
	// The next window's manifests are read while this one's objects are
	// searched: each phase leaves a core idle at times (one worker
	// finishing last, the dedupe of places on one core), which the other
	// fills.
	load := func(start int) <-chan gathered {
		ch := make(chan gathered, 1)
		go func() { ch <- gather(s, packs[start:min(start+opt.window, len(packs))], opt) }()
		return ch
	}
	var next <-chan gathered
	if len(packs) > 0 {
		next = load(0)
	}
	for start := 0; start < len(packs); start += opt.window {
		g := <-next
		if start+opt.window < len(packs) {
			next = load(start + opt.window)
		}
		st.Packs += g.packs
		for _, r := range g.errs {
			if err := emit(r); err != nil {
				return st, err
			}
		}
		if err := run(s, g.jobs, m, opt, &st, &done, emit); err != nil {
			return st, err
		}
	}
	return st, nil
}

// gathered is what gather found in a window of packs: the contents to
// search, the packs that could not be read (a Result each, in order), and
// how many packs were searched.
type gathered struct {
	jobs  []job
	errs  []*Result
	packs int
}

// packWindow is how many packs Search gathers the places of at a time.
const packWindow = 128

// searched is what earlier windows found: per object (per digest of a
// step's parameters for inline content), -1 when it did not match, else
// the index in matched of its Result without places. The maps hold no
// pointers: over a year of sessions they hold half a million objects,
// which the collector would otherwise scan again and again.
type searched struct {
	objects, inline map[digest.Digest]int32
	matched         []*Result
}

// key returns the map and key j's content is recorded under.
func (d *searched) key(j *job) (map[digest.Digest]int32, digest.Digest) {
	if j.inline != nil {
		return d.inline, j.sum
	}
	return d.objects, j.obj
}

// prior returns what an earlier window found of j's content: whether it
// was searched, and its Result when it matched.
func (d *searched) prior(j *job) (*Result, bool) {
	set, k := d.key(j)
	i, ok := set[k]
	if !ok || i < 0 {
		return nil, ok
	}
	return d.matched[i], true
}

// record notes what j's content gave: r, when it matched or could not be
// read, else nothing.
func (d *searched) record(j *job, r *Result) {
	set, k := d.key(j)
	if r == nil {
		set[k] = -1
		return
	}
	set[k] = int32(len(d.matched))
	d.matched = append(d.matched, r)
}

// gather reads the manifests of packs, opt.Workers at a time, and lists
// the distinct contents to search in the order their places come.
func gather(s *store.Store, packs []digest.Digest, opt Options) gathered {
	type loaded struct {
		places []Place
		objs   []digest.Digest // the object of each place; zero: inline
		inline [][]byte        // the parameters of each inline place
		sums   []digest.Digest // the digest of each of inline
		skip   bool            // not a snapshot of opt.Session
		err    error
	}
	out := make([]loaded, len(packs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(opt.Workers, len(packs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(packs) {
					return
				}
				l := &out[i]
				mf, err := loadPlaces(s, packs[i], opt.CacheDir)
				if err != nil {
					l.err = err
					continue
				}
				if opt.Session != "" && mf.Session() != opt.Session {
					l.skip = true
					continue
				}
				l.places, l.objs, l.inline = placesOf(mf, opt)
				// Hashed here, on every worker, not in the one loop
				// below that dedupes the places.
				l.sums = make([]digest.Digest, len(l.inline))
				for k, b := range l.inline {
					l.sums[k] = digest.Of(b)
				}
			}
		})
	}
	wg.Wait()
	var g gathered
	seen := map[digest.Digest]int{}
	seenInline := map[digest.Digest]int{}
	for i := range out {
		l := &out[i]
		if l.err != nil {
			g.errs = append(g.errs, &Result{Err: l.err, Places: []Place{{Pack: packs[i], Step: -1, Index: -1, Part: -1}}})
			continue
		}
		if l.skip {
			continue
		}
		g.packs++
		k := 0
		for j, p := range l.places {
			var at int
			var ok bool
			if l.objs[j].IsZero() {
				b, sum := l.inline[k], l.sums[k]
				k++
				if at, ok = seenInline[sum]; !ok {
					at = len(g.jobs)
					seenInline[sum] = at
					g.jobs = append(g.jobs, job{inline: b, sum: sum})
				}
			} else if at, ok = seen[l.objs[j]]; !ok {
				at = len(g.jobs)
				seen[l.objs[j]] = at
				g.jobs = append(g.jobs, job{obj: l.objs[j]})
			}
			g.jobs[at].places = append(g.jobs[at].places, p)
		}
		*l = loaded{}
	}
	return g
}

// Where the places of a pack are, its manifest is read for, and in a
// store of agent sessions nearly all of a manifest's bytes are its steps'
// metadata (Claude Code's copy of every file read and of each edited file
// before the edit, in each snapshot) and the log's (every prompt's
// record): over a year of sessions, gigabytes that a search reads, hashes
// and decodes only to skip them. With a cache directory, each manifest
// read is kept without them, only the log metadata's session member
// (manifest.Session) left, as the manifest encoder writes that
// (manifest.Encode), one file per manifest digest
// (userconfig.DigestCache): a manifest never changes under its digest, so
// the file never goes stale, and stores share it. It is taken only for a
// finalized pack whose manifest the store holds (Load reads any other),
// and one that is not whole or does not parse as a manifest is not used
// (the manifest is read, and the file written again).
const placesMagic = "ctx-grep-places 2"

// placesCache is the cache of manifests without their metadata in dir.
func placesCache(dir string) userconfig.DigestCache {
	return userconfig.DigestCache{Dir: filepath.Join(dir, "places"), Magic: placesMagic, What: "manifest without metadata"}
}

// DefaultCacheDir is where ctx-grep keeps the manifests it read
// (Options.CacheDir): $CTX_GREP_CACHE, "" when that is "off", else
// ctx/grep in the user's cache directory.
func DefaultCacheDir() string { return userconfig.CacheDir("CTX_GREP_CACHE", "grep") }

// Forget removes from dir, a cache of Options.CacheDir, the manifests of
// packs ps a store no longer holds (ctx-gc removed them), and returns how
// many files went. A store that still holds such a pack keeps its
// manifest there again at its next search.
func Forget(dir string, ps []digest.Digest) (int, error) {
	if dir == "" {
		return 0, nil
	}
	return placesCache(dir).Forget(ps)
}

// loadPlaces returns the manifest of pack d, whole (manifest.Load), or,
// from the cache in dir when it has it, without its metadata but the
// session: all placesOf and manifest.Session read.
func loadPlaces(s *store.Store, d digest.Digest, dir string) (*manifest.Manifest, error) {
	if dir == "" {
		return manifest.Load(s, d)
	}
	c := placesCache(dir)
	if b, ok := c.Load(d); ok {
		if fin, err := s.HasPack(d); err == nil && fin && has(s, d) {
			if mf, err := manifest.Parse(b); err == nil {
				mf.Hash = d
				return mf, nil
			}
		}
	}
	mf, err := manifest.Load(s, d)
	if err != nil {
		return nil, err
	}
	bare := *mf
	bare.Metadata = nil
	if s := gjson.GetBytes(mf.Metadata, "session"); s.Exists() {
		bare.Metadata = jsontext.Value(`{"session":` + s.Raw + `}`)
	}
	bare.Steps = slices.Clone(mf.Steps)
	for i := range bare.Steps {
		bare.Steps[i].Metadata = nil
	}
	if b, err := manifest.Encode(&bare); err == nil {
		_ = c.Save(d, b) // a cache: a search goes on without it
	}
	return mf, nil
}

// has reports whether s holds object d.
func has(s *store.Store, d digest.Digest) bool {
	ok, err := s.Has(d)
	return err == nil && ok
}

// placesOf lists the places of mf that opt selects, in manifest order
// (the one walk of manifest.Slots), with the object each references; a
// step's parameters come after its output and reasoning, inline.
func placesOf(mf *manifest.Manifest, opt Options) (places []Place, objs []digest.Digest, inline [][]byte) {
	stepsOnly := opt.Agent != "" || opt.Tool != ""
	stepOK := func(st *manifest.Step) bool {
		return (opt.Agent == "" || st.Agent == opt.Agent) && (opt.Tool == "" || st.Tool == opt.Tool)
	}
	add := func(p Place, d digest.Digest) {
		if opt.Fields&p.Field != 0 && !d.IsZero() {
			places = append(places, p)
			objs = append(objs, d)
		}
	}
	params := func(i int) {
		st := &mf.Steps[i]
		if opt.Fields&Call != 0 && len(st.Parameters) > 0 && stepOK(st) {
			places = append(places, Place{Pack: mf.Hash, Field: Call, Step: st.Index, Tool: st.Tool, Agent: st.Agent, Index: -1, Part: -1})
			objs = append(objs, digest.Digest{})
			// A copy: the decoded parameters are a view of the whole
			// manifest, which the search would otherwise hold to the
			// end (gigabytes over a year of sessions).
			inline = append(inline, bytes.Clone(st.Parameters))
		}
	}
	lastStep := -1
	for sl := range mf.Slots() {
		p := Place{Pack: mf.Hash, Step: -1, Index: sl.Index, Part: -1}
		switch sl.Field {
		case manifest.FieldStepOutput, manifest.FieldStepOutputPart, manifest.FieldStepReasoning:
			for lastStep < sl.Index-1 { // steps without slots (Encoded) still have parameters
				lastStep++
				params(lastStep)
			}
			st := &mf.Steps[sl.Index]
			if !stepOK(st) {
				break
			}
			p.Step, p.Tool, p.Agent, p.Index = st.Index, st.Tool, st.Agent, -1
			switch {
			case sl.Field == manifest.FieldStepReasoning:
				p.Field = Reasoning
			case st.Type == manifest.LLMCall:
				p.Field = Answer
			default:
				p.Field = Output
			}
			if sl.Field == manifest.FieldStepOutputPart {
				p.Part = sl.Part
			}
			add(p, *sl.Ref)
			if sl.Field == manifest.FieldStepReasoning {
				lastStep = sl.Index
				params(sl.Index)
			}
			continue
		}
		if stepsOnly {
			continue
		}
		switch sl.Field {
		case manifest.FieldSystemPrompt:
			p.Field, p.Role, p.Index = Prompt, "system", -1
		case manifest.FieldPrompt, manifest.FieldPromptPart:
			p.Field, p.Role = Prompt, mf.Prompts[sl.Index].Role
			if sl.Field == manifest.FieldPromptPart {
				p.Part = sl.Part
			}
		case manifest.FieldInput:
			p.Field, p.Name = Input, mf.Inputs[sl.Index].Name
		case manifest.FieldOutput:
			for lastStep < len(mf.Steps)-1 {
				lastStep++
				params(lastStep)
			}
			p.Field, p.Name = File, mf.Outputs[sl.Index].Name
		default:
			continue
		}
		add(p, *sl.Ref)
	}
	for lastStep < len(mf.Steps)-1 {
		lastStep++
		params(lastStep)
	}
	return places, objs, inline
}

// run searches the jobs, opt.Workers at a time, and emits their results
// in job order.
func run(s *store.Store, jobs []job, m *Matcher, opt Options, st *Stats, done *searched, emit func(*Result) error) error {
	for i := range jobs {
		j := &jobs[i]
		j.prior, j.seen = done.prior(j)
	}
	// Jobs are taken a batch at a time, and a batch's results handed over
	// at once: most objects are small and match nothing, and a hand-over
	// per object cost as much as reading it. At most window batches are
	// searched ahead of the one to emit next, which bounds what is held
	// in memory.
	window := 4 * opt.Workers
	batches := (len(jobs) + searchBatch - 1) / searchBatch
	var (
		mu    sync.Mutex
		cond  = sync.NewCond(&mu)
		res   = make([]*Result, len(jobs))
		ready = make([]bool, batches)
		sem   = make(chan struct{}, window)
		quit  = make(chan struct{})
		next  atomic.Int64
		wg    sync.WaitGroup
	)
	var objects, binary atomic.Int64
	var size atomic.Int64
	dir, err := s.OpenObjectDir()
	if err != nil {
		return err
	}
	defer dir.Close()
	for range min(opt.Workers, batches) {
		wg.Go(func() {
			var buf []byte // the object read last: each is read into it
			out := make([]*Result, 0, searchBatch)
			for {
				select {
				case sem <- struct{}{}:
				case <-quit:
					return
				}
				k := int(next.Add(1) - 1)
				if k >= batches {
					<-sem
					return
				}
				from, to := k*searchBatch, min((k+1)*searchBatch, len(jobs))
				out = out[:0]
				for i := from; i < to; i++ {
					var r *Result
					var n int64 = -1
					var bin bool
					if j := &jobs[i]; j.seen {
						r = &Result{Object: j.obj, Places: j.places}
						if p := j.prior; p != nil {
							r.Lines, r.Count, r.Binary, r.Err = p.Lines, p.Count, p.Binary, p.Err
						}
					} else {
						r, n, bin, buf = searchOne(dir, j, m, opt, buf)
					}
					if n >= 0 {
						objects.Add(1)
						size.Add(n)
					}
					if bin {
						binary.Add(1)
					}
					out = append(out, r)
				}
				mu.Lock()
				copy(res[from:to], out)
				ready[k] = true
				cond.Broadcast()
				mu.Unlock()
			}
		})
	}
emit:
	for k := range batches {
		mu.Lock()
		for !ready[k] {
			cond.Wait()
		}
		mu.Unlock()
		for i := k * searchBatch; i < min((k+1)*searchBatch, len(jobs)); i++ {
			r := res[i]
			res[i] = nil
			j := &jobs[i]
			if !j.seen {
				if r.Count > 0 || r.Err != nil {
					done.record(j, &Result{Object: r.Object, Lines: r.Lines, Count: r.Count, Binary: r.Binary, Err: r.Err})
					st.Matches += r.Count
				} else {
					done.record(j, nil)
				}
			}
			*j = job{}
			if r.Count > 0 || r.Err != nil {
				if err = emit(r); err != nil {
					break emit
				}
			}
		}
		<-sem
	}
	close(quit)
	wg.Wait()
	st.Objects += int(objects.Load())
	st.Bytes += size.Load()
	st.Binary += int(binary.Load())
	return err
}

// searchBatch is how many jobs a worker takes at a time.
const searchBatch = 64

// searchOne reads and searches one job's content, reading an object into
// buf (see store.ObjectDir.GetUpToInto). It returns the result (never
// nil, and holding nothing of buf), the size of the object read (-1 for
// parameters or an object not read), whether it was a binary object left
// out, and the buffer to read the next object into.
func searchOne(dir *store.ObjectDir, j *job, m *Matcher, opt Options, buf []byte) (*Result, int64, bool, []byte) {
	r := &Result{Object: j.obj, Places: j.places}
	b, n := j.inline, int64(-1)
	if b == nil {
		var size int64
		var err error
		b, size, err = dir.GetUpToInto(j.obj, store.MaxObjectInMemory, buf)
		switch {
		case err != nil:
			r.Err = err
			return r, -1, false, buf
		case b == nil:
			r.Err = fmt.Errorf("object %s is %d bytes, more than ctx-grep reads into memory (%d)", j.obj, size, store.MaxObjectInMemory)
			return r, -1, false, buf
		}
		n, buf = size, b
		if bytes.IndexByte(b[:min(len(b), BinaryPrefix)], 0) >= 0 {
			if opt.SkipBinary {
				return r, n, true, buf
			}
			if m.Match(b) {
				r.Binary, r.Count = true, 1
			}
			return r, n, false, buf
		}
	}
	switch opt.Mode {
	case ModeLines:
		size := 0
		m.Lines(b, func(l Line) bool {
			r.Lines = append(r.Lines, l)
			size += len(l.Text)
			return true
		})
		r.Count = len(r.Lines)
		if n >= 0 && len(r.Lines) > 0 { // the lines outlive buf: copy them out
			own := make([]byte, 0, size)
			for i := range r.Lines {
				l := &r.Lines[i]
				at := len(own)
				own = append(own, l.Text...)
				l.Text = own[at:len(own):len(own)]
			}
		}
	case ModeCount:
		r.Count = m.Count(b)
	default:
		if m.Match(b) {
			r.Count = 1
		}
	}
	return r, n, false, buf
}
