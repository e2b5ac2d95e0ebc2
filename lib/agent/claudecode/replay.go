package claudecode

//lint:file-ignore ST1005 errors begin with the name of the Claude Code tool they replay (Read, Glob, Grep), spelt as the agent spells it

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/replay"
)

// Claude Code's Read, Glob, Grep and LS, replayed (ReplayTools): each
// re-executed in the workspace and its result given as Claude Code gives
// it to its model, byte for byte (the renderings, and what they leave out,
// are documented in render.go): Read as "%6d→line" lines (or "N\tline",
// as Claude Code 2.1.12x numbers them, when the recording shows that form)
// and its notices, Glob as paths oldest first or "No files found", Grep in
// each output mode as ripgrep prints and Claude Code frames it (in content
// mode a matching line's path relative to the working directory, a context
// line's absolute, unless the recording shows the older or newer
// convention; see grepPrefixes; its file lists relative too, unless the
// recording lists them absolute), LS as a tree.
//
// In a hermetic workspace, inputs the session saw only by name are listed
// by Glob and LS; inputs seen in part serve the Reads whose lines are all
// known. A Read of a file outside the recorded working directory (the pack
// holds only files under it), or, in a hermetic workspace, of a file that
// is not among the pack's inputs (the session's log did not show it
// whole), skips the step, as Codex's reads do. So does a Glob or a Grep
// file list whose recorded result names a file under the working
// directory that the pack holds not even by name, and a Grep of a path
// that is not among the inputs.

// ReplayVersion is the version of the Claude Code renderings, compared
// with recorded tool versions like replay.BuiltinVersion.
const ReplayVersion = "claude-code-2.1"

// ReplayTools returns Claude Code's read-only tools (Read, Glob, Grep,
// LS) by name, for replay.Options.Agents: each re-executed in the
// workspace and its result given as Claude Code renders it.
func ReplayTools() map[string]replay.Executor { return maps.Clone(replayTools) }

// agentTool is a tool whose result is given as Claude Code rendered it
// (render.go), not as raw output.
type agentTool struct {
	name string
	run  func(ctx context.Context, call *replay.Call, p *replay.Params) ([]byte, error)
}

// Version returns ReplayVersion.
func (a *agentTool) Version() string { return ReplayVersion }

// Name returns the tool's name.
func (a *agentTool) Name() string { return a.name }

// Run executes the tool on call's parameters inside its workspace.
func (a *agentTool) Run(ctx context.Context, call *replay.Call, out io.Writer) error {
	p, err := replay.ParseParams(a.name, call.Parameters)
	if err != nil {
		return err
	}
	b, err := a.run(ctx, call, p)
	if err != nil {
		return err
	}
	if err := listsUnknown(call, a.name, b); err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

// listsUnknown skips a listing (Glob, Grep's file list) in a hermetic
// workspace whose recorded result names a file under the recorded working
// directory that the pack does not hold, not even by name: the pack cannot
// reproduce what it does not know, so a difference says nothing.
func listsUnknown(c *replay.Call, tool string, out []byte) error {
	ws := c.Workspace
	mode := gjson.GetBytes(c.Parameters, "output_mode").String()
	lists := tool == "Glob" || tool == "Grep" && (mode == "" || mode == "files_with_matches")
	if !ws.Hermetic || ws.RecordedDir == "" || !lists {
		return nil
	}
	rec, err := c.RecordedOutput()
	if err != nil || rec == nil || bytes.Equal(rec, out) {
		return err
	}
	for i, line := range strings.Split(string(rec), "\n") {
		if line == "" || tool == "Grep" && i == 0 && (strings.HasPrefix(line, "Found ") || line == "No files found") {
			continue
		}
		name := ws.Local(line)
		if strings.HasPrefix(name, "/") || ws.SeenAs(name) != nil {
			continue // outside the working directory, or known by name
		}
		if tool == "Glob" && name == line {
			continue // Glob lists absolute paths: a notice
		}
		if _, err := replay.Resolve(name); err != nil {
			continue
		}
		if _, err := ws.Root.Stat(name); err == nil {
			continue
		}
		return replay.Skipf("%s: the recorded result names %s, which is not among the pack's inputs", tool, name)
	}
	return nil
}

// replayTools are Claude Code's read-only tools, rendered as Claude Code
// renders them.
var replayTools = map[string]replay.Executor{
	"Read": &agentTool{name: "Read", run: claudeRead},
	"Glob": &agentTool{name: "Glob", run: claudeGlob},
	"Grep": &agentTool{name: "Grep", run: claudeGrep},
	"LS":   &agentTool{name: "LS", run: claudeLS},
}

func claudeRead(ctx context.Context, call *replay.Call, p *replay.Params) ([]byte, error) {
	raw, ok, err := p.Str("file_path")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("Read: no file_path parameter")
	}
	offset, _, err := p.Count("offset")
	if err != nil {
		return nil, err
	}
	limit, _, err := p.Count("limit")
	if err != nil {
		return nil, err
	}
	pages, hasPages, err := p.Str("pages")
	if err != nil {
		return nil, err
	}
	if err := p.Finish(); err != nil {
		return nil, err
	}
	if hasPages {
		return nil, replay.Skipf("Read: pages %q reads a PDF, which is not rendered", pages)
	}
	if ws := call.Workspace; ws.RecordedDir != "" && strings.HasPrefix(raw, "/") && ws.Local(raw) == raw {
		return nil, replay.Skipf("Read: %s is outside the recorded working directory %s; the pack holds only files under it", raw, ws.RecordedDir)
	}
	name, err := replay.Resolve(raw)
	if err != nil {
		return nil, fmt.Errorf("Read: %w", err)
	}
	recorded, err := call.RecordedOutput()
	if err != nil {
		return nil, err
	}
	req := ReadRequest{Offset: offset, Limit: limit, Reminder: ReadReminder(recorded), Numbering: NumberingOf(recorded)}
	if sf := call.Workspace.SeenAs(name); sf != nil {
		return readSeen(sf, name, req)
	}
	data, err := replay.ReadRegular(call.Workspace.Root, name)
	switch {
	case err != nil && call.Workspace.Hermetic && errors.Is(err, fs.ErrNotExist):
		// The session's log did not show the file whole (older
		// transcripts, subagents' ones, record no Read results).
		return nil, replay.Skipf("Read: %s is not among the pack's inputs", name)
	case err != nil:
		return nil, fmt.Errorf("Read: %w", err)
	}
	return RenderRead(data, req)
}

// readSeen renders a Read of a file the session saw in part, when the
// lines it asks for are all known.
func readSeen(sf *replay.SeenFile, name string, req ReadRequest) ([]byte, error) {
	if !sf.Partial() {
		return nil, replay.Skipf("Read: %s was seen only by name; its content is not in the pack", name)
	}
	start := max(req.Offset, 1)
	end := start - 1 + req.Limit
	if req.Limit == 0 || sf.Total() > 0 && end > sf.Total() {
		if sf.Total() == 0 {
			return nil, replay.Skipf("Read: %s was seen only in part, and its length is not known", name)
		}
		end = sf.Total()
	}
	var lines []string
	for n := start; n <= end; n++ {
		l, ok := sf.Line(n)
		if !ok {
			return nil, replay.Skipf("Read: %s was seen only in part; line %d is not in the pack", name, n)
		}
		lines = append(lines, l)
	}
	return RenderRead([]byte(strings.Join(lines, "\n")), ReadRequest{
		Offset: start, Limit: len(lines), Reminder: req.Reminder, Numbering: req.Numbering, Base: start,
	})
}

// rgGlob is a ripgrep --glob: a pattern without "/" matches a name at any
// depth, one with "/" the path relative to the search directory.
type rgGlob struct {
	m        *replay.Glob
	anywhere bool
}

func compileRgGlob(pattern string) (*rgGlob, error) {
	p := strings.TrimPrefix(pattern, "/")
	m, err := replay.CompileGlob(p)
	if err != nil {
		return nil, err
	}
	return &rgGlob{m: m, anywhere: !strings.Contains(pattern, "/")}, nil
}

func (g *rgGlob) match(rel string) bool {
	if g.anywhere {
		return g.m.Match(path.Base(rel))
	}
	return g.m.Match(rel)
}

func claudeGlob(ctx context.Context, call *replay.Call, p *replay.Params) ([]byte, error) {
	pattern, ok, err := p.Str("pattern")
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
	if err := p.Finish(); err != nil {
		return nil, err
	}
	if strings.HasPrefix(pattern, "/") {
		// An absolute pattern names its own directory: the part before
		// the first wildcard, up to its last "/" (as Glob splits it).
		dir, rel := splitGlobBase(pattern)
		if base, err = replay.Resolve(call.Workspace.Local(dir)); err != nil {
			return nil, fmt.Errorf("Glob: pattern: %w", err)
		}
		pattern = rel
	}
	if _, err := replay.Resolve(pattern); err != nil {
		return nil, fmt.Errorf("Glob: pattern: %w", err)
	}
	g, err := compileRgGlob(pattern)
	if err != nil {
		return nil, fmt.Errorf("Glob: %w", err)
	}
	ws := call.Workspace
	if _, serr := ws.Root.Stat(base); ws.Hermetic && errors.Is(serr, fs.ErrNotExist) && !ws.KnowsUnder(base) && ws.SeenAs(base) == nil {
		// A directory the pack holds nothing of: what the session saw
		// there is not known.
		return nil, replay.Skipf("Glob: %s is not among the pack's inputs", base)
	}
	found, err := ws.Files(ctx, base, g.match)
	if err != nil {
		return nil, fmt.Errorf("Glob: %w", err)
	}
	// Oldest first, as rg --sort=modified lists them; the walk order
	// breaks ties.
	slices.SortStableFunc(found, func(a, b replay.Entry) int { return a.MTime.Compare(b.MTime) })
	truncated := len(found) > GlobFiles
	if truncated {
		found = found[:GlobFiles]
	}
	names := make([]string, len(found))
	for i, e := range found {
		names[i] = call.Workspace.Shown(e.Name)
	}
	return call.Unordered(RenderGlob(names, truncated), len(names), "Glob lists files oldest first")
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
func optionalPath(p *replay.Params, tool string) (string, error) {
	raw, ok, err := p.Str("path")
	if err != nil {
		return "", err
	}
	if !ok {
		raw = "."
	}
	base, err := replay.Resolve(raw)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	return base, nil
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

func claudeGrep(ctx context.Context, call *replay.Call, p *replay.Params) ([]byte, error) {
	pattern, ok, err := p.Str("pattern")
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
	globs, _, err := p.Str("glob")
	if err != nil {
		return nil, err
	}
	typ, _, err := p.Str("type")
	if err != nil {
		return nil, err
	}
	mode, _, err := p.Str("output_mode")
	if err != nil {
		return nil, err
	}
	var ctxLines [4]int // -B, -A, -C, context
	var hasCtx [4]bool
	for i, k := range []string{"-B", "-A", "-C", "context"} {
		if ctxLines[i], hasCtx[i], err = p.Count(k); err != nil {
			return nil, err
		}
	}
	numbers, err := p.Flag("-n", true)
	if err != nil {
		return nil, err
	}
	icase, err := p.Flag("-i", false)
	if err != nil {
		return nil, err
	}
	headLimit, hasHead, err := p.Count("head_limit")
	if err != nil {
		return nil, err
	}
	skip, _, err := p.Count("offset")
	if err != nil {
		return nil, err
	}
	multiline, err := p.Flag("multiline", false)
	if err != nil {
		return nil, err
	}
	if err := p.Finish(); err != nil {
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
		return nil, replay.Skipf("Grep: multiline search is not rendered")
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
		return nil, replay.Skipf("Grep: pattern %q is not a regular expression Go reads as ripgrep does: %v", pattern, err)
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
				return nil, replay.Skipf("Grep: negated glob %q is not rendered", part)
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
			return nil, replay.Skipf("Grep: file type %q is not rendered", typ)
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

func grepRun(ctx context.Context, call *replay.Call, base string, re *regexp.Regexp, keep func(string) bool, mode string, numbers bool, before, after, headLimit int, hasHead bool, skip int) ([]byte, error) {
	ws := call.Workspace
	fi, err := ws.Root.Stat(base)
	single := false
	switch {
	case err == nil:
		single = !fi.IsDir()
	case ws.SeenAs(base) != nil:
		single = true
	case ws.KnowsUnder(base):
		return nil, replay.Skipf("Grep: the files under %s were seen only by name or in part, so what they hold is not known", base)
	case ws.Hermetic && errors.Is(err, fs.ErrNotExist):
		return nil, replay.Skipf("Grep: %s is not among the pack's inputs", base)
	default:
		return nil, fmt.Errorf("Grep: %s: %w", base, replay.UnwrapPath(err))
	}
	var files []replay.Entry
	if single {
		var mtime time.Time
		if fi != nil {
			mtime = fi.ModTime()
		}
		files = []replay.Entry{{Name: base, MTime: mtime}}
	} else {
		files, err = ws.Files(ctx, base, func(rel string) bool {
			return !replay.IsIgnoreFile(path.Base(rel)) && keep(rel)
		})
		if err != nil {
			return nil, fmt.Errorf("Grep: %w", err)
		}
		found, err := ws.IgnoreFile(ctx, base)
		if err != nil {
			return nil, fmt.Errorf("Grep: %w", err)
		}
		if found != "" {
			return nil, replay.Skipf("Grep: ripgrep would apply the ignore rules of %s, which are not rendered", found)
		}
	}
	var lines []string // content or count lines
	var matched []replay.Entry
	var rec []byte // the recorded output, read when content needs it
	recRead := false
	for _, f := range files {
		if sf := ws.SeenAs(f.Name); sf != nil {
			what := "by name"
			if sf.Partial() {
				what = "in part"
			}
			return nil, replay.Skipf("Grep: %s was seen only %s, so what it holds is not known", f.Name, what)
		}
		data, err := replay.ReadRegular(ws.Root, f.Name)
		if err != nil {
			return nil, fmt.Errorf("Grep: %w", err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			if single {
				return nil, replay.Skipf("Grep: %s is binary; ripgrep's notice for it is not rendered", f.Name)
			}
			continue
		}
		text := replay.SplitLines(data)
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
		prefix := ws.Shown(f.Name)
		switch mode {
		case "count":
			if single {
				lines = append(lines, strconv.Itoa(len(hits)))
			} else {
				lines = append(lines, prefix+":"+strconv.Itoa(len(hits)))
			}
		case "content":
			if rec == nil && !recRead {
				if rec, err = call.RecordedOutput(); err != nil {
					return nil, err
				}
				recRead = true
			}
			match, context := grepPrefixes(ws, f.Name, rec)
			out, err := rgContext(text, hits, match, context, single, numbers, before, after, len(lines) > 0)
			if err != nil {
				return nil, err
			}
			lines = append(lines, out...)
		}
	}
	if mode == "files_with_matches" {
		// Newest first, then by path, as Grep sorts them.
		slices.SortStableFunc(matched, func(a, b replay.Entry) int {
			if c := b.MTime.Compare(a.MTime); c != 0 {
				return c
			}
			return localeCompare(a.Name, b.Name)
		})
		// Claude Code lists the files relative to its working
		// directory; older versions listed them absolute, as a
		// recording may show.
		if rec == nil && !recRead {
			if rec, err = call.RecordedOutput(); err != nil {
				return nil, err
			}
			recRead = true
		}
		absolute := ws.RecordedDir != "" && bytes.Contains(rec, []byte("\n"+strings.TrimSuffix(ws.RecordedDir, "/")+"/"))
		lines = make([]string, len(matched))
		for i, m := range matched {
			lines[i] = m.Name
			if absolute {
				lines[i] = ws.Shown(m.Name)
			}
		}
	}
	lines, page, err := paginate(lines, headLimit, hasHead, skip)
	if err != nil {
		return nil, err
	}
	switch mode {
	case "content":
		return call.Unordered(RenderGrepContent(lines, page), len(matched), "ripgrep searches files in parallel")
	case "count":
		return call.Unordered(RenderGrepCount(lines, page), len(matched), "ripgrep searches files in parallel")
	}
	return call.Unordered(RenderGrepFiles(lines, page), len(lines), "Grep lists files newest first")
}

// grepPrefixes are the paths Claude Code prints before a matching line and
// before a context line of workspace file name in Grep's content mode.
// Claude Code shortens a matching line's path to one relative to its
// working directory and leaves a context line's as ripgrep printed it
// (absolute); older versions shortened neither, newer ones both. The
// recorded output, when there is one, tells which of these the recording
// agent did; it chooses the convention, never the lines.
func grepPrefixes(ws *replay.Workspace, name string, recorded []byte) (match, context string) {
	abs := ws.Shown(name)
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
			if len(text[i]) > GrepColumns {
				return nil, replay.Skipf("Grep: line %d of %s is longer than %d bytes, which ripgrep omits with a notice that is not rendered", i+1, name, GrepColumns)
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
// GrepHeadLimit.
func paginate(lines []string, limit int, hasLimit bool, skip int) ([]string, GrepPage, error) {
	var page GrepPage
	if skip > 0 {
		page.Offset = skip
		lines = lines[min(skip, len(lines)):]
	}
	if hasLimit && limit == 0 {
		return lines, page, nil
	}
	if !hasLimit {
		limit = GrepHeadLimit
	}
	if len(lines) > limit {
		if !hasLimit {
			return nil, page, replay.Skipf("Grep: more than %d results without a head_limit, which Claude Code versions cut differently", limit)
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

func claudeLS(ctx context.Context, call *replay.Call, p *replay.Params) ([]byte, error) {
	base, err := optionalPath(p, "LS")
	if err != nil {
		return nil, err
	}
	ignore, err := p.List("ignore")
	if err != nil {
		return nil, err
	}
	if err := p.Finish(); err != nil {
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
	err = replay.Walk(ctx, ws.Root, base, func(rel string, d fs.DirEntry) error {
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
	for name := range ws.SeenNames() {
		rel, ok := replay.Under(name, base)
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
	if len(paths) > LSEntries {
		return nil, replay.Skipf("LS: more than %d entries, which Claude Code cuts with a notice that is not rendered", LSEntries)
	}
	return RenderLS(ws.Shown(".")+"/", paths), nil
}
