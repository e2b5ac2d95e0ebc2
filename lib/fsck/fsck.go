package fsck

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/cost"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Options tune a verification.
type Options struct {
	// Workers is how many objects are hashed at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, if set, is called now and then with the number of objects
	// and bytes hashed so far. Calls never overlap.
	Progress func(objects int, bytes int64)
}

// Store verifies the whole store s: every object's name is its content's
// SHA-256; every packs/ entry names a manifest that parses, agrees with
// the entry and references only objects that exist; refs point at
// finalized packs; nothing is a symlink and nothing lies outside the
// layout. Problems are violations in the report; the error is only for a
// store that cannot be read at all.
func Store(s *store.Store, opt Options) (*Report, error) {
	c := newChecker(s, opt)
	ents, err := os.ReadDir(s.Root())
	if err != nil {
		return nil, fmt.Errorf("verifying store %s: %w", s.Root(), err)
	}
	have := map[string]bool{}
	for _, e := range ents {
		name := e.Name()
		switch name {
		case store.ConfigFile, "hook.log": // hook.log: ctx-pack --as-hook's failures
			c.wantFile(name, e)
		case store.ObjectsDir, store.PacksDir, store.RefsDir, store.DraftsDir, store.TempDir:
			have[name] = c.wantDir(name, e)
		default:
			if strings.HasPrefix(name, ".tmp-") {
				c.warnTemp(name)
			} else {
				c.violate(RuleLayout, name, "is not part of the store layout")
			}
		}
	}
	for _, d := range []string{store.ObjectsDir, store.PacksDir, store.RefsDir} {
		if _, seen := have[d]; !seen {
			c.violate(RuleLayout, d, "directory is missing")
		}
	}
	if have[store.PacksDir] {
		// The manifests are most of a store's bytes: the objects pass
		// leaves them to the packs pass, which hashes each as it reads
		// it to parse, so that each is read and hashed once.
		c.manifests = c.listManifests()
	}
	if have[store.ObjectsDir] {
		c.checkObjects()
	}
	if have[store.PacksDir] {
		c.checkPacks()
	}
	// Manifests whose packs/ entries went away since the listing.
	c.verify(c.deferred)
	if have[store.RefsDir] {
		c.checkRefs()
	}
	if have[store.DraftsDir] {
		c.checkDrafts()
	}
	if have[store.TempDir] {
		c.checkTmp()
	}
	return c.report(digest.Digest{}), nil
}

// Pack verifies the pack d in s: it is finalized, its manifest object
// hashes to d and parses, its packs/ entry agrees with it, and every
// object it references exists and hashes to its name. A d that names
// neither a pack entry nor an object is store.ErrNotFound.
func Pack(s *store.Store, d digest.Digest, opt Options) (*Report, error) {
	c := newChecker(s, opt)
	rel := store.PackRel(d)
	entry, err := c.readEntry(rel)
	if errors.Is(err, fs.ErrNotExist) {
		if ok, _ := s.Has(d); !ok {
			return nil, fmt.Errorf("pack %s: %w", d, store.ErrNotFound)
		}
		c.violate(RuleEntry, rel, "is missing: the manifest object exists but the pack was never finalized")
	}
	if m := c.manifest(newWorker(), d, rel); m != nil {
		c.verify(m.Refs())
		c.checkPack(d, rel, m, entry, err == nil)
	}
	return c.report(d), nil
}

type checker struct {
	s       *store.Store
	workers int
	prog    func(int, int64)

	mu         sync.Mutex
	violations []Violation
	warnings   []Violation
	objects    int
	bytes      int64
	packs      int
	refCount   int
	state      map[digest.Digest]bool // hashed objects: true if intact
	// busy are the objects a worker is hashing: another that needs one
	// waits for the channel to close rather than hash it again.
	busy map[digest.Digest]chan struct{}
	// manifests are the packs listed before the objects pass, which
	// leaves their manifest objects (deferred) to the packs pass.
	manifests map[digest.Digest]bool
	deferred  []digest.Digest
}

func newChecker(s *store.Store, opt Options) *checker {
	w := opt.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return &checker{s: s, workers: w, prog: opt.Progress, state: map[digest.Digest]bool{}, busy: map[digest.Digest]chan struct{}{}}
}

func (c *checker) report(pack digest.Digest) *Report {
	return &Report{
		Store: c.s.Root(), Pack: pack,
		Objects: c.objects, Bytes: c.bytes, Packs: c.packs, Refs: c.refCount,
		Violations: sortViolations(c.violations),
		Warnings:   sortViolations(c.warnings),
	}
}

func (c *checker) violate(rule, path, format string, args ...any) {
	v := Violation{RuleID: rule, Path: path, Message: fmt.Sprintf(format, args...)}
	c.mu.Lock()
	c.violations = append(c.violations, v)
	c.mu.Unlock()
}

func (c *checker) warn(rule, path, format string, args ...any) {
	v := Violation{RuleID: rule, Path: path, Message: fmt.Sprintf(format, args...)}
	c.mu.Lock()
	c.warnings = append(c.warnings, v)
	c.mu.Unlock()
}

func (c *checker) warnTemp(rel string) {
	c.warn(RuleTemp, rel, "leftover temporary file of an interrupted or running write; safe to delete when no ctx command is running")
}

// ioMessage is err without the absolute path an *fs.PathError carries, so
// that messages do not depend on where the store lives.
func ioMessage(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// wantFile reports whether e is a regular file, and a violation if not.
func (c *checker) wantFile(rel string, e fs.DirEntry) bool {
	t := e.Type()
	switch {
	case t.IsRegular():
		return true
	case t.IsDir():
		c.violate(RuleFileType, rel, "is a directory where a file belongs")
	default:
		c.violate(RuleFileType, rel, "%s", store.DescribeMode(t))
	}
	return false
}

// wantDir reports whether e is a directory, and a violation if not.
func (c *checker) wantDir(rel string, e fs.DirEntry) bool {
	t := e.Type()
	switch {
	case t.IsDir():
		return true
	case t.IsRegular():
		c.violate(RuleFileType, rel, "is a file where a directory belongs")
	default:
		c.violate(RuleFileType, rel, "%s", store.DescribeMode(t))
	}
	return false
}

// readDir lists rel, reporting a directory that cannot be read.
func (c *checker) readDir(rel string) ([]fs.DirEntry, bool) {
	ents, err := os.ReadDir(c.s.Abs(rel))
	if err != nil {
		c.violate(RuleLayout, rel, "cannot be listed: %s", ioMessage(err))
		return nil, false
	}
	return ents, true
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// checkObjects hashes every object, one fan-out directory per task, on all
// workers.
func (c *checker) checkObjects() {
	ents, ok := c.readDir(store.ObjectsDir)
	if !ok {
		return
	}
	var fans []string
	for _, e := range ents {
		rel := store.FanOutRel(e.Name())
		if len(e.Name()) != 2 || !isLowerHex(e.Name()) {
			c.violate(RuleLayout, rel, "is not an object fan-out directory (two lowercase hex digits)")
			continue
		}
		if c.wantDir(rel, e) {
			fans = append(fans, e.Name())
		}
	}
	c.parallel(len(fans), func(w *worker, i int) { c.fanout(w, fans[i]) })
}

// worker holds one hashing goroutine's reusable state.
type worker struct {
	buf      []byte
	h        hash.Hash
	state    map[digest.Digest]bool
	objs     int
	bytes    int64
	deferred []digest.Digest // manifest objects left to the packs pass
	manifest []byte          // the last manifest read, reused
}

func newWorker() *worker {
	return &worker{buf: make([]byte, 256<<10), h: sha256.New(), state: map[digest.Digest]bool{}}
}

// parallel runs task(0…n-1) on c.workers goroutines, then merges what
// each worker hashed.
func (c *checker) parallel(n int, task func(w *worker, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(c.workers, n) {
		wg.Go(func() {
			w := newWorker()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				task(w, i)
				c.merge(w)
			}
		})
	}
	wg.Wait()
}

func (c *checker) merge(w *worker) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for d, ok := range w.state {
		c.state[d] = ok
	}
	clear(w.state)
	c.deferred = append(c.deferred, w.deferred...)
	w.deferred = w.deferred[:0]
	c.objects += w.objs
	c.bytes += w.bytes
	w.objs, w.bytes = 0, 0
	if c.prog != nil {
		c.prog(c.objects, c.bytes)
	}
}

// fanout hashes the objects in objects/<fan>.
func (c *checker) fanout(w *worker, fan string) {
	dir := store.FanOutRel(fan)
	ents, ok := c.readDir(dir)
	if !ok {
		return
	}
	for _, e := range ents {
		rel := dir + "/" + e.Name()
		if len(e.Name()) != digest.HexSize-2 || !isLowerHex(e.Name()) {
			c.violate(RuleLayout, rel, "is not an object name (62 lowercase hex digits)")
			continue
		}
		d, _ := digest.Parse(fan + e.Name())
		if !c.wantFile(rel, e) {
			// Present but unusable: references to it are not dangling.
			w.state[d] = false
			continue
		}
		if c.manifests[d] {
			w.deferred = append(w.deferred, d)
			continue
		}
		c.hashObject(w, d, rel)
	}
}

// hashObject hashes the object d at rel and records whether it is intact.
func (c *checker) hashObject(w *worker, d digest.Digest, rel string) {
	f, _, err := store.OpenFile(c.s.Abs(rel))
	if err != nil {
		c.violate(RuleObject, rel, "cannot be read: %s", ioMessage(err))
		w.state[d] = false
		return
	}
	defer f.Close()
	w.h.Reset()
	n, err := io.CopyBuffer(w.h, onlyReader{f}, w.buf)
	w.objs++
	w.bytes += n
	if err != nil {
		c.violate(RuleObject, rel, "cannot be read: %s", ioMessage(err))
		w.state[d] = false
		return
	}
	var got digest.Digest
	w.h.Sum(got[:0])
	if got != d {
		c.violate(RuleObject, rel, "content hashes to %s, not to its name", got)
		w.state[d] = false
		return
	}
	w.state[d] = true
}

// known returns whether object d was hashed, and if so whether it is
// intact.
func (c *checker) known(d digest.Digest) (intact, seen bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	intact, seen = c.state[d]
	return intact, seen
}

// onlyReader hides *os.File's WriterTo, so CopyBuffer uses our buffer.
type onlyReader struct{ io.Reader }

// verify hashes the objects ds that have not been hashed yet; one that is
// absent stays out of c.state, which is how references find it missing.
func (c *checker) verify(ds []digest.Digest) {
	var todo []digest.Digest
	var wait []chan struct{}
	c.mu.Lock()
	for _, d := range ds {
		if _, done := c.state[d]; done {
			continue
		}
		if ch, ok := c.busy[d]; ok {
			wait = append(wait, ch)
			continue
		}
		c.busy[d] = make(chan struct{})
		todo = append(todo, d)
	}
	c.mu.Unlock()
	c.parallel(len(todo), func(w *worker, i int) {
		d := todo[i]
		rel := store.ObjectRel(d)
		if _, ok := c.lstatObject(w, d, rel); ok {
			c.hashObject(w, d, rel)
		}
	})
	c.release(todo...)
	for _, ch := range wait {
		<-ch
	}
}

// claim reports whether the caller is to hash object d: it was neither
// hashed nor being hashed. Otherwise it waits for the worker hashing it.
// A claim is ended by release, after the outcome is in c.state.
func (c *checker) claim(d digest.Digest) bool {
	c.mu.Lock()
	if _, done := c.state[d]; done {
		c.mu.Unlock()
		return false
	}
	if ch, ok := c.busy[d]; ok {
		c.mu.Unlock()
		<-ch
		return false
	}
	c.busy[d] = make(chan struct{})
	c.mu.Unlock()
	return true
}

func (c *checker) release(ds ...digest.Digest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range ds {
		close(c.busy[d])
		delete(c.busy, d)
	}
}

// lstatObject returns the file of object d when it is a regular file;
// one that is absent stays out of w.state, which is how references find
// it missing.
func (c *checker) lstatObject(w *worker, d digest.Digest, rel string) (fs.FileInfo, bool) {
	fi, err := os.Lstat(c.s.Abs(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false
	case err != nil:
		c.violate(RuleObject, rel, "cannot be read: %s", ioMessage(err))
		w.state[d] = false
		return nil, false
	case !fi.Mode().IsRegular():
		c.violate(RuleFileType, rel, "%s", store.DescribeMode(fi.Mode().Type()))
		w.state[d] = false
		return nil, false
	}
	return fi, true
}

// manifest returns the parsed manifest of pack d, or nil after
// reporting why there is none. Its object is hashed as it is read, unless
// it was hashed before (then it is read and hashed again, so that what is
// parsed is what was verified).
func (c *checker) manifest(w *worker, d digest.Digest, rel string) *manifest.Manifest {
	obj := store.ObjectRel(d)
	var b []byte
	var readErr error
	if c.claim(d) {
		b, readErr = c.readManifest(w, d, obj)
		c.merge(w)
		c.release(d)
	} else if intact, _ := c.known(d); intact {
		b, readErr = store.ReadFile(c.s.Abs(obj), store.MaxObjectInMemory)
		if readErr == nil && digest.Of(b) != d {
			c.violate(RuleManifest, rel, "manifest object %s is corrupt", obj)
			return nil
		}
	}
	intact, seen := c.known(d)
	switch {
	case !seen:
		c.violate(RuleManifest, rel, "manifest object %s is missing", obj)
		return nil
	case !intact:
		c.violate(RuleManifest, rel, "manifest object %s is corrupt", obj)
		return nil
	case readErr != nil:
		c.violate(RuleManifest, rel, "manifest object %s cannot be read: %s", obj, ioMessage(readErr))
		return nil
	}
	m, err := manifest.Parse(b)
	if err != nil {
		c.violate(RuleManifest, rel, "manifest does not parse: %s", strings.TrimPrefix(err.Error(), "parsing manifest: "))
		return nil
	}
	m.Hash = d
	return m
}

// readManifest reads the manifest object d at rel whole into w.manifest,
// hashing it as it goes, and records in w.state whether it is intact. An
// object too large to read into memory is hashed as a stream; the error
// says why it was not read.
func (c *checker) readManifest(w *worker, d digest.Digest, rel string) ([]byte, error) {
	fi, ok := c.lstatObject(w, d, rel)
	if !ok {
		return nil, nil
	}
	if max := store.MaxObjectInMemory; fi.Size() > max {
		c.hashObject(w, d, rel)
		return nil, fmt.Errorf("it is %d bytes, more than the %d read into memory", fi.Size(), max)
	}
	f, _, err := store.OpenFile(c.s.Abs(rel))
	if err != nil {
		c.violate(RuleObject, rel, "cannot be read: %s", ioMessage(err))
		w.state[d] = false
		return nil, nil
	}
	defer f.Close()
	// Each chunk is hashed as soon as it is read, while in the cache.
	b := w.manifest[:0]
	w.h.Reset()
	for {
		if len(b) == cap(b) {
			b = slices.Grow(b, max(int(fi.Size())+1-len(b), len(w.buf)))
		}
		n, err := f.Read(b[len(b):min(cap(b), len(b)+len(w.buf))])
		w.h.Write(b[len(b) : len(b)+n])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err == nil && int64(len(b)) > store.MaxObjectInMemory {
			err = fmt.Errorf("it grew beyond the %d bytes read into memory", store.MaxObjectInMemory)
		}
		if err != nil {
			w.objs++
			w.bytes += int64(len(b))
			c.violate(RuleObject, rel, "cannot be read: %s", ioMessage(err))
			w.state[d] = false
			return nil, nil
		}
	}
	w.manifest = b
	w.objs++
	w.bytes += int64(len(b))
	var got digest.Digest
	w.h.Sum(got[:0])
	if got != d {
		c.violate(RuleObject, rel, "content hashes to %s, not to its name", got)
		w.state[d] = false
		return nil, nil
	}
	w.state[d] = true
	return b, nil
}

func (c *checker) readEntry(rel string) ([]byte, error) {
	fi, err := os.Lstat(c.s.Abs(rel))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.violate(RuleEntry, rel, "cannot be read: %s", ioMessage(err))
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		c.violate(RuleFileType, rel, "%s", store.DescribeMode(fi.Mode().Type()))
		return nil, errors.New("not a regular file")
	}
	b, err := store.ReadFile(c.s.Abs(rel), store.MaxEntrySize)
	if err != nil {
		c.violate(RuleEntry, rel, "cannot be read: %s", ioMessage(err))
	}
	return b, err
}

// checkPack checks a pack whose manifest parsed and whose objects have
// been hashed: its entry (when it has one) and its references.
func (c *checker) checkPack(d digest.Digest, rel string, m *manifest.Manifest, entry []byte, haveEntry bool) {
	if haveEntry {
		c.checkEntry(d, rel, m, entry)
	}
	for sl := range m.Slots() {
		if d := *sl.Ref; !d.IsZero() {
			if _, seen := c.known(d); !seen {
				c.violate(RuleDangling, rel, "%s references %s, which is not in the store", sl.Path, d)
			}
		}
	}
	if !m.Parent.IsZero() {
		if ok, _ := c.s.HasPack(m.Parent); !ok {
			c.warn(RuleParent, rel, "parent %s is not a finalized pack in this store", m.Parent)
		}
	}
}

func (c *checker) checkEntry(d digest.Digest, rel string, m *manifest.Manifest, entry []byte) {
	want, err := manifest.EncodeSummary(manifest.Summarize(m))
	if err != nil || bytes.Equal(entry, want) {
		return
	}
	got, ok := c.parseEntry(d, rel, entry)
	if !ok {
		return
	}
	w := manifest.Summarize(m)
	if got.Usage != nil {
		// Tokens, tallies and session follow from the manifest; the
		// dollar figures from the prices of the day it was packed.
		w.Usage = cost.Entry(m)
		if w.Usage != nil {
			keepCosts(w.Usage, got.Usage)
		}
	}
	if want, err = manifest.EncodeSummary(w); err != nil || bytes.Equal(entry, want) {
		return
	}
	var diff []string
	for _, f := range []struct {
		name string
		same bool
	}{
		{"created", got.Created == w.Created},
		{"model", got.Model == w.Model},
		{"steps", got.Steps == w.Steps},
		{"inputs", got.Inputs == w.Inputs},
		{"outputs", got.Outputs == w.Outputs},
		{"parent", got.Parent == w.Parent},
		{"usage", sameUsage(got.Usage, w.Usage)},
	} {
		if !f.same {
			diff = append(diff, f.name)
		}
	}
	if len(diff) > 0 {
		c.violate(RuleEntry, rel, "disagrees with its manifest on %s", strings.Join(diff, ", "))
		return
	}
	c.violate(RuleEntry, rel, "is not in canonical form")
}

// keepCosts copies the dollar figures of the entry's usage got into w,
// the usage its manifest gives, where their tallies line up.
func keepCosts(w, got *manifest.SummaryUsage) {
	w.CostUSD, w.Unpriced, w.Prices = got.CostUSD, got.Unpriced, got.Prices
	for _, t := range []struct{ w, got []manifest.SummaryTally }{{w.Models, got.Models}, {w.Agents, got.Agents}} {
		for i := range min(len(t.w), len(t.got)) {
			t.w[i].CostUSD = t.got[i].CostUSD
		}
	}
}

func sameUsage(a, b *manifest.SummaryUsage) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// parseEntry parses the packs/ entry of d, reporting why it does not.
func (c *checker) parseEntry(d digest.Digest, rel string, entry []byte) (manifest.Summary, bool) {
	if err := canon.Check(entry); err != nil {
		c.violate(RuleEntry, rel, "is not valid JSON: %s", err)
		return manifest.Summary{}, false
	}
	sum, err := manifest.ParseSummary(d, entry)
	if err != nil {
		var ce *store.CorruptError
		if errors.As(err, &ce) {
			err = ce.Err
		}
		c.violate(RuleEntry, rel, "does not parse: %s", strings.TrimPrefix(err.Error(), "json: "))
		return manifest.Summary{}, false
	}
	return sum, true
}

// checkPacks checks every packs/ entry against the hashed objects.
func (c *checker) checkPacks() {
	ents, ok := c.readDir(store.PacksDir)
	if !ok {
		return
	}
	var names []string
	for _, e := range ents {
		name := e.Name()
		rel := store.PacksDir + "/" + name
		switch {
		case strings.HasPrefix(name, ".tmp-"):
			c.warnTemp(rel)
			continue
		case len(name) != digest.HexSize || !isLowerHex(name):
			c.violate(RuleLayout, rel, "is not a pack entry name (64 lowercase hex digits)")
			continue
		case !c.wantFile(rel, e):
			continue
		}
		names = append(names, name)
	}
	c.packs += len(names)
	// One pack per worker at a time: the manifests of a large store are
	// gigabytes to read, hash and parse.
	c.parallel(len(names), func(w *worker, i int) { c.checkPackEntry(w, names[i]) })
}

// listManifests returns the packs packs/ lists. It reports nothing:
// checkPacks lists the directory again and says what is wrong with it.
func (c *checker) listManifests() map[digest.Digest]bool {
	ents, err := os.ReadDir(c.s.Abs(store.PacksDir))
	if err != nil {
		return nil
	}
	ms := make(map[digest.Digest]bool, len(ents))
	for _, e := range ents {
		if name := e.Name(); len(name) == digest.HexSize && isLowerHex(name) {
			d, _ := digest.Parse(name)
			ms[d] = true
		}
	}
	return ms
}

// checkPackEntry checks the pack of the packs/ entry name.
func (c *checker) checkPackEntry(w *worker, name string) {
	rel := store.PacksDir + "/" + name
	d, _ := digest.Parse(name)
	entry, err := c.readEntry(rel)
	// A pack finalized after objects/ was listed has objects the
	// listing missed; they were durable before its entry appeared, so
	// look for them now rather than call them missing.
	if m := c.manifest(w, d, rel); m != nil {
		c.verify(m.Refs())
		c.checkPack(d, rel, m, entry, err == nil)
	} else if err == nil {
		c.parseEntry(d, rel, entry)
	}
}

// checkRefs checks refs/latest and every tag.
func (c *checker) checkRefs() {
	ents, ok := c.readDir(store.RefsDir)
	if !ok {
		return
	}
	for _, e := range ents {
		name := e.Name()
		rel := store.RefsDir + "/" + name
		switch {
		case name == store.Latest:
			if c.wantFile(rel, e) {
				c.checkRef(store.Latest, rel)
			}
		case rel == store.TagsDir:
			if c.wantDir(rel, e) {
				c.checkTags()
			}
		case strings.HasSuffix(name, ".lock"):
			c.warn(RuleTemp, rel, "lock file of an interrupted or running ref update; safe to delete when no ctx command is running")
		default:
			c.violate(RuleLayout, rel, "is not part of the store layout")
		}
	}
}

func (c *checker) checkTags() {
	ents, ok := c.readDir(store.TagsDir)
	if !ok {
		return
	}
	for _, e := range ents {
		name := e.Name()
		rel := store.TagsDir + "/" + name
		switch {
		case strings.HasSuffix(name, ".lock"):
			c.warn(RuleTemp, rel, "lock file of an interrupted or running ref update; safe to delete when no ctx command is running")
		case !c.wantFile(rel, e):
		case store.CheckTagName(name) != nil:
			c.refCount++
			c.violate(RuleRef, rel, "is not a valid tag name")
		default:
			c.checkRef(name, rel)
		}
	}
}

func (c *checker) checkRef(name, rel string) {
	c.refCount++
	b, err := store.ReadFile(c.s.Abs(rel), store.MaxRefSize)
	if err != nil {
		c.violate(RuleRef, rel, "cannot be read: %s", ioMessage(err))
		return
	}
	text := strings.TrimSuffix(string(b), "\n")
	d, err := digest.Parse(text)
	if err != nil || !strings.HasPrefix(text, "sha256:") || d.String() != text {
		if len(text) > 80 {
			text = text[:80] + "…"
		}
		c.violate(RuleRef, rel, "holds %q, not sha256:<64 lowercase hex digits>", text)
		return
	}
	if ok, _ := c.s.HasPack(d); !ok {
		c.violate(RuleRef, rel, "points at %s, which is not a finalized pack", d)
	}
}

// checkDrafts only checks that drafts are plain files: their content is an
// editable log, not part of any pack.
func (c *checker) checkDrafts() {
	ents, ok := c.readDir(store.DraftsDir)
	if !ok {
		return
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			c.warnTemp(store.DraftsDir + "/" + e.Name())
			continue
		}
		c.wantFile(store.DraftsDir+"/"+e.Name(), e)
	}
}

func (c *checker) checkTmp() {
	ents, ok := c.readDir(store.TempDir)
	if !ok {
		return
	}
	for _, e := range ents {
		c.warnTemp(store.TempDir + "/" + e.Name())
	}
}
