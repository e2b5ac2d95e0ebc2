package blame

import (
	"cmp"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/drift"
	"github.com/ctx-tools/ctx/lib/edit"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

// Index is the recorded edits of a set of packs, ready to attribute the
// lines of files.
type Index struct {
	last map[string]version // each path's last version; nil when unknown
	pool pool
	lz   *lazy // when built from the file index, as files need it
}

// event is one recorded edit step (ed), a step's observed changes on
// disk (obs), or a session's view of a whole file (neither: path and
// content or text are set), in time order.
type event struct {
	at      time.Time
	created time.Time
	pack    string
	seq     int // order within a pack at one time: see order
	cwd     string
	origin  *Origin
	held    *held // the lines the session found in files it read
	ed      *edit.Edit
	obs     []manifest.Observed // the files a step was seen to change
	path    string
	content digest.Digest
	text    string // the view's content, when content is zero
}

// order is the place of step i's events in its pack: a session's first
// view of a file (i = -1) comes first, a view of the file as it was
// before a step before that step.
func order(i int, before bool) int {
	if before {
		return 2 * i
	}
	return 2*i + 1
}

// Stats says what an Index was built from.
type Stats struct {
	Packs int // packs read
	Edits int // edit steps among them, after snapshots of one session were merged
}

// errUnknown is what blame's reader says of a file no recorded step showed.
var errUnknown = errors.New("content not recorded")

// New builds the index of the packs ps from their manifests, replaying
// every file's history. Edits that several snapshots of one session
// recorded (the same session, step time, tool and parameters) count
// once, for the pack with the most steps.
func New(s *store.Store, ps []digest.Digest) (*Index, Stats, error) {
	all, err := loadAll(s, ps)
	if err != nil {
		return nil, Stats{}, err
	}
	ix, edits, err := build(newTexts(s), all, nil)
	return ix, Stats{Packs: len(all), Edits: edits}, err
}

// loadAll returns the edits of the packs ps, which New holds until it has
// replayed them all: the text of a view is held once, however many
// snapshots of a session, or sessions that read one version, recorded it.
func loadAll(s *store.Store, ps []digest.Digest) ([]*packEdits, error) {
	all := make([]*packEdits, 0, len(ps))
	views := map[string]string{}
	for _, d := range ps {
		m, err := manifest.Load(s, d)
		if err != nil {
			return nil, err
		}
		pe, err := edits(s, m)
		if err != nil {
			return nil, err
		}
		for i, v := range pe.Views {
			if t, ok := views[v.Text]; ok {
				pe.Views[i].Text = t
			} else {
				views[v.Text] = v.Text
			}
		}
		all = append(all, pe)
	}
	return all, nil
}

// build replays the edits of the packs all. want, when not nil, keeps
// the events of the paths it accepts (a set closed under the edits and
// steps that change several files at once: see fileIndex), whose edits
// the packs carry; the others' edits still say which paths each pack
// edited (the lines its session held). It returns how many edits it
// counted.
func build(ts *texts, all []*packEdits, want func(string) bool) (*Index, int, error) {
	n := 0
	// The most complete snapshot first, so that it keeps the edits it
	// shares with earlier ones.
	slices.SortStableFunc(all, func(a, b *packEdits) int {
		return cmp.Or(-cmp.Compare(a.Steps, b.Steps), strings.Compare(a.Pack, b.Pack))
	})
	wanted := func(p string) bool { return want == nil || want(p) }
	var evs []event
	seen := map[string]bool{}
	for _, pe := range all {
		created, _ := time.Parse(time.RFC3339Nano, pe.Created)
		held := &held{t: ts, known: map[string]bool{}} // filled once first is
		first := map[string]time.Time{}                // first edit of each path by this pack
		for _, e := range pe.Edits {
			if pe.Session != "" {
				key := e.key
				if key == "" {
					key = editKey(pe.Session, e)
				}
				if seen[key] {
					continue
				}
				seen[key] = true
			}
			at, err := time.Parse(time.RFC3339Nano, e.Time)
			if err != nil {
				at = created
			}
			if e.lazy {
				// Its paths are known without parsing it; its
				// parameters only when it changed a wanted path.
				for _, p := range e.paths {
					if _, ok := first[p]; !ok {
						first[p] = at
					}
				}
				if !e.loaded {
					continue
				}
			}
			o := &Origin{Pack: pe.Pack, Step: e.Step, Tool: e.Tool, Session: pe.Session, Model: e.Model, Agent: e.Agent, Prompt: e.Prompt, Timestamp: e.Time}
			if e.Observed != nil {
				n++
				obs := e.Observed
				if want != nil {
					obs = nil
					for _, f := range e.Observed {
						if want(f.Name) {
							obs = append(obs, f)
						}
					}
				}
				for _, f := range e.Observed {
					if _, ok := first[f.Name]; !ok {
						first[f.Name] = at
					}
				}
				if len(obs) > 0 || want == nil {
					evs = append(evs, event{at: at, created: created, pack: pe.Pack, seq: order(e.Step, false), cwd: pe.Cwd, origin: o, held: held, obs: obs})
				}
				continue
			}
			ed, err := edit.Parse(e.Tool, e.Parameters)
			if err != nil || ed == nil {
				continue
			}
			n++
			for _, p := range ed.Paths() {
				if p, ok := relative(p, pe.Cwd); ok {
					if _, ok := first[p]; !ok {
						first[p] = at
					}
				}
			}
			evs = append(evs, event{at: at, created: created, pack: pe.Pack, seq: order(e.Step, false), cwd: pe.Cwd, origin: o, held: held, ed: ed})
		}
		h, err := heldBy(ts, pe, first)
		if err != nil {
			return nil, n, err
		}
		if h != nil {
			held.refs = h.refs
		}
		for _, b := range pe.Bases {
			at, ok := first[b.Path]
			if !ok || !wanted(b.Path) {
				continue // seen but never edited by this session
			}
			// The session saw the file when it read it, which may be
			// long before its first edit: what other sessions did in
			// between is in what it saw, or came after.
			if t, err := time.Parse(time.RFC3339Nano, b.Time); err == nil && t.Before(at) {
				at = t
			}
			d, err := digest.Parse(b.ContentRef)
			if err != nil {
				return nil, n, fmt.Errorf("pack %s: input %s: %w", pe.Pack, b.Path, err)
			}
			evs = append(evs, event{at: at, created: created, pack: pe.Pack, seq: -1, path: b.Path, content: d})
		}
		for _, v := range pe.Views {
			p, ok := relative(v.Path, pe.Cwd)
			if _, edited := first[p]; !ok || !edited || !wanted(p) {
				continue
			}
			at, err := time.Parse(time.RFC3339Nano, v.Time)
			if err != nil {
				at = created
			}
			evs = append(evs, event{at: at, created: created, pack: pe.Pack, seq: order(v.Step, v.Before), path: p, text: v.Text})
		}
	}
	slices.SortStableFunc(evs, func(a, b event) int {
		return evKey{a.at, a.created, a.pack, a.seq}.compare(evKey{b.at, b.created, b.pack, b.seq})
	})
	ix, err := replay(ts, evs)
	return ix, n, err
}

// editKey is what makes an edit of session the same edit in several
// snapshots of it: its time, tool and parameters.
func editKey(session string, e editStep) string {
	return session + "\x00" + e.Time + "\x00" + e.Tool + "\x00" + string(e.Parameters)
}

// texts reads the files sessions saw from the store, once per content:
// many sessions read the same files, and the lines a session found are
// asked of them again and again.
type texts struct {
	s     *store.Store
	text  map[digest.Digest]string
	lines map[digest.Digest][]string
}

func newTexts(s *store.Store) *texts {
	return &texts{s: s, text: map[digest.Digest]string{}, lines: map[digest.Digest][]string{}}
}

func (t *texts) get(d digest.Digest) (string, error) {
	if s, ok := t.text[d]; ok {
		return s, nil
	}
	b, err := t.s.Get(d)
	if err != nil {
		return "", err
	}
	t.text[d] = string(b)
	return string(b), nil
}

// held is the lines a session found in the files it read (whole or in
// part): those are never its own. It is asked only of the few lines the
// session wrote, so it reads the files when first asked and scans them,
// rather than building a set of every line.
type held struct {
	t     *texts
	refs  []digest.Digest
	known map[string]bool
}

// has reports whether the session found the trimmed line t.
func (h *held) has(t string) bool {
	if h == nil || len(h.refs) == 0 || !distinctive(t) {
		return false
	}
	if v, ok := h.known[t]; ok {
		return v
	}
	found := false
	for _, r := range h.refs {
		text, err := h.t.get(r)
		if err != nil || !strings.Contains(text, t) {
			continue // replay reports an error when it reads the file
		}
		lines, ok := h.t.lines[r]
		if !ok {
			lines = splitText(text)
			h.t.lines[r] = lines
		}
		if slices.ContainsFunc(lines, func(l string) bool { return strings.TrimSpace(l) == t }) {
			found = true
			break
		}
	}
	h.known[t] = found
	return found
}

// heldBy returns the lines pe's session found in the files it read in
// part and in those it edited, whose first views replay reads anyway:
// reading every file a session saw whole would cost more than blaming.
// edited says which paths it edited.
func heldBy(t *texts, pe *packEdits, edited map[string]time.Time) (*held, error) {
	if len(pe.Edits) == 0 {
		return nil, nil
	}
	h := &held{t: t, known: map[string]bool{}}
	for _, r := range pe.Partial {
		d, err := digest.Parse(r)
		if err != nil {
			return nil, fmt.Errorf("pack %s: input %s: %w", pe.Pack, r, err)
		}
		h.refs = append(h.refs, d)
	}
	for _, b := range pe.Bases {
		if _, ok := edited[b.Path]; !ok {
			continue
		}
		d, err := digest.Parse(b.ContentRef)
		if err != nil {
			return nil, fmt.Errorf("pack %s: input %s: %w", pe.Pack, b.Path, err)
		}
		h.refs = append(h.refs, d)
	}
	return h, nil
}

// replay applies the events in order to a workspace of versions and
// returns the versions they end with, adding the lines each edit wrote to
// the pool. A file whose content is not known (an edit of a file no
// session saw whole) becomes known again when a step writes it whole or a
// session sees it.
func replay(ts *texts, evs []event) (*Index, error) {
	ix := &Index{last: map[string]version{}, pool: pool{}}
	ws := map[string]*file{}
	for _, e := range evs {
		if e.obs != nil {
			if err := observed(ts, ws, e, ix); err != nil {
				return nil, err
			}
			continue
		}
		if e.ed == nil {
			text := e.text
			if !e.content.IsZero() {
				b, err := ts.get(e.content)
				if err != nil {
					return nil, fmt.Errorf("pack %s: input %s: %w", e.pack, e.path, err)
				}
				text = b
			}
			f := ws[e.path]
			switch {
			case f != nil && f.known && (f.text == text || slices.Equal(f.v.texts(), splitText(text))):
				// The session saw what the history has: nothing changed
				// (a Read's answer may leave out the last newline).
			case f != nil && f.known:
				// A change nobody recorded (a person's): a version.
				f.v, _ = f.v.next(splitText(text), nil, nil)
				f.text = text
			default:
				ws[e.path] = &file{v: fromText(text), text: text, known: true}
			}
			continue
		}
		read := func(p string) (string, error) {
			rel, ok := relative(p, e.cwd)
			if !ok {
				return "", errUnknown
			}
			f := ws[rel]
			switch {
			case f == nil || !f.known:
				return "", errUnknown
			case f.v == nil:
				return "", edit.ErrNotExist
			}
			return f.text, nil
		}
		changes, err := e.ed.Apply(read)
		if errors.Is(err, errUnknown) {
			// A whole-file write, or a patch adding files, needs nothing
			// of what was there: try again as if unknown files were
			// absent, which fails for edits that need their content.
			changes, err = e.ed.Apply(func(p string) (string, error) {
				if s, err := read(p); err == nil {
					return s, nil
				}
				return "", edit.ErrNotExist
			})
		}
		if err != nil {
			// The file changed in a way nobody recorded (or the edit
			// failed): the history so far still holds for the lines the
			// file kept, and the edit's own lines are matched by text.
			ix.pool.add(written(e.ed), &e)
			continue
		}
		for _, ch := range changes {
			rel, ok := relative(ch.Path, e.cwd)
			if !ok {
				continue
			}
			var prev version
			if ch.From != "" {
				if from, ok := relative(ch.From, e.cwd); ok && ws[from] != nil {
					prev = ws[from].v
					ws[from] = &file{known: true}
				}
			} else if f := ws[rel]; f != nil && f.known {
				prev = f.v
			}
			if ch.Deleted {
				ws[rel] = &file{known: true}
				continue
			}
			v, added := prev.next(splitText(ch.Content), e.origin, e.held)
			if v == nil {
				v = version{}
			}
			ws[rel] = &file{v: v, text: ch.Content, known: true}
			ix.pool.add(added, &e)
		}
	}
	for p, f := range ws {
		if f.known && f.v != nil {
			ix.last[p] = f.v
		}
	}
	return ix, nil
}

// file is a file of replay's workspace: its version, when known (v is
// nil for a file known to be absent).
type file struct {
	v     version
	text  string // v's text, when known
	known bool
}

// observed applies a step's observed changes on disk to the workspace:
// each file it left is a version whose lines the step wrote, except
// those the version before held. A file the step deleted whose text a
// file it made holds (mv) passes its lines' origins on to the new name;
// a file whose content was not kept is unknown from then on. A file no
// version is known of takes the step's origin for all its lines: what
// was there before is bounded by the commits (Past) and by what the
// session read (held).
func observed(ts *texts, ws map[string]*file, e event, ix *Index) error {
	gone := map[string]*file{} // by text: what the step deleted
	for _, o := range e.obs {
		if f := ws[o.Name]; o.Deleted && f != nil && f.known && f.v != nil {
			gone[f.text] = f
		}
	}
	for _, o := range e.obs {
		switch {
		case o.Deleted:
			ws[o.Name] = &file{known: true}
			continue
		case o.Skipped != "":
			ws[o.Name] = &file{}
			continue
		}
		text, err := ts.get(o.ContentRef)
		if err != nil {
			return fmt.Errorf("pack %s: step %d: observed %s: %w", e.pack, e.origin.Step, o.Name, err)
		}
		var prev version
		if f := ws[o.Name]; f != nil && f.known && f.v != nil {
			prev = f.v
		} else if g, ok := gone[text]; ok {
			prev = g.v
		}
		v, added := prev.next(splitText(text), e.origin, e.held)
		if v == nil {
			v = version{}
		}
		ws[o.Name] = &file{v: v, text: text, known: true}
		ix.pool.add(added, &e)
	}
	return nil
}

// written returns the lines an edit writes, for when it cannot be
// applied: a Write's content, the lines of each replacement's new side
// and of each patch chunk that its old side does not have (not the
// context it repeats), the lines of a file a patch adds.
func written(ed *edit.Edit) []string {
	var out []string
	for _, r := range ed.Replacements() {
		out = append(out, addedLines(splitText(r.Old), splitText(r.New))...)
	}
	for _, op := range ed.Patch() {
		out = append(out, splitText(op.Add)...)
		for _, c := range op.Chunks {
			out = append(out, addedLines(c.Old, c.New)...)
		}
	}
	return out
}

// addedLines returns the lines of after that the alignment of before
// with after does not match.
func addedLines(before, after []string) []string {
	var out []string
	bi := 0
	for _, m := range append(drift.Align(before, after), drift.Match{A: len(before), B: len(after)}) {
		out = append(out, after[bi:m.B]...)
		bi = m.B + m.N
	}
	return out
}

// relative returns p, a path an edit named, as a clean slash-separated
// path relative to the session's directory cwd; false for a path outside
// it. Windows paths (C:\…, backslashes) are compared with the drive
// letter in either case.
func relative(p, cwd string) (string, bool) {
	p = strings.ReplaceAll(p, "\\", "/")
	cwd = strings.TrimSuffix(strings.ReplaceAll(cwd, "\\", "/"), "/")
	if isAbs(p) {
		if cwd == "" {
			return "", false
		}
		switch {
		case strings.HasPrefix(p, cwd+"/"):
			p = p[len(cwd)+1:]
		case len(p) > len(cwd) && hasDrive(cwd) && strings.EqualFold(p[:2], cwd[:2]) && strings.HasPrefix(p[2:], cwd[2:]+"/"):
			p = p[len(cwd)+1:]
		default:
			return "", false
		}
	}
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "~") {
		return "", false
	}
	return p, true
}

func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

func isAbs(p string) bool { return strings.HasPrefix(p, "/") || hasDrive(p) }

// lookup returns the recorded path that file (a slash-separated path
// relative to the root of its work tree) is: the same path, or, for a
// session that ran in a subdirectory, the longest recorded path that file
// ends with at a directory boundary.
func (ix *Index) lookup(file string) (string, bool) {
	if _, ok := ix.last[file]; ok {
		return file, true
	}
	best := ""
	for p := range ix.last {
		if strings.HasSuffix(file, "/"+p) && len(p) > len(best) {
			best = p
		}
	}
	return best, best != ""
}

// Blame attributes each line of content, the text of file (a path
// relative to the root of its work tree; see lookup), to the recorded edit
// that wrote it, as past (nil: nothing known) allows. names lists other paths the file had (its names before
// renames), newest first: the history of each is used in turn for the
// lines the newer ones leave without an origin (a session that edited the
// file under its new name found the old name's lines there).
//
// An Index from the file index replays, the first time a file needs it,
// the history of the paths the file may be (and of those whose lines it
// may hold, for lines moved from other files): an error is one of
// reading that history.
func (ix *Index) Blame(file string, content []byte, past *Past, names ...string) ([]Line, error) {
	all := append([]string{file}, names...)
	if ix.lz != nil {
		var ids []int
		for _, n := range all {
			ids = append(ids, ix.lz.cat.candidates(n)...)
		}
		if err := ix.need(ids); err != nil {
			return nil, err
		}
	}
	lasts := func() []version {
		var lasts []version
		seen := map[string]bool{}
		for _, n := range all {
			if p, ok := ix.lookup(n); ok && !seen[p] {
				seen[p] = true
				lasts = append(lasts, ix.last[p])
			}
		}
		return lasts
	}
	current := splitText(string(content))
	if ix.lz != nil {
		// The lines the file's own history leaves unknown are looked up
		// by their text: replay the paths that may hold them too.
		var ids []int
		for i, l := range attribute(lasts(), current, nil, past) {
			if t := strings.TrimSpace(current[i]); l.By == ByUnknown && distinctive(t) {
				ids = append(ids, ix.lz.cat.linePaths(t)...)
			}
		}
		if err := ix.need(ids); err != nil {
			return nil, err
		}
	}
	return attribute(lasts(), current, ix.pool, past), nil
}

// Open builds the index of every finalized pack in s (OpenPacks).
func Open(s *store.Store) (*Index, error) {
	all, err := s.Packs("")
	if err != nil {
		return nil, err
	}
	return OpenPacks(s, all)
}

// OpenPacks builds the index of the packs ps from the file index in the
// user's cache directory (DefaultCacheDir; fileIndex), adding the packs
// it lacks: a file's blame replays the history the packs ps recorded of
// it, whatever other packs the index holds. Without a cache directory,
// it is made from the manifests of ps (New).
func OpenPacks(s *store.Store, ps []digest.Digest) (*Index, error) {
	if dir := DefaultCacheDir(); dir != "" {
		return openLazy(s, filepath.Join(dir, filesDir), ps)
	}
	ix, _, err := New(s, ps)
	return ix, err
}

// DefaultCacheDir is $CTX_BLAME_CACHE, "" when that is "off", else
// ctx/blame in the user's cache directory ("" when there is none).
func DefaultCacheDir() string { return userconfig.CacheDir("CTX_BLAME_CACHE", "blame") }
