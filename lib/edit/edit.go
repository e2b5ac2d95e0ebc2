package edit

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/tidwall/gjson"
)

// Conflict reports an edit that does not apply to the file it names: its
// old string is not there, a patch's lines are not, the file is missing.
// Replaying a session, it means the file is not what the session had.
type Conflict struct {
	Path   string
	Reason string
}

// Error returns the path and the reason.
func (c *Conflict) Error() string {
	if c.Path == "" {
		return c.Reason
	}
	return c.Path + ": " + c.Reason
}

// ErrUnsupported reports an edit whose effect this package does not
// reproduce (a NotebookEdit).
var ErrUnsupported = errors.New("not applied")

// ErrNotExist is what a Reader returns for a file that does not exist.
var ErrNotExist = errors.New("no such file")

// Reader returns the current content of the file at path (as the edit
// names it), ErrNotExist when there is none, or another error when the
// content is not known; Apply passes that error on.
type Reader func(path string) (string, error)

// Change is what an edit did to one file. Path is the file as the edit
// names it (joined to the step's working directory, for a patch run in
// one); Content is what it holds afterwards. Before is what it held
// (Existed false when it did not exist). Deleted is set when the edit
// removed it; From names the file a patch moved to Path (which is gone).
type Change struct {
	Path    string
	Content string
	Before  string
	Existed bool
	Deleted bool
	From    string
}

// Replacement is one string replacement of an Edit or MultiEdit (or
// edit_file): Old replaced by New, every occurrence when All.
type Replacement struct {
	Old, New string
	All      bool
}

// Edit is a recorded call of a file-editing tool, parsed.
type Edit struct {
	// Tool is the tool name the step recorded.
	Tool string
	// Path is the file a single-file edit names ("" for a patch).
	Path string

	content      string // Write, write_file
	write        bool
	replacements []Replacement
	patch        []PatchOp
	workdir      string // the directory a patch's paths are relative to
	notebook     bool
}

// Tools are the names of the tools Parse reads: Claude Code's Write, Edit,
// MultiEdit and NotebookEdit; Codex's apply_patch (the tool) and its shell
// tools when the command runs apply_patch; ctx's own write_file and
// edit_file.
var Tools = []string{"Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch", "write_file", "edit_file"}

// shellTools are Codex's tools that run a command, which may be
// apply_patch.
var shellTools = map[string]bool{"shell": true, "shell_command": true, "exec_command": true, "local_shell": true}

// Is reports whether steps of tool may be edits Parse reads (for a Codex
// shell tool, only some commands are).
func Is(tool string) bool {
	for _, t := range Tools {
		if t == tool {
			return true
		}
	}
	return shellTools[tool]
}

// Parse reads the parameters (JSON) of a step of tool. It returns nil, nil
// when the step is no edit (another tool, or a shell command that is not
// apply_patch), and an error when the parameters are not what the tool
// takes.
//
// The parameters, per tool:
//
//   - Write {file_path, content}; write_file {path | file_path, content}:
//     the file's new content.
//   - Edit {file_path, old_string, new_string, replace_all?}; edit_file
//     {path | file_path, old_string, new_string, replace_all?}: one
//     replacement; MultiEdit {file_path, edits: [{old_string, new_string,
//     replace_all?}…]}: several, in order.
//   - NotebookEdit {notebook_path, …}: recognised, not applied
//     (ErrUnsupported).
//   - apply_patch: the patch text (a JSON string, as Codex records its
//     custom tool's input), or {input | patch}.
//   - shell, shell_command, exec_command, local_shell: a command
//     (command or cmd: argv, or a script) that is ["apply_patch", PATCH],
//     or a script "apply_patch <<'EOF' … EOF", optionally after "cd DIR
//     && "; workdir (or working_directory, cwd) is where its paths start.
func Parse(tool string, params []byte) (*Edit, error) {
	p := gjson.ParseBytes(params)
	str := func(keys ...string) (string, string, error) {
		for _, k := range keys {
			v := p.Get(gjson.Escape(k))
			if !v.Exists() {
				continue
			}
			if v.Type != gjson.String {
				return "", k, fmt.Errorf("%s: parameter %s: want a string", tool, k)
			}
			return v.Str, k, nil
		}
		return "", "", fmt.Errorf("%s: no %s parameter", tool, strings.Join(keys, " or "))
	}
	flag := func(v gjson.Result, k string) (bool, error) {
		switch v.Get(k).Type {
		case gjson.Null:
			return false, nil
		case gjson.True:
			return true, nil
		case gjson.False:
			return false, nil
		}
		return false, fmt.Errorf("%s: parameter %s: want a boolean", tool, k)
	}
	replacement := func(v gjson.Result) (Replacement, error) {
		var r Replacement
		for _, f := range []struct {
			k  string
			to *string
		}{{"old_string", &r.Old}, {"new_string", &r.New}} {
			x := v.Get(f.k)
			if x.Type != gjson.String {
				return r, fmt.Errorf("%s: parameter %s: want a string", tool, f.k)
			}
			*f.to = x.Str
		}
		var err error
		r.All, err = flag(v, "replace_all")
		return r, err
	}
	e := &Edit{Tool: tool}
	var err error
	switch tool {
	case "Write", "write_file":
		keys := []string{"file_path"}
		if tool == "write_file" {
			keys = []string{"path", "file_path"}
		}
		if e.Path, _, err = str(keys...); err != nil {
			return nil, err
		}
		if e.content, _, err = str("content"); err != nil {
			return nil, err
		}
		e.write = true
	case "Edit", "edit_file":
		keys := []string{"file_path"}
		if tool == "edit_file" {
			keys = []string{"path", "file_path"}
		}
		if e.Path, _, err = str(keys...); err != nil {
			return nil, err
		}
		r, err := replacement(p)
		if err != nil {
			return nil, err
		}
		e.replacements = []Replacement{r}
	case "MultiEdit":
		if e.Path, _, err = str("file_path"); err != nil {
			return nil, err
		}
		edits := p.Get("edits")
		if !edits.IsArray() {
			return nil, fmt.Errorf("%s: parameter edits: want an array", tool)
		}
		for _, v := range edits.Array() {
			r, err := replacement(v)
			if err != nil {
				return nil, err
			}
			e.replacements = append(e.replacements, r)
		}
	case "NotebookEdit":
		if e.Path, _, err = str("notebook_path"); err != nil {
			return nil, err
		}
		e.notebook = true
	case "apply_patch":
		text := p.Str
		if p.Type != gjson.String {
			if text, _, err = str("input", "patch"); err != nil {
				return nil, err
			}
			e.workdir, _, _ = str("workdir")
		}
		if e.patch, err = ParsePatch(text); err != nil {
			return nil, fmt.Errorf("%s: %w", tool, err)
		}
	default:
		if !shellTools[tool] {
			return nil, nil
		}
		var argv []string
		var script string
		for _, k := range []string{"command", "cmd"} {
			v := p.Get(k)
			switch {
			case v.IsArray():
				for _, a := range v.Array() {
					argv = append(argv, a.String())
				}
				if len(argv) == 3 && isShell(argv[0]) && (argv[1] == "-lc" || argv[1] == "-c") {
					script, argv = argv[2], nil
				}
			case v.Type == gjson.String:
				script = v.Str
			}
		}
		workdir, _, _ := str("workdir", "working_directory", "cwd")
		text, dir := PatchOfCommand(argv, script, workdir)
		if text == "" {
			return nil, nil
		}
		e.workdir = dir
		if e.patch, err = ParsePatch(text); err != nil {
			return nil, fmt.Errorf("%s: apply_patch: %w", tool, err)
		}
	}
	return e, nil
}

func isShell(prog string) bool {
	switch path.Base(prog) {
	case "bash", "sh", "zsh", "dash":
		return true
	}
	return false
}

// PatchOfCommand finds the patch of apply_patch run as a command:
// ["apply_patch", PATCH], or a shell script "apply_patch <<'EOF' … EOF",
// optionally after "cd DIR && ". It returns the patch ("" when the
// command is not apply_patch) and the directory its paths start from:
// workdir, or DIR joined to it.
func PatchOfCommand(argv []string, script, workdir string) (string, string) {
	if len(argv) == 2 && (argv[0] == "apply_patch" || argv[0] == "applypatch") {
		return argv[1], workdir
	}
	s := strings.TrimSpace(script)
	if rest, ok := strings.CutPrefix(s, "cd "); ok {
		dir, after, ok := strings.Cut(rest, " && ")
		if !ok || strings.ContainsAny(dir, " '\"$`") {
			return "", workdir
		}
		if path.IsAbs(dir) || workdir == "" {
			workdir = dir
		} else {
			workdir = path.Join(workdir, dir)
		}
		s = after
	}
	for _, cmd := range []string{"apply_patch ", "applypatch "} {
		rest, ok := strings.CutPrefix(s, cmd)
		if !ok {
			continue
		}
		first, body, ok := strings.Cut(rest, "\n")
		if !ok || !strings.HasPrefix(first, "<<") {
			return "", workdir
		}
		term := strings.Trim(strings.TrimPrefix(first, "<<"), `'"- `)
		end := strings.LastIndex(body, "\n"+term)
		if end < 0 {
			return "", workdir
		}
		return body[:end+1], workdir
	}
	return "", workdir
}

// Paths returns every file the edit reads or writes, as Apply names them,
// so that a caller can check each before applying it.
func (e *Edit) Paths() []string {
	if e.patch == nil {
		return []string{e.Path}
	}
	var out []string
	for _, op := range e.patch {
		out = append(out, e.At(op.Path))
		if op.MoveTo != "" {
			out = append(out, e.At(op.MoveTo))
		}
	}
	return out
}

// Patch returns the parsed patch of an apply_patch edit, else nil.
func (e *Edit) Patch() []PatchOp { return e.patch }

// Replacements returns the replacements of an Edit, MultiEdit or
// edit_file, else nil.
func (e *Edit) Replacements() []Replacement { return e.replacements }

// At is a path of the patch joined to the directory the patch ran in, as
// Paths and Apply name it.
func (e *Edit) At(p string) string {
	if e.workdir == "" || e.workdir == "." || path.IsAbs(p) {
		return p
	}
	return path.Join(e.workdir, p)
}

// Apply carries the edit out on the files read gives and returns what it
// changed, in order; nothing is written. An edit that does not apply is a
// *Conflict; a NotebookEdit is ErrUnsupported; an error from read is
// returned as it is.
func (e *Edit) Apply(read Reader) ([]Change, error) {
	current := func(p string) (string, bool, error) {
		s, err := read(p)
		if errors.Is(err, ErrNotExist) {
			return "", false, nil
		}
		return s, err == nil, err
	}
	switch {
	case e.notebook:
		return nil, fmt.Errorf("%s of %s: notebook edits are %w", e.Tool, e.Path, ErrUnsupported)
	case e.write:
		before, existed, err := current(e.Path)
		if err != nil {
			return nil, err
		}
		return []Change{{Path: e.Path, Content: e.content, Before: before, Existed: existed}}, nil
	case e.patch != nil:
		return e.applyPatch(current)
	}
	before, existed, err := current(e.Path)
	if err != nil {
		return nil, err
	}
	if !existed && !(len(e.replacements) > 0 && e.replacements[0].Old == "") {
		return nil, &Conflict{Path: e.Path, Reason: "the file does not exist"}
	}
	after, err := Replace(before, e.replacements)
	if err != nil {
		var c *Conflict
		if errors.As(err, &c) {
			c.Path = e.Path
		}
		return nil, err
	}
	return []Change{{Path: e.Path, Content: after, Before: before, Existed: existed}}, nil
}

func (e *Edit) applyPatch(current func(string) (string, bool, error)) ([]Change, error) {
	// Later operations of one patch see what earlier ones did.
	state := map[string]*Change{}
	var order []string
	get := func(p string) (string, bool, error) {
		if c, ok := state[p]; ok {
			return c.Content, !c.Deleted, nil
		}
		return current(p)
	}
	set := func(c Change) {
		if prev, ok := state[c.Path]; ok {
			c.Before, c.Existed = prev.Before, prev.Existed
		} else {
			order = append(order, c.Path)
		}
		state[c.Path] = &c
	}
	for _, op := range e.patch {
		p := e.At(op.Path)
		before, existed, err := get(p)
		if err != nil {
			return nil, err
		}
		switch op.Kind {
		case PatchAdd:
			set(Change{Path: p, Content: op.Add, Before: before, Existed: existed})
		case PatchDelete:
			if !existed {
				return nil, &Conflict{Path: p, Reason: "the file to delete does not exist"}
			}
			set(Change{Path: p, Before: before, Existed: true, Deleted: true})
		case PatchUpdate:
			if !existed {
				return nil, &Conflict{Path: p, Reason: "the file to update does not exist"}
			}
			after, err := ApplyChunks(before, op.Chunks)
			if err != nil {
				var c *Conflict
				if errors.As(err, &c) {
					c.Path = p
				}
				return nil, err
			}
			if op.MoveTo == "" {
				set(Change{Path: p, Content: after, Before: before, Existed: true})
				continue
			}
			to := e.At(op.MoveTo)
			toBefore, toExisted, err := get(to)
			if err != nil {
				return nil, err
			}
			set(Change{Path: p, Before: before, Existed: true, Deleted: true})
			set(Change{Path: to, Content: after, Before: toBefore, Existed: toExisted, From: p})
		}
	}
	out := make([]Change, 0, len(order))
	for _, p := range order {
		out = append(out, *state[p])
	}
	return out, nil
}

// Replace applies replacements to content in order, as Claude Code's Edit
// and MultiEdit do: each replaces the first occurrence of its old string
// (every one with All). An empty old string on an empty content sets it.
// When the new string is empty and the old one does not end in a line
// break but occurs followed by one, the line break goes too, as Claude
// Code removes a whole line. An old string that is not in the content, or
// occurs more than once without All, is a *Conflict.
func Replace(content string, rs []Replacement) (string, error) {
	for i, r := range rs {
		what := "old_string"
		if len(rs) > 1 {
			what = fmt.Sprintf("edit %d: old_string", i)
		}
		if r.Old == "" {
			if content != "" || i > 0 {
				return "", &Conflict{Reason: what + " is empty, but the file is not"}
			}
			content = r.New
			continue
		}
		old := r.Old
		if r.New == "" && !strings.HasSuffix(old, "\n") && strings.Contains(content, old+"\n") {
			old += "\n"
		}
		switch n := strings.Count(content, old); {
		case n == 0:
			return "", &Conflict{Reason: what + " is not in the file"}
		case n > 1 && !r.All:
			return "", &Conflict{Reason: fmt.Sprintf("%s occurs %d times, and replace_all is not set", what, n)}
		}
		if r.All {
			content = strings.ReplaceAll(content, old, r.New)
		} else {
			content = strings.Replace(content, old, r.New, 1)
		}
	}
	return content, nil
}
