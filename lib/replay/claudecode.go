package replay

//lint:file-ignore ST1005 errors begin with the name of the Claude Code tool they replay (Read, Glob, Grep), spelt as the agent spells it

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/replay/render"
)

// ClaudeCodeVersion is the version of the Claude Code renderings, compared
// with recorded tool versions like BuiltinVersion.
const ClaudeCodeVersion = "claude-code-2.1"

// agentTool is a built-in that gives a tool's result as an agent rendered
// it (package render), not as raw output.
type agentTool struct {
	name string
	run  func(ctx context.Context, call *Call, p *params) ([]byte, error)
}

// Version returns ClaudeCodeVersion.
func (a *agentTool) Version() string { return ClaudeCodeVersion }

// Name returns the tool's name.
func (a *agentTool) Name() string { return a.name }

// Run executes the tool on call's parameters inside its workspace.
func (a *agentTool) Run(ctx context.Context, call *Call, out io.Writer) error {
	p, err := parseParams(a.name, call.Parameters, nil)
	if err != nil {
		return err
	}
	b, err := a.run(ctx, call, p)
	if err != nil {
		return err
	}
	if err := call.listsUnknown(a.name, b); err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

// listsUnknown skips a listing (Glob, Grep's file list) in a hermetic
// workspace whose recorded result names a file under the recorded working
// directory that the pack does not hold, not even by name: the pack cannot
// reproduce what it does not know, so a difference says nothing.
func (c *Call) listsUnknown(tool string, out []byte) error {
	ws := c.Workspace
	mode := gjson.GetBytes(c.Parameters, "output_mode").String()
	lists := tool == "Glob" || tool == "Grep" && (mode == "" || mode == "files_with_matches")
	if !ws.Hermetic || ws.RecordedDir == "" || !lists {
		return nil
	}
	rec, err := c.recorded()
	if err != nil || rec == nil || bytes.Equal(rec, out) {
		return err
	}
	for i, line := range strings.Split(string(rec), "\n") {
		if line == "" || tool == "Grep" && i == 0 && (strings.HasPrefix(line, "Found ") || line == "No files found") {
			continue
		}
		name := ws.local(line)
		if strings.HasPrefix(name, "/") || ws.seenAs(name) != nil {
			continue // outside the working directory, or known by name
		}
		if tool == "Glob" && name == line {
			continue // Glob lists absolute paths: a notice
		}
		if _, err := resolve(name); err != nil {
			continue
		}
		if _, err := ws.Root.Stat(name); err == nil {
			continue
		}
		return skipf("%s: the recorded result names %s, which is not among the pack's inputs", tool, name)
	}
	return nil
}

// claudeTools are Claude Code's read-only tools, rendered as Claude Code
// renders them.
var claudeTools = map[string]*agentTool{
	"Read": {name: "Read", run: claudeRead},
	"Glob": {name: "Glob", run: claudeGlob},
	"Grep": {name: "Grep", run: claudeGrep},
	"LS":   {name: "LS", run: claudeLS},
}

func skipf(format string, args ...any) error {
	return &render.Unsupported{Reason: fmt.Sprintf(format, args...)}
}

func claudeRead(ctx context.Context, call *Call, p *params) ([]byte, error) {
	raw, ok, err := p.str("file_path")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("Read: no file_path parameter")
	}
	offset, _, err := p.count("offset")
	if err != nil {
		return nil, err
	}
	limit, _, err := p.count("limit")
	if err != nil {
		return nil, err
	}
	pages, hasPages, err := p.str("pages")
	if err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	if hasPages {
		return nil, skipf("Read: pages %q reads a PDF, which is not rendered", pages)
	}
	if ws := call.Workspace; ws.RecordedDir != "" && strings.HasPrefix(raw, "/") && ws.local(raw) == raw {
		return nil, skipf("Read: %s is outside the recorded working directory %s; the pack holds only files under it", raw, ws.RecordedDir)
	}
	name, err := resolve(raw)
	if err != nil {
		return nil, fmt.Errorf("Read: %w", err)
	}
	recorded, err := call.recorded()
	if err != nil {
		return nil, err
	}
	req := render.ClaudeRead{Offset: offset, Limit: limit, Reminder: render.ClaudeReadReminder(recorded), Numbering: render.ClaudeNumberingOf(recorded)}
	if sf := call.Workspace.seenAs(name); sf != nil {
		return sf.claudeRead(name, req)
	}
	data, err := readRegular(call.Workspace.Root, name)
	switch {
	case err != nil && call.Workspace.Hermetic && errors.Is(err, fs.ErrNotExist):
		// The session's log did not show the file whole (older
		// transcripts, subagents' ones, record no Read results).
		return nil, skipf("Read: %s is not among the pack's inputs", name)
	case err != nil:
		return nil, fmt.Errorf("Read: %w", err)
	}
	return render.ClaudeCodeRead(data, req)
}

// claudeRead renders a Read of a file the session saw in part, when the
// lines it asks for are all known.
func (sf *seenFile) claudeRead(name string, req render.ClaudeRead) ([]byte, error) {
	if sf.seen != seenPartial {
		return nil, skipf("Read: %s was seen only by name; its content is not in the pack", name)
	}
	start := max(req.Offset, 1)
	end := start - 1 + req.Limit
	if req.Limit == 0 || sf.total > 0 && end > sf.total {
		if sf.total == 0 {
			return nil, skipf("Read: %s was seen only in part, and its length is not known", name)
		}
		end = sf.total
	}
	var lines []string
	for n := start; n <= end; n++ {
		l, ok := sf.lines[n]
		if !ok {
			return nil, skipf("Read: %s was seen only in part; line %d is not in the pack", name, n)
		}
		lines = append(lines, l)
	}
	return render.ClaudeCodeRead([]byte(strings.Join(lines, "\n")), render.ClaudeRead{
		Offset: start, Limit: len(lines), Reminder: req.Reminder, Numbering: req.Numbering, Base: start,
	})
}

// rgGlob is a ripgrep --glob: a pattern without "/" matches a name at any
// depth, one with "/" the path relative to the search directory.
type rgGlob struct {
	m        *globMatcher
	anywhere bool
}

func compileRgGlob(pattern string) (*rgGlob, error) {
	p := strings.TrimPrefix(pattern, "/")
	m, err := compileGlob(p)
	if err != nil {
		return nil, err
	}
	return &rgGlob{m: m, anywhere: !strings.Contains(pattern, "/")}, nil
}

func (g *rgGlob) match(rel string) bool {
	if g.anywhere {
		return g.m.match(path.Base(rel))
	}
	return g.m.match(rel)
}

// entry is a file a listing found: its workspace path and modification
// time.
type entry struct {
	name  string
	mtime time.Time
}

// files walks base (in the lexical order ripgrep walks in) and returns
// every regular file keep accepts, plus the files of the pack seen only by
// name or in part in a hermetic workspace. VCS directories are skipped.
func (w *Workspace) files(ctx context.Context, base string, keep func(rel string) bool) ([]entry, error) {
	var out []entry
	seen := map[string]bool{}
	var err error
	if _, serr := w.Root.Stat(base); !errors.Is(serr, fs.ErrNotExist) || !w.knowsUnder(base) {
		err = w.walkFiles(ctx, base, keep, seen, &out)
	}
	// Otherwise base holds only files the session saw by name or in part.
	if err != nil {
		return nil, err
	}
	for name := range w.seen {
		rel, ok := under(name, base)
		if !ok || seen[name] || !keep(rel) {
			continue
		}
		out = append(out, entry{name: name, mtime: fixedMTime})
	}
	if len(out) > len(seen) {
		// Names added from the pack go where the walk would have put them.
		slices.SortStableFunc(out, func(a, b entry) int { return comparePaths(a.name, b.name) })
	}
	return out, nil
}

// knowsUnder reports whether the pack knows a file under base that the
// workspace does not hold.
func (w *Workspace) knowsUnder(base string) bool {
	for name := range w.seen {
		if _, ok := under(name, base); ok {
			return true
		}
	}
	return false
}

// walkFiles is the walk of files: the regular files under base keep
// accepts, in out, noted in seen.
func (w *Workspace) walkFiles(ctx context.Context, base string, keep func(rel string) bool, seen map[string]bool, out *[]entry) error {
	return walk(ctx, w.Root, base, func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			if vcsDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !keep(rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		name := path.Join(base, rel)
		seen[name] = true
		*out = append(*out, entry{name: name, mtime: info.ModTime()})
		return nil
	})
}

var vcsDirs = map[string]bool{".git": true, ".svn": true, ".hg": true, ".bzr": true, ".jj": true, ".sl": true}

// under returns name relative to base, if it lies under it.
func under(name, base string) (string, bool) {
	if base == "." {
		return name, true
	}
	rel, ok := strings.CutPrefix(name, base+"/")
	return rel, ok && rel != ""
}

// comparePaths orders paths as a directory walk in lexical order visits
// them: element by element.
func comparePaths(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

func claudeGlob(ctx context.Context, call *Call, p *params) ([]byte, error) {
	pattern, ok, err := p.str("pattern")
	if err != nil {
		return nil, err
	}
	if !ok || pattern == "" {
		return nil, errors.New("Glob: no pattern parameter")
	}
	base, err := optionalPath(p, "Glob")
	if err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	if strings.HasPrefix(pattern, "/") {
		// An absolute pattern names its own directory: the part before
		// the first wildcard, up to its last "/" (as Glob splits it).
		dir, rel := splitGlobBase(pattern)
		if base, err = resolve(call.Workspace.local(dir)); err != nil {
			return nil, fmt.Errorf("Glob: pattern: %w", err)
		}
		pattern = rel
	}
	if _, err := resolve(pattern); err != nil {
		return nil, fmt.Errorf("Glob: pattern: %w", err)
	}
	g, err := compileRgGlob(pattern)
	if err != nil {
		return nil, fmt.Errorf("Glob: %w", err)
	}
	ws := call.Workspace
	if _, serr := ws.Root.Stat(base); ws.Hermetic && errors.Is(serr, fs.ErrNotExist) && !ws.knowsUnder(base) && ws.seenAs(base) == nil {
		// A directory the pack holds nothing of: what the session saw
		// there is not known.
		return nil, skipf("Glob: %s is not among the pack's inputs", base)
	}
	found, err := ws.files(ctx, base, g.match)
	if err != nil {
		return nil, fmt.Errorf("Glob: %w", err)
	}
	// Oldest first, as rg --sort=modified lists them; the walk order
	// breaks ties.
	slices.SortStableFunc(found, func(a, b entry) int { return a.mtime.Compare(b.mtime) })
	truncated := len(found) > render.ClaudeGlobFiles
	if truncated {
		found = found[:render.ClaudeGlobFiles]
	}
	names := make([]string, len(found))
	for i, e := range found {
		names[i] = call.Workspace.shown(e.name)
	}
	return call.unordered(render.ClaudeCodeGlob(names, truncated), len(names), "Glob lists files oldest first")
}

// splitGlobBase splits an absolute glob pattern into the directory before
// its first wildcard and the pattern relative to it.
func splitGlobBase(pattern string) (string, string) {
	i := strings.IndexAny(pattern, "*?[{")
	if i < 0 {
		return path.Dir(pattern), path.Base(pattern)
	}
	j := strings.LastIndexByte(pattern[:i], '/')
	if j <= 0 {
		return "/", pattern[j+1:]
	}
	return pattern[:j], pattern[j+1:]
}

// optionalPath reads a "path" parameter naming a directory, "." when
// absent.
func optionalPath(p *params, tool string) (string, error) {
	raw, ok, err := p.str("path")
	if err != nil {
		return "", err
	}
	if !ok {
		raw = "."
	}
	base, err := resolve(raw)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	return base, nil
}

// unordered returns out, unless the workspace cannot know the order of
// its n entries (it is hermetic, and the order depends on modification
// times the pack does not record) and the recorded output holds the same
// lines in another order: then the step is skipped with that reason.
func (c *Call) unordered(out []byte, n int, why string) ([]byte, error) {
	if !c.Workspace.Hermetic {
		return out, nil
	}
	return c.reordered(out, n, why+", and the pack does not record modification times")
}

// reordered returns out, unless the recorded output holds the same lines
// in another order, which the renderer cannot know (why): then the step
// is skipped with that reason.
func (c *Call) reordered(out []byte, n int, why string) ([]byte, error) {
	if n < 2 {
		return out, nil
	}
	rec, err := c.recorded()
	if err != nil || rec == nil || bytes.Equal(rec, out) {
		return out, err
	}
	if sameLines(rec, out) {
		return nil, skipf("the same %d entries in another order: %s", n, why)
	}
	return out, nil
}

// sameLines reports whether a and b hold the same lines in some order.
func sameLines(a, b []byte) bool {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	if len(la) != len(lb) {
		return false
	}
	slices.Sort(la)
	slices.Sort(lb)
	return slices.Equal(la, lb)
}

// rgTypes are the ripgrep file types Grep's type parameter may name that
// are rendered; others skip the step.
var rgTypes = map[string][]string{
	"go":     {"*.go"},
	"py":     {"*.py", "*.pyi"},
	"rust":   {"*.rs"},
	"c":      {"*.[chH]", "*.[chH].in", "*.cats"},
	"sh":     {"*.bash", "*.sh", "*.zsh", ".bashrc", ".bash_profile", ".zshrc", ".profile"},
	"md":     {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
	"toml":   {"*.toml", "Cargo.lock"},
	"json":   {"*.json", "composer.lock", "*.sarif"},
	"elixir": {"*.ex", "*.eex", "*.exs", "*.heex", "*.leex", "*.livemd"},
}

// ignoreFiles are the files whose rules ripgrep would apply to a search.
var ignoreFiles = map[string]bool{".gitignore": true, ".ignore": true, ".rgignore": true}

func claudeGrep(ctx context.Context, call *Call, p *params) ([]byte, error) {
	pattern, ok, err := p.str("pattern")
	if err != nil {
		return nil, err
	}
	if !ok || pattern == "" {
		return nil, errors.New("Grep: no pattern parameter")
	}
	base, err := optionalPath(p, "Grep")
	if err != nil {
		return nil, err
	}
	globs, _, err := p.str("glob")
	if err != nil {
		return nil, err
	}
	typ, _, err := p.str("type")
	if err != nil {
		return nil, err
	}
	mode, _, err := p.str("output_mode")
	if err != nil {
		return nil, err
	}
	var ctxLines [4]int // -B, -A, -C, context
	var hasCtx [4]bool
	for i, k := range []string{"-B", "-A", "-C", "context"} {
		if ctxLines[i], hasCtx[i], err = p.count(k); err != nil {
			return nil, err
		}
	}
	numbers, err := p.flag("-n", true)
	if err != nil {
		return nil, err
	}
	icase, err := p.flag("-i", false)
	if err != nil {
		return nil, err
	}
	headLimit, hasHead, err := p.count("head_limit")
	if err != nil {
		return nil, err
	}
	skip, _, err := p.count("offset")
	if err != nil {
		return nil, err
	}
	multiline, err := p.flag("multiline", false)
	if err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	switch mode {
	case "":
		mode = "files_with_matches"
	case "content", "files_with_matches", "count":
	default:
		return nil, fmt.Errorf("Grep: output_mode %q is not content, files_with_matches or count", mode)
	}
	if multiline {
		return nil, skipf("Grep: multiline search is not rendered")
	}
	before, after := 0, 0
	if mode == "content" {
		switch {
		case hasCtx[3]:
			before, after = ctxLines[3], ctxLines[3]
		case hasCtx[2]:
			before, after = ctxLines[2], ctxLines[2]
		default:
			before, after = ctxLines[0], ctxLines[1]
		}
	}
	if icase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, skipf("Grep: pattern %q is not a regular expression Go reads as ripgrep does: %v", pattern, err)
	}
	var filters []*rgGlob
	for _, g := range strings.Fields(globs) {
		parts := []string{g}
		if !strings.Contains(g, "{") || !strings.Contains(g, "}") {
			parts = strings.Split(g, ",")
		}
		for _, part := range parts {
			if part == "" {
				continue
			}
			if strings.HasPrefix(part, "!") {
				return nil, skipf("Grep: negated glob %q is not rendered", part)
			}
			f, err := compileRgGlob(part)
			if err != nil {
				return nil, fmt.Errorf("Grep: glob: %w", err)
			}
			filters = append(filters, f)
		}
	}
	var types []*rgGlob
	if typ != "" {
		pats, ok := rgTypes[typ]
		if !ok {
			return nil, skipf("Grep: file type %q is not rendered", typ)
		}
		for _, pat := range pats {
			f, err := compileRgGlob(pat)
			if err != nil {
				return nil, err
			}
			types = append(types, f)
		}
	}
	anyMatch := func(fs []*rgGlob, rel string) bool {
		return len(fs) == 0 || slices.ContainsFunc(fs, func(f *rgGlob) bool { return f.match(rel) })
	}
	keep := func(rel string) bool { return anyMatch(filters, rel) && anyMatch(types, rel) }
	return grepRun(ctx, call, base, re, keep, mode, numbers, before, after, headLimit, hasHead, skip)
}

func grepRun(ctx context.Context, call *Call, base string, re *regexp.Regexp, keep func(string) bool, mode string, numbers bool, before, after, headLimit int, hasHead bool, skip int) ([]byte, error) {
	ws := call.Workspace
	fi, err := ws.Root.Stat(base)
	single := false
	switch {
	case err == nil:
		single = !fi.IsDir()
	case ws.seenAs(base) != nil:
		single = true
	case ws.knowsUnder(base):
		return nil, skipf("Grep: the files under %s were seen only by name or in part, so what they hold is not known", base)
	case ws.Hermetic && errors.Is(err, fs.ErrNotExist):
		return nil, skipf("Grep: %s is not among the pack's inputs", base)
	default:
		return nil, fmt.Errorf("Grep: %s: %w", base, unwrapPath(err))
	}
	var files []entry
	if single {
		var mtime time.Time
		if fi != nil {
			mtime = fi.ModTime()
		}
		files = []entry{{name: base, mtime: mtime}}
	} else {
		files, err = ws.files(ctx, base, func(rel string) bool {
			return !ignoreFiles[path.Base(rel)] && keep(rel)
		})
		if err != nil {
			return nil, fmt.Errorf("Grep: %w", err)
		}
		if err := ws.checkNoIgnoreFiles(ctx, base); err != nil {
			return nil, err
		}
	}
	var lines []string // content or count lines
	var matched []entry
	var rec []byte // the recorded output, read when content needs it
	recRead := false
	for _, f := range files {
		if sf := ws.seenAs(f.name); sf != nil {
			what := "by name"
			if sf.seen == seenPartial {
				what = "in part"
			}
			return nil, skipf("Grep: %s was seen only %s, so what it holds is not known", f.name, what)
		}
		data, err := readRegular(ws.Root, f.name)
		if err != nil {
			return nil, fmt.Errorf("Grep: %w", err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			if single {
				return nil, skipf("Grep: %s is binary; ripgrep's notice for it is not rendered", f.name)
			}
			continue
		}
		text := splitLines(data)
		var hits []int
		for i, l := range text {
			if re.Match(l) {
				hits = append(hits, i)
			}
		}
		if len(hits) == 0 {
			continue
		}
		matched = append(matched, f)
		prefix := ws.shown(f.name)
		switch mode {
		case "count":
			if single {
				lines = append(lines, strconv.Itoa(len(hits)))
			} else {
				lines = append(lines, prefix+":"+strconv.Itoa(len(hits)))
			}
		case "content":
			if rec == nil && !recRead {
				if rec, err = call.recorded(); err != nil {
					return nil, err
				}
				recRead = true
			}
			match, context := grepPrefixes(ws, f.name, rec)
			out, err := rgContext(text, hits, match, context, single, numbers, before, after, len(lines) > 0)
			if err != nil {
				return nil, err
			}
			lines = append(lines, out...)
		}
	}
	if mode == "files_with_matches" {
		// Newest first, then by path, as Grep sorts them.
		slices.SortStableFunc(matched, func(a, b entry) int {
			if c := b.mtime.Compare(a.mtime); c != 0 {
				return c
			}
			return localeCompare(a.name, b.name)
		})
		// Claude Code lists the files relative to its working
		// directory; older versions listed them absolute, as a
		// recording may show.
		if rec == nil && !recRead {
			if rec, err = call.recorded(); err != nil {
				return nil, err
			}
			recRead = true
		}
		absolute := ws.RecordedDir != "" && bytes.Contains(rec, []byte("\n"+strings.TrimSuffix(ws.RecordedDir, "/")+"/"))
		lines = make([]string, len(matched))
		for i, m := range matched {
			lines[i] = m.name
			if absolute {
				lines[i] = ws.shown(m.name)
			}
		}
	}
	lines, page, err := paginate(lines, headLimit, hasHead, skip)
	if err != nil {
		return nil, err
	}
	switch mode {
	case "content":
		return call.unordered(render.ClaudeCodeGrepContent(lines, page), len(matched), "ripgrep searches files in parallel")
	case "count":
		return call.unordered(render.ClaudeCodeGrepCount(lines, page), len(matched), "ripgrep searches files in parallel")
	}
	return call.unordered(render.ClaudeCodeGrepFiles(lines, page), len(lines), "Grep lists files newest first")
}

// checkNoIgnoreFiles skips the step when ripgrep would have applied
// ignore files found in the searched tree.
func (w *Workspace) checkNoIgnoreFiles(ctx context.Context, base string) error {
	var found string
	err := walk(ctx, w.Root, base, func(rel string, d fs.DirEntry) error {
		if d.IsDir() && vcsDirs[d.Name()] {
			return fs.SkipDir
		}
		if !d.IsDir() && ignoreFiles[d.Name()] {
			found = path.Join(base, rel)
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("Grep: %w", err)
	}
	if found != "" {
		return skipf("Grep: ripgrep would apply the ignore rules of %s, which are not rendered", found)
	}
	return nil
}

// grepPrefixes are the paths Claude Code prints before a matching line and
// before a context line of workspace file name in Grep's content mode.
// Claude Code shortens a matching line's path to one relative to its
// working directory and leaves a context line's as ripgrep printed it
// (absolute); older versions shortened neither, newer ones both. The
// recorded output, when there is one, tells which of these the recording
// agent did; it chooses the convention, never the lines.
func grepPrefixes(ws *Workspace, name string, recorded []byte) (match, context string) {
	abs := ws.shown(name)
	match, context = name, abs
	if linePrefixed(recorded, abs+":") {
		match = abs
	}
	if linePrefixed(recorded, name+"-") {
		context = name
	}
	return match, context
}

// linePrefixed reports whether a line of b starts with prefix.
func linePrefixed(b []byte, prefix string) bool {
	return bytes.HasPrefix(b, []byte(prefix)) || bytes.Contains(b, []byte("\n"+prefix))
}

// rgContext prints one file's matches as ripgrep does: "PATH:N:LINE" for
// a match (PATH is match), "PATH-N-LINE" for context (PATH is context),
// "--" between groups that do not touch (and before a file's first group
// when another file printed before). A single file searched by name has
// no PATH.
func rgContext(text [][]byte, hits []int, match, context string, single, numbers bool, before, after int, printed bool) ([]string, error) {
	name := match
	isHit := map[int]bool{}
	for _, h := range hits {
		isHit[h] = true
	}
	var out []string
	last := -2 // last line printed
	for _, h := range hits {
		from, to := max(0, h-before), min(len(text)-1, h+after)
		if from <= last {
			from = last + 1
		}
		if from > to {
			continue
		}
		if (before > 0 || after > 0) && (last >= 0 && from > last+1 || last < 0 && printed) {
			out = append(out, "--")
		}
		for i := from; i <= to; i++ {
			sep := "-"
			if isHit[i] {
				sep = ":"
			}
			if len(text[i]) > render.ClaudeGrepColumns {
				return nil, skipf("Grep: line %d of %s is longer than %d bytes, which ripgrep omits with a notice that is not rendered", i+1, name, render.ClaudeGrepColumns)
			}
			var b strings.Builder
			if !single {
				if isHit[i] {
					b.WriteString(match + sep)
				} else {
					b.WriteString(context + sep)
				}
			}
			if numbers {
				b.WriteString(strconv.Itoa(i+1) + sep)
			}
			b.Write(text[i])
			out = append(out, b.String())
		}
		last = to
	}
	return out, nil
}

// paginate applies Grep's offset and head_limit: 0 is no limit, none is
// render.ClaudeGrepHeadLimit.
func paginate(lines []string, limit int, hasLimit bool, skip int) ([]string, render.ClaudeGrepPage, error) {
	var page render.ClaudeGrepPage
	if skip > 0 {
		page.Offset = skip
		lines = lines[min(skip, len(lines)):]
	}
	if hasLimit && limit == 0 {
		return lines, page, nil
	}
	if !hasLimit {
		limit = render.ClaudeGrepHeadLimit
	}
	if len(lines) > limit {
		if !hasLimit {
			return nil, page, skipf("Grep: more than %d results without a head_limit, which Claude Code versions cut differently", limit)
		}
		lines = lines[:limit]
		page.Limit = limit
	}
	return lines, page, nil
}

// localeCompare approximates JavaScript's String.prototype.localeCompare
// for paths: case-insensitive first, then by bytes.
func localeCompare(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func claudeLS(ctx context.Context, call *Call, p *params) ([]byte, error) {
	base, err := optionalPath(p, "LS")
	if err != nil {
		return nil, err
	}
	ignore, err := p.list("ignore")
	if err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	for _, pat := range ignore {
		if _, err := path.Match(pat, ""); err != nil {
			return nil, fmt.Errorf("LS: ignore pattern %q: %w", pat, err)
		}
	}
	ws := call.Workspace
	hidden := func(name string) bool {
		if strings.HasPrefix(name, ".") || name == "__pycache__" {
			return true
		}
		return slices.ContainsFunc(ignore, func(pat string) bool { ok, _ := path.Match(pat, name); return ok })
	}
	var paths []string
	listed := map[string]bool{}
	err = walk(ctx, ws.Root, base, func(rel string, d fs.DirEntry) error {
		if hidden(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		name := path.Join(base, rel)
		if d.IsDir() {
			name += "/"
		}
		listed[name] = true
		paths = append(paths, name)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("LS: %w", err)
	}
	for name := range ws.seen {
		rel, ok := under(name, base)
		if !ok || slices.ContainsFunc(strings.Split(rel, "/"), hidden) {
			continue
		}
		for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
			if d := path.Join(base, dir) + "/"; !listed[d] {
				listed[d] = true
				paths = append(paths, d)
			}
		}
		if !listed[name] {
			listed[name] = true
			paths = append(paths, name)
		}
	}
	if len(paths) > render.ClaudeLSEntries {
		return nil, skipf("LS: more than %d entries, which Claude Code cuts with a notice that is not rendered", render.ClaudeLSEntries)
	}
	return render.ClaudeCodeLS(ws.shown(".")+"/", paths), nil
}

// fixedMTime is the modification time of every file a hermetic workspace
// holds: the pack does not record real ones, so none is newer than
// another.
var fixedMTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// setFixedMTime gives name fixedMTime.
func (w *Workspace) setFixedMTime(name string) error {
	return w.Root.Chtimes(name, fixedMTime, fixedMTime)
}
