package blame

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/edit"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

// fileIndex is blame's index of the store by file, in the user's cache
// (the files directory of the blame cache): what a blame of one file
// reads, so that its cost follows the file's history, not the store's.
//
//	p/<hh>/<hex>   per pack (named by its hash): the paths it has
//	               versions of, each edit's paths and snapshot key, the
//	               files its session read (packEntry)
//	b/<hh>/<hex>   blobs, named by the SHA-256 of their content: per pack
//	               and path, the steps and views of that path (section);
//	               the text of views, which snapshots of a session and
//	               sessions that read one version share; the hashes of
//	               the lines each pack's edits add, per path (lineTable)
//	r/<hh>/<hex>   what a replay of some paths ended with (their last
//	               versions, the lines their edits added), named by the
//	               paths and the packs replayed
//	l/<hh>/<hex>   per set of paths replayed (named by the paths): the
//	               names of the results last written for it, newest
//	               first, at most keptResults; writing one more removes
//	               from r/ those that fall off the list (keepResult)
//	catalog        every indexed pack's paths and session, the paths
//	               changed together (a rename, a patch of several files),
//	               and a sorted table of line hash → path
//
// The line table is what finds, for a line the file's own history
// leaves unknown, the other paths whose replay may add it to the pool:
// the lines of each step's whole writes and of the files shell steps
// left, written(ed) for edits that do not apply, and for the others the
// lines they add to the file as the session last saw it, aligned as
// replay aligns them. Replay applies an edit to the history's copy of
// the file, which is what the session saw when it recorded the file just
// before (a Claude Code edit's originalFile is such a view); an edit
// recorded without one, made after another session changed the same
// lines, is the case this rests on.
//
// A pack never changes, so no entry goes stale; the catalog grows by the
// packs it lacks, and a pack it names that the store no longer has is
// passed over (ctx-gc takes out those it drops, and their entries:
// Forget). Every file carries a CRC-32C of its content: one that
// does not match (or is missing, or not a regular file) is derived again
// from the manifests, never used. Nothing written here is needed for an
// answer: a write that fails leaves the run's data in memory.
type fileIndex struct {
	dir     string
	workers int               // packs derived side by side; 0: one per CPU, up to maxWorkers
	mu      sync.Mutex        // guards mem: packs are derived side by side
	mem     map[string][]byte // blobs and entries this run made but could not write
}

const (
	entryMagic   = "ctx-blame-pack 1"
	blobMagic    = "ctx-blame-blob 1"
	catalogMagic = "ctx-blame-catalog 1"
	resultMagic  = "ctx-blame-result 4"
	listMagic    = "ctx-blame-results 1"
	// keptResults is how many results are kept per set of paths: the
	// last written, so that stores or --pack subsets sharing the cache
	// do not remove each other's at every run.
	keptResults = 4
	// maxList bounds what is read of a list of results (keptResults
	// names of 64 hex digits and a newline each).
	maxList = 4096
	// maxIndexFile bounds what is read of one index file.
	maxIndexFile = 1 << 30
)

// errCorrupt is an index file that does not hold what it should.
var errCorrupt = errors.New("blame index entry corrupt")

// frame heads body with magic and its checksum (userconfig.CheckedHeader).
func frame(magic string, body []byte) []byte {
	return append(userconfig.CheckedHeader(magic, body), body...)
}

// unframe returns the body of b, framed with magic; errCorrupt when it
// is not.
func unframe(magic string, b []byte) ([]byte, error) {
	body, ok := userconfig.CheckedBody(magic, b)
	if !ok {
		return nil, errCorrupt
	}
	return body, nil
}

func (fx *fileIndex) read(name, magic string) ([]byte, error) {
	return fx.readMax(name, magic, maxIndexFile)
}

// readMax is read of a file of at most max bytes.
func (fx *fileIndex) readMax(name, magic string, max int64) ([]byte, error) {
	// Not a symlink, a pipe or a device; where it is matters less than
	// what it holds, which its checksum says.
	b, err := found.ReadFile(filepath.Join(fx.dir, name), found.Rule{What: "blame index file", Max: max, Unresolved: true})
	if err != nil {
		return nil, errCorrupt
	}
	return unframe(magic, b)
}

func (fx *fileIndex) write(name, magic string, body []byte) error {
	return userconfig.WriteCache(filepath.Join(fx.dir, name), frame(magic, body))
}

func shard(hex string) string { return filepath.Join(hex[:2], hex[2:]) }

// entryName is the file of pack d's entry in the index.
func entryName(d digest.Digest) string { return filepath.Join("p", shard(d.Hex())) }

// blobName is the file of the blob ref in the index; false when ref is
// not a blob's name (64 lowercase hex digits).
func blobName(ref string) (string, bool) {
	var d digest.Digest
	if !digest.FromLowerHex(&d, []byte(ref)) {
		return "", false
	}
	return filepath.Join("b", shard(ref)), true
}

// inMem returns what was kept in memory under key.
func (fx *fileIndex) inMem(key string) ([]byte, bool) {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	b, ok := fx.mem[key]
	return b, ok
}

// keep keeps b in memory under key: a file the index could not write.
func (fx *fileIndex) keep(key string, b []byte) {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	fx.mem[key] = b
}

// putBlob stores b and returns its name; rewrite writes it even when
// present.
func (fx *fileIndex) putBlob(b []byte, rewrite bool) string {
	ref := digest.Of(b).Hex()
	name, _ := blobName(ref)
	if _, ok := fx.inMem(ref); ok {
		return ref
	}
	if fi, err := os.Lstat(filepath.Join(fx.dir, name)); !rewrite && err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(b)+len(blobMagic)+10) {
		return ref // written before (content addressed); read checks it
	}
	if fx.write(name, blobMagic, b) != nil {
		fx.keep(ref, b)
	}
	return ref
}

// blob returns the blob ref.
func (fx *fileIndex) blob(ref string) ([]byte, error) {
	if b, ok := fx.inMem(ref); ok {
		return b, nil
	}
	name, ok := blobName(ref)
	if !ok {
		return nil, errCorrupt
	}
	return fx.read(name, blobMagic)
}

// packEntry is a pack's entry of the file index.
type packEntry struct {
	Pack    string   `json:"pack"`
	Created string   `json:"created"`
	Steps   int      `json:"steps"`
	Session string   `json:"session,omitzero"`
	Cwd     string   `json:"cwd,omitzero"`
	Partial []string `json:"partial,omitzero"`
	Bases   []base   `json:"bases,omitzero"`
	// Names are the paths the pack has versions of (as build names
	// them), Sections the blob of each one's section.
	Names    []string    `json:"names,omitzero"`
	Sections []string    `json:"sections,omitzero"`
	Edits    []entryEdit `json:"edits,omitzero"`
	Edges    [][2]int    `json:"edges,omitzero"` // names changed together
	Lines    string      `json:"lines,omitzero"` // blob: lineHashes
}

// entryEdit is an edit step of a pack, as the edits of paths not asked
// about need it: its snapshot key and the paths (indexes in Names) it
// changed; none for a step that is no edit build applies.
type entryEdit struct {
	Key   string `json:"k,omitzero"`
	Paths []int  `json:"p,omitzero"`
}

// section is what a pack recorded of one path: the edit steps that
// changed it and its views.
type section struct {
	Edits []sectionEdit `json:"edits,omitzero"`
	Views []sectionView `json:"views,omitzero"`
}

type sectionEdit struct {
	I    int      `json:"i"` // in packEntry.Edits
	Edit editStep `json:"edit"`
}

type sectionView struct {
	Path   string `json:"path"`
	Time   string `json:"time,omitzero"`
	Step   int    `json:"step"`
	Before bool   `json:"before,omitzero"`
	Text   string `json:"text"` // blob
}

// outside names the paths of an edit that changes no path in its
// session's directory: it is a path of its own, for the lines it wrote.
func outside(pack string, step int) string { return "\x00" + pack + "#" + strconv.Itoa(step) }

// lineHash is the hash of a trimmed line in the catalog's table.
func lineHash(t string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(t))
	return h.Sum64()
}

// repair derives the entry of pack d again, one of whose files is
// damaged: every blob is written again.
func (fx *fileIndex) repair(s *store.Store, d digest.Digest) (*packEntry, error) {
	return fx.derive(s, d, true)
}

// derive makes the entry of pack d from its manifest, writing its
// blobs (again, when rewrite is set, even those present).
func (fx *fileIndex) derive(s *store.Store, d digest.Digest, rewrite bool) (*packEntry, error) {
	m, err := manifest.Load(s, d)
	if err != nil {
		return nil, err
	}
	pe, err := edits(s, m)
	if err != nil {
		return nil, err
	}
	en := &packEntry{Pack: pe.Pack, Created: pe.Created, Steps: pe.Steps, Session: pe.Session, Cwd: pe.Cwd, Partial: pe.Partial, Bases: pe.Bases}
	ids := map[string]int{}
	intern := func(p string) int {
		i, ok := ids[p]
		if !ok {
			i = len(en.Names)
			ids[p] = i
			en.Names = append(en.Names, p)
		}
		return i
	}
	var secs []section
	sec := func(i int) *section {
		for len(secs) <= i {
			secs = append(secs, section{})
		}
		return &secs[i]
	}
	edges := map[[2]int]bool{}
	lines := map[int]map[uint64]bool{}
	addLines := func(i int, ls []string) {
		if lines[i] == nil {
			lines[i] = map[uint64]bool{}
		}
		for _, l := range ls {
			if t := strings.TrimSpace(l); distinctive(t) {
				lines[i][lineHash(t)] = true
			}
		}
	}
	ts := newTexts(s)
	// What the session last knew of each path (as build names them),
	// to find the lines an edit makes: those of its parameters, and
	// those of the line an edit of part of a line changes.
	known := map[string]string{}
	for _, b := range pe.Bases {
		if d, err := digest.Parse(b.ContentRef); err == nil {
			if text, err := ts.get(d); err == nil {
				known[b.Path] = text
			}
		}
	}
	viewsAt := map[int][]view{}
	for _, v := range pe.Views {
		viewsAt[v.Step] = append(viewsAt[v.Step], v)
	}
	see := func(step int, before bool) {
		for _, v := range viewsAt[step] {
			if v.Before == before {
				if p, ok := relative(v.Path, pe.Cwd); ok {
					known[p] = v.Text
				}
			}
		}
	}
	for i, e := range pe.Edits {
		ee := entryEdit{}
		if pe.Session != "" {
			k := digest.Of([]byte(editKey(pe.Session, e))).Hex()
			ee.Key = k[:32]
		}
		see(e.Step, true)
		var paths []int
		switch {
		case e.Observed != nil:
			for _, f := range e.Observed {
				paths = append(paths, intern(f.Name))
				if f.Deleted || f.Skipped != "" {
					continue
				}
				text, err := ts.get(f.ContentRef)
				if err != nil {
					return nil, fmt.Errorf("pack %s: step %d: observed %s: %w", pe.Pack, e.Step, f.Name, err)
				}
				addLines(intern(f.Name), splitText(text))
				known[f.Name] = text
			}
		default:
			ed, err := edit.Parse(e.Tool, e.Parameters)
			if err != nil || ed == nil {
				break
			}
			for _, p := range ed.Paths() {
				if p, ok := relative(p, pe.Cwd); ok {
					if j := intern(p); !slices.Contains(paths, j) {
						paths = append(paths, j)
					}
				}
			}
			if len(paths) == 0 {
				paths = []int{intern(outside(pe.Pack, e.Step))}
			}
			w := written(ed)
			for _, j := range paths {
				addLines(j, w)
			}
			changes, err := ed.Apply(func(p string) (string, error) {
				if rel, ok := relative(p, pe.Cwd); ok {
					if text, ok := known[rel]; ok {
						return text, nil
					}
				}
				return "", edit.ErrNotExist
			})
			if err != nil {
				break
			}
			whole := ed.Replacements() == nil && ed.Patch() == nil
			for _, ch := range changes {
				rel, ok := relative(ch.Path, pe.Cwd)
				if !ok || ch.Deleted {
					continue
				}
				from := rel
				if ch.From != "" {
					from, _ = relative(ch.From, pe.Cwd)
				}
				prev, had := known[from]
				known[rel] = ch.Content
				j, ok := ids[rel]
				if !ok {
					continue
				}
				if whole || !had {
					addLines(j, splitText(ch.Content))
					continue
				}
				// The lines it adds to what the session saw, as replay
				// aligns them: the history's copy is what the session saw
				// (a Claude Code edit's originalFile is a view just
				// before it), or the same around what the edit changes.
				_, added := fromText(prev).next(splitText(ch.Content), &Origin{}, nil)
				addLines(j, added)
			}
		}
		see(e.Step, false)
		ee.Paths = paths
		en.Edits = append(en.Edits, ee)
		if len(paths) > 0 {
			// The section of each path carries the whole step.
			for _, j := range paths {
				sec(j).Edits = append(sec(j).Edits, sectionEdit{I: i, Edit: e})
			}
			for k := 1; k < len(paths); k++ {
				edges[[2]int{paths[k-1], paths[k]}] = true
			}
		}
	}
	for _, v := range pe.Views {
		p, ok := relative(v.Path, pe.Cwd)
		j, edited := ids[p]
		if !ok || !edited {
			continue // never a version: the session did not edit it
		}
		sec(j).Views = append(sec(j).Views, sectionView{Path: v.Path, Time: v.Time, Step: v.Step, Before: v.Before, Text: fx.putBlob([]byte(v.Text), rewrite)})
	}
	en.Edges = slices.SortedFunc(maps.Keys(edges), func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for j := range en.Names {
		b, err := json.Marshal(sec(j))
		if err != nil {
			return nil, err
		}
		en.Sections = append(en.Sections, fx.putBlob(b, rewrite))
	}
	var lb []byte
	for j := range en.Names {
		hs := slices.Sorted(maps.Keys(lines[j]))
		lb = binary.LittleEndian.AppendUint32(lb, uint32(j))
		lb = binary.LittleEndian.AppendUint32(lb, uint32(len(hs)))
		for _, h := range hs {
			lb = binary.LittleEndian.AppendUint64(lb, h)
		}
	}
	en.Lines = fx.putBlob(lb, rewrite)
	b, err := json.Marshal(en)
	if err != nil {
		return nil, err
	}
	if fx.write(entryName(d), entryMagic, b) != nil {
		fx.keep("p"+d.Hex(), b)
	}
	return en, nil
}

// entry returns the entry of pack d, from the index when it holds a
// sound one, else derived from the manifest (and written).
func (fx *fileIndex) entry(s *store.Store, d digest.Digest) (*packEntry, error) {
	if en, ok := fx.stored(d); ok {
		return en, nil
	}
	return fx.derive(s, d, false)
}

// stored returns the entry of pack d as the index holds it; false when
// it holds no sound one.
func (fx *fileIndex) stored(d digest.Digest) (*packEntry, bool) {
	b, ok := fx.inMem("p" + d.Hex())
	var err error
	if !ok {
		b, err = fx.read(entryName(d), entryMagic)
	}
	if err == nil {
		var en packEntry
		if json.Unmarshal(b, &en) == nil && en.Pack == d.String() && len(en.Sections) == len(en.Names) {
			return &en, true
		}
	}
	return nil, false
}

// lineTable reads an entry's line hashes: per name index, its hashes.
func (fx *fileIndex) lineTable(en *packEntry, f func(name int, h uint64)) error {
	b, err := fx.blob(en.Lines)
	if err != nil {
		return err
	}
	for len(b) > 0 {
		if len(b) < 8 {
			return errCorrupt
		}
		j, n := int(binary.LittleEndian.Uint32(b)), int(binary.LittleEndian.Uint32(b[4:]))
		b = b[8:]
		if j >= len(en.Names) || n > len(b)/8 {
			return errCorrupt
		}
		for k := 0; k < n; k++ {
			f(j, binary.LittleEndian.Uint64(b[8*k:]))
		}
		b = b[8*n:]
	}
	return nil
}

// catalog is the file index's table of contents.
type catalog struct {
	Packs     []catPack `json:"packs"`
	Paths     []string  `json:"paths"`
	Edges     [][2]int  `json:"edges,omitzero"`
	lines     []byte    // pairs of line hash (8 bytes) and path (4), sorted
	ids       map[string]int
	packs     map[string]bool // indexed
	edge      map[[2]int]bool
	byPath    [][]int          // packs (in Packs) that have versions of each path
	adj       map[int][]int    // paths changed together
	bySession map[string][]int // packs of each session
	byBase    map[string][]int // paths by their last element
}

type catPack struct {
	Pack    string `json:"pack"`
	Session string `json:"session,omitzero"`
	Names   []int  `json:"names,omitzero"` // in Paths
}

const pairSize = 12

// loadCatalog returns the catalog, empty when there is none or it is
// corrupt.
func (fx *fileIndex) loadCatalog() *catalog {
	c := &catalog{}
	if b, err := fx.read("catalog", catalogMagic); err == nil && len(b) >= 4 {
		n := int(binary.LittleEndian.Uint32(b))
		if n <= len(b)-4 && (len(b)-4-n)%pairSize == 0 && json.Unmarshal(b[4:4+n], c) == nil {
			c.lines = b[4+n:]
		} else {
			c = &catalog{}
		}
	}
	c.sets()
	return c
}

// sets makes the catalog's sets of paths, packs and edges.
func (c *catalog) sets() {
	c.ids = map[string]int{}
	for i, p := range c.Paths {
		c.ids[p] = i
	}
	c.packs = map[string]bool{}
	for _, p := range c.Packs {
		c.packs[p.Pack] = true
	}
	c.edge = map[[2]int]bool{}
	for _, e := range c.Edges {
		c.edge[e] = true
	}
}

// add adds an entry's pack to the catalog, returning its line pairs.
func (c *catalog) add(fx *fileIndex, en *packEntry) ([]byte, error) {
	ids := make([]int, len(en.Names))
	for j, p := range en.Names {
		id, ok := c.ids[p]
		if !ok {
			id = len(c.Paths)
			c.ids[p] = id
			c.Paths = append(c.Paths, p)
		}
		ids[j] = id
	}
	for _, e := range en.Edges {
		if e[0] >= len(ids) || e[1] >= len(ids) {
			return nil, errCorrupt
		}
		k := [2]int{ids[e[0]], ids[e[1]]}
		if !c.edge[k] {
			c.edge[k] = true
			c.Edges = append(c.Edges, k)
		}
	}
	var pairs []byte
	err := fx.lineTable(en, func(j int, h uint64) {
		pairs = binary.BigEndian.AppendUint64(pairs, h)
		pairs = binary.BigEndian.AppendUint32(pairs, uint32(ids[j]))
	})
	if err != nil {
		return nil, err
	}
	c.Packs = append(c.Packs, catPack{Pack: en.Pack, Session: en.Session, Names: ids})
	c.packs[en.Pack] = true
	return pairs, nil
}

// mergePairs merges the sorted table a with the unsorted pairs b.
func mergePairs(a, b []byte) []byte {
	ps := make([][]byte, 0, len(b)/pairSize)
	for i := 0; i+pairSize <= len(b); i += pairSize {
		ps = append(ps, b[i:i+pairSize])
	}
	slices.SortFunc(ps, bytes.Compare)
	out := make([]byte, 0, len(a)+len(b))
	i := 0
	for _, p := range slices.CompactFunc(ps, bytes.Equal) {
		for i+pairSize <= len(a) && bytes.Compare(a[i:i+pairSize], p) < 0 {
			out = append(out, a[i:i+pairSize]...)
			i += pairSize
		}
		if i+pairSize <= len(a) && bytes.Equal(a[i:i+pairSize], p) {
			continue
		}
		out = append(out, p...)
	}
	return append(out, a[i:]...)
}

const (
	// entryWindow bounds how many packs' entries are read ahead of the
	// catalog that adds them.
	entryWindow = 16
	// maxWorkers bounds the packs derived at once, each with its
	// manifest in memory: deriving is as much creating files as
	// computing.
	maxWorkers = 4
)

// derived is the entry of a pack, or the error of reading it.
type derived struct {
	en  *packEntry
	err error
}

// entries reads the entries of the packs ds (fx.entry: a pack the index
// lacks is derived from its manifest), one worker per CPU (at most
// maxWorkers), at most entryWindow packs ahead of the caller, which asks
// get for the entry of each in order, and calls stop when done.
func (fx *fileIndex) entries(s *store.Store, ds []digest.Digest) (get func(i int) derived, stop func()) {
	out := make([]chan derived, len(ds))
	for i := range out {
		out[i] = make(chan derived, 1)
	}
	// A worker takes a place in ahead before it takes a pack; the
	// caller frees one as it takes each entry.
	ahead := make(chan struct{}, entryWindow)
	quit := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := fx.workers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), maxWorkers)
	}
	for range min(workers, len(ds)) {
		wg.Go(func() {
			for {
				select {
				case ahead <- struct{}{}:
				case <-quit:
					return
				}
				i := int(next.Add(1)) - 1
				if i >= len(ds) {
					return
				}
				en, err := fx.entry(s, ds[i])
				out[i] <- derived{en, err}
			}
		})
	}
	get = func(i int) derived {
		r := <-out[i]
		<-ahead
		return r
	}
	return get, func() {
		close(quit)
		wg.Wait()
	}
}

// update adds the packs ps that the catalog lacks, and writes it when it
// grew. Their entries are read side by side (entries), and added in the
// order of ps.
func (fx *fileIndex) update(s *store.Store, c *catalog, ps []digest.Digest) error {
	var todo []digest.Digest
	seen := map[string]bool{}
	for _, d := range ps {
		if k := d.String(); !c.packs[k] && !seen[k] {
			seen[k] = true
			todo = append(todo, d)
		}
	}
	get, stop := fx.entries(s, todo)
	defer stop()
	var pairs []byte
	grew := false
	for i, d := range todo {
		r := get(i)
		en, err := r.en, r.err
		if err != nil {
			return err
		}
		p, err := c.add(fx, en)
		if errors.Is(err, errCorrupt) {
			// The entry or its line table is damaged: derive it again.
			if en, err = fx.repair(s, d); err == nil {
				p, err = c.add(fx, en)
			}
		}
		if err != nil {
			return err
		}
		pairs = append(pairs, p...)
		grew = true
	}
	if !grew {
		return nil
	}
	c.lines = mergePairs(c.lines, pairs)
	_ = fx.saveCatalog(c) // a catalog not written is made again
	return nil
}

// saveCatalog writes the catalog c.
func (fx *fileIndex) saveCatalog(c *catalog) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	body := binary.LittleEndian.AppendUint32(nil, uint32(len(b)))
	body = append(append(body, b...), c.lines...)
	return fx.write("catalog", catalogMagic, body)
}

// drop removes the packs gone from the catalog, and the paths no pack
// left has versions of, with their edges and line pairs; false when the
// catalog names none of gone. The pairs keep their order: paths keep
// theirs, so a pair's new number sorts as its old one did.
func (c *catalog) drop(gone map[string]bool) bool {
	var packs []catPack
	for _, p := range c.Packs {
		if !gone[p.Pack] {
			packs = append(packs, p)
		}
	}
	if len(packs) == len(c.Packs) {
		return false
	}
	renum := make([]int, len(c.Paths)) // 1 + the new number; 0: gone
	for _, p := range packs {
		for _, id := range p.Names {
			if id < len(renum) {
				renum[id] = 1
			}
		}
	}
	var paths []string
	for id, p := range c.Paths {
		if renum[id] > 0 {
			paths = append(paths, p)
			renum[id] = len(paths)
		}
	}
	kept := func(id int) (int, bool) {
		if id < 0 || id >= len(renum) || renum[id] == 0 {
			return 0, false
		}
		return renum[id] - 1, true
	}
	for i, p := range packs {
		names := make([]int, 0, len(p.Names))
		for _, id := range p.Names {
			if n, ok := kept(id); ok {
				names = append(names, n)
			}
		}
		packs[i].Names = names
	}
	var edges [][2]int
	for _, e := range c.Edges {
		a, ok1 := kept(e[0])
		b, ok2 := kept(e[1])
		if ok1 && ok2 {
			edges = append(edges, [2]int{a, b})
		}
	}
	lines := make([]byte, 0, len(c.lines))
	for i := 0; i+pairSize <= len(c.lines); i += pairSize {
		if n, ok := kept(int(binary.BigEndian.Uint32(c.lines[i+8:]))); ok {
			lines = append(lines, c.lines[i:i+8]...)
			lines = binary.BigEndian.AppendUint32(lines, uint32(n))
		}
	}
	if packs == nil {
		packs = []catPack{}
	}
	c.Packs, c.Paths, c.Edges, c.lines = packs, paths, edges, lines
	c.sets()
	return true
}

// index makes the lookups of a loaded catalog.
func (c *catalog) index() {
	c.byPath = make([][]int, len(c.Paths))
	c.bySession = map[string][]int{}
	for i, p := range c.Packs {
		for _, id := range p.Names {
			c.byPath[id] = append(c.byPath[id], i)
		}
		if p.Session != "" {
			c.bySession[p.Session] = append(c.bySession[p.Session], i)
		}
	}
	c.adj = map[int][]int{}
	for _, e := range c.Edges {
		c.adj[e[0]] = append(c.adj[e[0]], e[1])
		c.adj[e[1]] = append(c.adj[e[1]], e[0])
	}
	c.byBase = map[string][]int{}
	for i, p := range c.Paths {
		if !strings.HasPrefix(p, "\x00") {
			c.byBase[path.Base(p)] = append(c.byBase[path.Base(p)], i)
		}
	}
}

// linePaths returns the paths whose versions may hold the trimmed line t.
func (c *catalog) linePaths(t string) []int {
	var key [8]byte
	binary.BigEndian.PutUint64(key[:], lineHash(t))
	n := len(c.lines) / pairSize
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(c.lines[m*pairSize:m*pairSize+8], key[:]) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	var out []int
	for k := lo; k < n && bytes.Equal(c.lines[k*pairSize:k*pairSize+8], key[:]); k++ {
		out = append(out, int(binary.BigEndian.Uint32(c.lines[k*pairSize+8:])))
	}
	return out
}

// candidates returns the paths lookup may take for file: the same path,
// or a path file ends with.
func (c *catalog) candidates(file string) []int {
	var out []int
	for _, id := range c.byBase[path.Base(file)] {
		if p := c.Paths[id]; p == file || strings.HasSuffix(file, "/"+p) {
			out = append(out, id)
		}
	}
	return out
}

// lazy is an Index built from the file index, path by path, as the
// files blamed need them.
type lazy struct {
	s    *store.Store
	fx   *fileIndex
	cat  *catalog
	live map[string]bool    // the packs blamed
	done map[int]bool       // the paths replayed (closed under cat.adj)
	ents map[int]*packEntry // by index in cat.Packs
	// What one replay reads (need): the sections and view texts its
	// packs' snapshots share, the files from the store. Each replay is
	// of other paths, so it reads other sections and texts: kept for
	// every file blamed, they were most of the index's blobs.
	ts    *texts
	secs  map[string]*section
	texts map[string]string // view texts by blob
}

// openLazy reads the file index in dir, adding the packs ps it lacks.
func openLazy(s *store.Store, dir string, ps []digest.Digest) (*Index, error) {
	fx := &fileIndex{dir: dir, mem: map[string][]byte{}}
	c := fx.loadCatalog()
	if err := fx.update(s, c, ps); err != nil {
		return nil, err
	}
	c.index()
	lz := &lazy{s: s, fx: fx, cat: c, live: map[string]bool{}, done: map[int]bool{}, ents: map[int]*packEntry{}}
	for _, d := range ps {
		lz.live[d.String()] = true
	}
	return &Index{last: map[string]version{}, pool: pool{}, lz: lz}, nil
}

// need replays the history of the paths ids (and of those changed
// with them) that it has not replayed yet, apart from those: the
// histories of paths never changed together are independent. The
// index's last versions and pool then hold, for every path replayed,
// what a replay of every pack gives.
func (ix *Index) need(ids []int) error {
	lz := ix.lz
	fresh := map[int]bool{}
	for len(ids) > 0 {
		id := ids[len(ids)-1]
		ids = ids[:len(ids)-1]
		if lz.done[id] || fresh[id] {
			continue
		}
		fresh[id] = true
		ids = append(ids, lz.cat.adj[id]...)
	}
	if len(fresh) == 0 {
		return nil
	}
	for id := range fresh {
		lz.done[id] = true
	}
	packs := map[int]bool{}
	for id := range fresh {
		for _, i := range lz.cat.byPath[id] {
			if p := lz.cat.Packs[i]; lz.live[p.Pack] && !packs[i] {
				packs[i] = true
				// The session's other snapshots say which of its
				// edits are this pack's own.
				for _, j := range lz.cat.bySession[p.Session] {
					if lz.live[lz.cat.Packs[j].Pack] {
						packs[j] = true
					}
				}
			}
		}
	}
	set, key := lz.resultKey(fresh, packs)
	var lasts map[string]version
	var pl pool
	var err error
	if r, rerr := lz.fx.read(resultName(key), resultMagic); rerr == nil {
		lasts, pl, err = decodeResult(r)
	}
	if lasts == nil || err != nil {
		lz.ts, lz.secs, lz.texts = newTexts(lz.s), map[string]*section{}, map[string]string{}
		defer func() { lz.ts, lz.secs, lz.texts = nil, nil, nil }()
		all := make([]*packEdits, 0, len(packs))
		for _, i := range slices.Sorted(maps.Keys(packs)) {
			pe, err := lz.packEdits(i, fresh)
			if err != nil {
				return err
			}
			all = append(all, pe)
		}
		want := func(p string) bool {
			id, ok := lz.cat.ids[p]
			return ok && fresh[id]
		}
		built, _, err := build(lz.ts, all, want)
		if err != nil {
			return err
		}
		lasts, pl = built.last, built.pool
		if b, err := encodeResult(built); err == nil {
			// A result not written is made again.
			if lz.fx.write(resultName(key), resultMagic, b) == nil {
				lz.fx.keepResult(set, key)
			}
		}
	}
	for p, v := range lasts {
		ix.last[p] = v
	}
	ix.pool.merge(pl)
	return nil
}

// resultKey names what need replays: set, the paths, and key, the
// paths and the packs.
func (lz *lazy) resultKey(paths, packs map[int]bool) (set, key string) {
	var b strings.Builder
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for id := range paths {
			if !yield(lz.cat.Paths[id]) {
				return
			}
		}
	}) {
		b.WriteString(p + "\n")
	}
	b.WriteString("\n")
	set = digest.Of([]byte(listMagic + "\n" + b.String())).Hex()
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for i := range packs {
			if !yield(lz.cat.Packs[i].Pack) {
				return
			}
		}
	}) {
		b.WriteString(p + "\n")
	}
	return set, digest.Of([]byte(resultMagic + "\n" + b.String())).Hex()
}

// resultName is the file of the result key; listName the list of the
// results of the set of paths set.
func resultName(key string) string { return filepath.Join("r", shard(key)) }
func listName(set string) string   { return filepath.Join("l", shard(set)) }

// keepResult puts key, a result just written, first in the list of the
// results of set, and removes from r/ those that fall off it, beyond
// keptResults. A list that cannot be read (damaged, not a regular file,
// not names of results) is taken as empty: the results it named are
// then only kept, never one read in place of another (a result is named
// by what it replayed). The list is written whole through a rename
// before anything is removed; two blames writing one at once keep one
// list, and the other's result is at worst left in r/ unnamed. A result
// removed while a blame needs it is missing to that blame, which makes
// it again.
func (fx *fileIndex) keepResult(set, key string) {
	list := []string{key}
	if b, err := fx.readMax(listName(set), listMagic, maxList); err == nil {
		if old, ok := parseList(b); ok {
			for _, k := range old {
				if !slices.Contains(list, k) {
					list = append(list, k)
				}
			}
		}
	}
	var gone []string
	for _, k := range list[min(len(list), keptResults):] {
		gone = append(gone, resultName(k))
	}
	list = list[:min(len(list), keptResults)]
	if fx.write(listName(set), listMagic, []byte(strings.Join(list, "\n")+"\n")) != nil {
		return
	}
	_, _ = userconfig.RemoveCache(fx.dir, gone) // a result not removed only stays
}

// parseList returns the names of results in the body of a list; false
// when it holds anything else.
func parseList(b []byte) ([]string, bool) {
	var list []string
	for l := range strings.Lines(string(b)) {
		var d digest.Digest
		k := strings.TrimSuffix(l, "\n")
		if !digest.FromLowerHex(&d, []byte(k)) {
			return nil, false
		}
		list = append(list, k)
	}
	return list, true
}

// result is what a replay of some paths ends with: their last versions
// and the lines their edits added, as written in the index.
type result struct {
	Origins []*Origin            `json:"origins"`
	Keys    []*resKey            `json:"keys"` // of each origin's step, for one that wrote pool lines
	Last    map[string][]resLine `json:"last"`
	Pool    map[string][]resLine `json:"pool"`
}

// The place of a step in replay's order: its time, its pack's time, its
// pack (its origin's) and its order in the pack.
type resKey struct {
	At      string `json:"at"`
	Created string `json:"created"`
	Seq     int    `json:"seq"`
}

// resLine is a line and its origin (1 + its index in Origins; 0: none).
type resLine struct {
	T string `json:"t"`
	O int    `json:"o,omitzero"`
	M bool   `json:"m,omitzero"`
	// In the pool, K says T is what comes before the key, A after it.
	K bool   `json:"k,omitzero"`
	A string `json:"a,omitzero"`
}

func encodeResult(ix *Index) ([]byte, error) {
	r := result{Last: map[string][]resLine{}, Pool: map[string][]resLine{}}
	num := map[*Origin]int{}
	enc := func(ls []line) []resLine {
		out := make([]resLine, len(ls))
		for i, l := range ls {
			out[i] = resLine{T: l.text, M: l.mixed}
			if l.origin != nil {
				n, ok := num[l.origin]
				if !ok {
					r.Origins = append(r.Origins, l.origin)
					n = len(r.Origins)
					num[l.origin] = n
				}
				out[i].O = n
			}
		}
		return out
	}
	for p, v := range ix.last {
		r.Last[p] = enc(v)
	}
	for t, ps := range ix.pool {
		ls := make([]line, len(ps))
		for i, p := range ps {
			ls[i] = p.line
		}
		r.Pool[t] = enc(ls)
		for i, l := range r.Pool[t] {
			// The trimmed text is the key: keep what is around it.
			if j := strings.Index(l.T, t); j >= 0 {
				r.Pool[t][i].T, r.Pool[t][i].A = l.T[:j], l.T[j+len(t):]
				r.Pool[t][i].K = true
			}
		}
		for i, p := range ps {
			o := r.Pool[t][i].O - 1
			for len(r.Keys) <= o {
				r.Keys = append(r.Keys, nil)
			}
			r.Keys[o] = &resKey{At: p.key.at.Format(time.RFC3339Nano), Created: p.key.created.Format(time.RFC3339Nano), Seq: p.key.seq}
		}
	}
	return json.Marshal(r, json.Deterministic(true))
}

func decodeResult(b []byte) (map[string]version, pool, error) {
	var r result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, nil, errCorrupt
	}
	dec := func(ls []resLine) ([]line, error) {
		out := make([]line, len(ls))
		for i, l := range ls {
			out[i] = line{text: l.T, mixed: l.M}
			if l.O > 0 {
				if l.O > len(r.Origins) || r.Origins[l.O-1] == nil {
					return nil, errCorrupt
				}
				out[i].origin = r.Origins[l.O-1]
			}
		}
		return out, nil
	}
	last := make(map[string]version, len(r.Last))
	for p, ls := range r.Last {
		v, err := dec(ls)
		if err != nil {
			return nil, nil, err
		}
		last[p] = version(v)
	}
	keys := make([]*evKey, len(r.Keys))
	for i, k := range r.Keys {
		if k == nil {
			continue
		}
		at, err1 := time.Parse(time.RFC3339Nano, k.At)
		created, err2 := time.Parse(time.RFC3339Nano, k.Created)
		if err1 != nil || err2 != nil || i >= len(r.Origins) || r.Origins[i] == nil {
			return nil, nil, errCorrupt
		}
		keys[i] = &evKey{at, created, r.Origins[i].Pack, k.Seq}
	}
	pl := make(pool, len(r.Pool))
	for t, ls := range r.Pool {
		for i, l := range ls {
			if l.K {
				ls[i].T = l.T + t + l.A
			}
		}
		v, err := dec(ls)
		if err != nil {
			return nil, nil, err
		}
		ps := make([]pooled, len(v))
		for i, l := range v {
			o := ls[i].O - 1
			if o < 0 || o >= len(keys) || keys[o] == nil {
				return nil, nil, errCorrupt
			}
			ps[i] = pooled{l, keys[o]}
		}
		pl[t] = ps
	}
	return last, pl, nil
}

// packEdits returns what build needs of pack i for the paths replayed:
// every edit's key and paths, and the steps and views of those paths. A
// damaged section or blob makes the pack's entry derived again.
func (lz *lazy) packEdits(i int, want map[int]bool) (*packEdits, error) {
	d, err := digest.Parse(lz.cat.Packs[i].Pack)
	if err != nil {
		return nil, err
	}
	en := lz.ents[i]
	if en == nil {
		if en, err = lz.fx.entry(lz.s, d); err != nil {
			return nil, err
		}
		lz.ents[i] = en
	}
	pe, err := lz.fromEntry(en, want)
	if errors.Is(err, errCorrupt) {
		if en, err = lz.fx.repair(lz.s, d); err != nil {
			return nil, err
		}
		lz.ents[i] = en
		pe, err = lz.fromEntry(en, want)
	}
	return pe, err
}

func (lz *lazy) fromEntry(en *packEntry, want map[int]bool) (*packEdits, error) {
	pe := &packEdits{Pack: en.Pack, Created: en.Created, Steps: en.Steps, Session: en.Session, Cwd: en.Cwd, Partial: en.Partial, Bases: en.Bases}
	pe.Edits = make([]editStep, len(en.Edits))
	for k, e := range en.Edits {
		pe.Edits[k] = editStep{lazy: true, key: e.Key}
		for _, j := range e.Paths {
			if j >= len(en.Names) {
				return nil, errCorrupt
			}
			pe.Edits[k].paths = append(pe.Edits[k].paths, en.Names[j])
		}
	}
	for j, name := range en.Names {
		if id, ok := lz.cat.ids[name]; !ok || !want[id] {
			continue
		}
		sec, err := lz.section(en.Sections[j])
		if err != nil {
			return nil, err
		}
		for _, se := range sec.Edits {
			if se.I >= len(pe.Edits) {
				return nil, errCorrupt
			}
			if pe.Edits[se.I].loaded {
				continue // a step of several paths, in each one's section
			}
			e := se.Edit
			e.lazy, e.loaded, e.key, e.paths = true, true, pe.Edits[se.I].key, pe.Edits[se.I].paths
			pe.Edits[se.I] = e
		}
		for _, v := range sec.Views {
			text, ok := lz.texts[v.Text]
			if !ok {
				b, err := lz.fx.blob(v.Text)
				if err != nil {
					return nil, err
				}
				text = string(b)
				lz.texts[v.Text] = text
			}
			pe.Views = append(pe.Views, view{Path: v.Path, Time: v.Time, Step: v.Step, Before: v.Before, Text: text})
		}
	}
	// build takes views in the order the pack recorded them.
	slices.SortStableFunc(pe.Views, func(a, b view) int { return cmp.Compare(a.Step, b.Step) })
	return pe, nil
}

func (lz *lazy) section(ref string) (*section, error) {
	if s, ok := lz.secs[ref]; ok {
		return s, nil
	}
	b, err := lz.fx.blob(ref)
	if err != nil {
		return nil, err
	}
	var s section
	if json.Unmarshal(b, &s) != nil {
		return nil, errCorrupt
	}
	lz.secs[ref] = &s
	return &s, nil
}
