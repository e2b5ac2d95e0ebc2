package importer

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/edit"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/replay/render"
)

// workspace is what a session's file tools tell about the files it worked
// on: the files it saw whole before changing them (the pack's inputs) and
// the final content of the files it wrote (outputs). Names are relative
// to the recorded working directory; contents are verbatim.
type workspace struct {
	root string

	inputs  []wsFile
	inputAt map[string]int
	outputs []string          // written files, in order of first write
	current map[string]string // what the session knows each file holds now
	written map[string]bool   // files first seen by being written
	stale   map[string]bool   // files changed in a way not known

	skipped []string // what could not be recorded, and why
}

type wsFile struct {
	name    string
	content string
	// seen is "" for a whole file; "partial" with known lines (number →
	// text) and total (the line count, 0 if unknown); "name" for a name.
	seen  string
	known map[int]string
	total int
	// ending is how the last line of a partial file ends, when a read
	// printed it as it is: "\n", or "none" for no line ending.
	ending string
}

// Input seen values (the schema's seen member).
const (
	seenPartial = "partial"
	seenName    = "name"
)

func newWorkspace(root string) *workspace {
	return &workspace{root: root, inputAt: map[string]int{}, current: map[string]string{}, written: map[string]bool{}, stale: map[string]bool{}}
}

// rel makes an absolute path relative to the working directory, in the
// directory's path syntax (pathUnder), with "/" between its names; ok is
// false for a path outside it, which is noted as skipped.
func (w *workspace) rel(abs, what string) (string, bool) {
	if w.root == "" {
		w.skip("%s %s: the session records no working directory", what, abs)
		return "", false
	}
	name, ok := w.relQuiet(abs)
	if !ok {
		w.skip("%s %s: not a file under the working directory", what, abs)
	}
	return name, ok
}

// relQuiet is rel for paths a listing printed: one outside the working
// directory is left out without a note (the listing itself is a step).
func (w *workspace) relQuiet(abs string) (string, bool) {
	if w.root == "" {
		return "", false
	}
	name, ok := pathUnder(abs, w.root)
	if !ok || name == "." || name == "" || path.Clean(name) != name || strings.HasPrefix(name, "../") || strings.ContainsAny(name, "\\\x00") {
		return "", false
	}
	return name, true
}

// lsTree reads the files of Claude Code's LS tree ("- /dir/", then
// "  - name" lines two spaces deeper per level, directories ending in
// "/") as absolute paths.
func lsTree(text string) []string {
	lines := strings.Split(text, "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "- /") || !strings.HasSuffix(lines[0], "/") {
		return nil
	}
	stack := []string{strings.TrimSuffix(strings.TrimPrefix(lines[0], "- "), "/")}
	var files []string
	for _, l := range lines[1:] {
		trimmed := strings.TrimLeft(l, " ")
		indent := len(l) - len(trimmed)
		if !strings.HasPrefix(trimmed, "- ") || indent%2 != 0 || indent < 2 {
			break // the tree ends (a blank line, then the note)
		}
		level := indent / 2
		if level > len(stack) {
			return nil
		}
		stack = stack[:level]
		entry := strings.TrimPrefix(trimmed, "- ")
		if dir, ok := strings.CutSuffix(entry, "/"); ok {
			stack = append(stack, stack[level-1]+"/"+dir)
			continue
		}
		files = append(files, stack[level-1]+"/"+entry)
	}
	return files
}

func (w *workspace) skip(format string, a ...any) {
	w.skipped = append(w.skipped, fmt.Sprintf(format, a...))
}

// saw records that the session observed the whole of name holding
// content: an input, unless the session wrote the file first. A file seen
// before only in part or by name is now known whole.
func (w *workspace) saw(name, content string) {
	if _, ok := w.current[name]; ok {
		return // known already: an input, or the session's own writing
	}
	w.current[name] = content
	if i, ok := w.inputAt[name]; ok {
		w.inputs[i] = wsFile{name: name, content: content}
		return
	}
	w.inputAt[name] = len(w.inputs)
	w.inputs = append(w.inputs, wsFile{name: name, content: content})
}

// sawLines records lines of name from start on (1-based), of a file of
// total lines (0 if unknown), unless the file is known whole or written.
func (w *workspace) sawLines(name string, start int, lines []string, total int) {
	if _, ok := w.current[name]; ok || w.written[name] {
		return
	}
	i, ok := w.inputAt[name]
	if !ok {
		i = len(w.inputs)
		w.inputAt[name] = i
		w.inputs = append(w.inputs, wsFile{name: name})
	}
	f := &w.inputs[i]
	if f.seen != seenPartial {
		f.seen, f.known = seenPartial, map[int]string{}
	}
	for k, l := range lines {
		f.known[start+k] = l
	}
	if total > 0 {
		f.total = total
	}
}

// sawName records that a listing showed name.
func (w *workspace) sawName(name string) {
	if _, ok := w.inputAt[name]; ok || w.written[name] {
		return
	}
	if _, ok := w.current[name]; ok {
		return
	}
	w.inputAt[name] = len(w.inputs)
	w.inputs = append(w.inputs, wsFile{name: name, seen: seenName})
}

// observed records that name holds content now, as a whole Read or the
// originalFile of a write shows it: the file may have changed since the
// session last wrote it (a formatter run by a hook, a shell command, the
// user), and what comes next applies to what it holds.
func (w *workspace) observed(name, content string) {
	w.saw(name, content)
	w.current[name] = content
}

// wrote records name's new content.
func (w *workspace) wrote(name, content string) {
	if _, ok := w.current[name]; !ok {
		w.written[name] = true
	}
	if !w.isOutput(name) {
		w.outputs = append(w.outputs, name)
	}
	w.current[name] = content
}

// lose forgets what name holds: the session changed it in a way that is
// not known. An output of that name is no longer one (its final content
// is not known), and later Codex reads of it are no input.
func (w *workspace) lose(name string) {
	delete(w.current, name)
	w.outputs = removeName(w.outputs, name)
	w.stale[name] = true
}

func (w *workspace) isOutput(name string) bool {
	for _, o := range w.outputs {
		if o == name {
			return true
		}
	}
	return false
}

// claudeCodeWorkspace reads a Claude Code transcript's Read, Write, Edit,
// MultiEdit and NotebookEdit calls and their results, in order: the
// session's records, its subagents' (the progress records holding them
// too) and each result once, though a subagent's record may be both in
// a progress record and in its own transcript.
func claudeCodeWorkspace(data []byte, root string) *workspace {
	r := newCCWorkspace(root)
	r.read(data)
	return r.done()
}

// ccWorkspace is claudeCodeWorkspace's reading, line after line: a
// checkpoint saves it with the rest of the import's state (resume.go).
type ccWorkspace struct {
	w     *workspace
	calls map[string]gjson.Result // tool_use id → the tool_use block
	seen  map[string]bool         // the ids of the results applied, each once
	early map[string]gjson.Result // records of results whose call has not come yet
	// Reads whose result has no toolUseResult, by id: the file they read.
	bare      map[string]string
	bareOrder []string
}

func newCCWorkspace(root string) *ccWorkspace {
	return &ccWorkspace{w: newWorkspace(root), calls: map[string]gjson.Result{}, seen: map[string]bool{},
		early: map[string]gjson.Result{}, bare: map[string]string{}}
}

// take reads the one result a user record holds.
func (r *ccWorkspace) take(rec gjson.Result) {
	res := rec.Get("message.content.#(type==\"tool_result\")")
	id := res.Get("tool_use_id").String()
	if res.Get("is_error").Bool() || r.seen["result:"+id] {
		return
	}
	call := r.calls[id]
	tur := rec.Get("toolUseResult")
	if !tur.Exists() && call.Get("name").String() == "Read" {
		// Only the lines shown are recorded (a subagent's progress
		// records in 2.1.3x, its own transcript in 2.1.32x), not the
		// file: they are read from the answer when they can be, else,
		// unless another copy of the record has its toolUseResult, it
		// is no input.
		if r.w.claudeShown(call.Get("input"), res.Get("content")) {
			r.seen["result:"+id] = true
			return
		}
		if _, ok := r.bare[id]; !ok {
			r.bareOrder = append(r.bareOrder, id)
		}
		r.bare[id] = call.Get("input.file_path").String()
		return
	}
	r.seen["result:"+id] = true
	r.w.claudeResult(call.Get("name").String(), call.Get("input"), tur)
}

// read reads the lines of data. The results it keeps share data's memory.
func (r *ccWorkspace) read(data []byte) {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 || !gjson.ValidBytes(line) {
			continue
		}
		rec := parse(line)
		if rec.Get("type").String() == "progress" && rec.Get("data.type").String() == "agent_progress" {
			rec = rec.Get("data.message")
		}
		content := rec.Get("message.content")
		if !content.IsArray() {
			continue
		}
		var results []gjson.Result
		content.ForEach(func(_, c gjson.Result) bool {
			switch c.Get("type").String() {
			case "tool_use":
				id := c.Get("id").String()
				r.calls[id] = c
				if e, ok := r.early[id]; ok {
					// Its result came first.
					delete(r.early, id)
					r.take(e)
				}
			case "tool_result":
				results = append(results, c)
			}
			return true
		})
		// A user line carries one result; toolUseResult is its structure.
		if len(results) != 1 {
			continue
		}
		id := results[0].Get("tool_use_id").String()
		if _, ok := r.calls[id]; !ok {
			r.early[id] = rec
			continue
		}
		r.take(rec)
	}
}

// done returns the workspace read, noting the files read with no
// toolUseResult.
func (r *ccWorkspace) done() *workspace {
	var names []string
	for _, id := range r.bareOrder {
		if name, ok := r.w.relQuiet(r.bare[id]); ok && !r.seen["result:"+id] && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) > 0 {
		list := strings.Join(names[:min(len(names), 5)], ", ")
		if len(names) > 5 {
			list += fmt.Sprintf(" and %d more", len(names)-5)
		}
		r.w.skip("%d file(s) read with no toolUseResult (only the lines shown are recorded, not the file) are no inputs: %s", len(names), list)
	}
	return r.w
}

// claudeShown reads the answer of a Read whose record has no
// toolUseResult: the numbered lines Claude Code shows (any of
// render.ClaudeNumbering's forms), from the first line asked for. They
// are the whole file when the call asked for no offset and no limit and
// fewer lines than Read shows at most, none of them possibly cut (as
// long as render.ClaudeReadLineLength); else the lines seen. False when
// the answer is not such lines (an image, an empty file's warning).
func (w *workspace) claudeShown(input, content gjson.Result) bool {
	text := content.Str
	if content.IsArray() {
		if n := content.Get("#").Int(); n != 1 || content.Get("0.type").String() != "text" {
			return false
		}
		text = content.Get("0.text").String()
	} else if content.Type != gjson.String {
		return false
	}
	text = claudecode.WithoutReminders(text)
	name, ok := w.relQuiet(input.Get("file_path").String())
	if !ok || text == "" {
		return false
	}
	start := max(int(input.Get("offset").Int()), 1)
	form := render.ClaudeNumberingOf([]byte(text))
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		rest, ok := claudeNumbered(l, start+i, form)
		if !ok || utf8.RuneCountInString(rest) >= render.ClaudeReadLineLength {
			return false
		}
		lines[i] = rest
	}
	if !input.Get("offset").Exists() && !input.Get("limit").Exists() && len(lines) < render.ClaudeReadLines {
		w.observed(name, strings.Join(lines, "\n"))
		return true
	}
	w.sawLines(name, start, lines, 0)
	return true
}

// claudeNumbered returns line without its line number n in form f, false
// when it does not open with it.
func claudeNumbered(line string, n int, f render.ClaudeNumbering) (string, bool) {
	if f != render.ClaudeTab {
		line = strings.TrimLeft(line, " ")
	}
	rest, ok := strings.CutPrefix(line, strconv.Itoa(n))
	if !ok {
		return "", false
	}
	if f == render.ClaudeArrow {
		return strings.CutPrefix(rest, "→")
	}
	return strings.CutPrefix(rest, "\t")
}

func (w *workspace) claudeResult(tool string, input, result gjson.Result) {
	switch tool {
	case "Read":
		f := result.Get("file")
		if result.Get("type").String() != "text" || !f.Get("content").Exists() {
			return
		}
		name, ok := w.rel(f.Get("filePath").String(), "Read of")
		if !ok {
			return
		}
		start, n, total := f.Get("startLine").Int(), f.Get("numLines").Int(), f.Get("totalLines").Int()
		if start <= 1 && n == total {
			w.observed(name, f.Get("content").String())
			return
		}
		lines := strings.Split(f.Get("content").String(), "\n")
		if int64(len(lines)) == n+1 && lines[n] == "" {
			lines = lines[:n]
		}
		if int64(len(lines)) != n || n == 0 {
			w.skip("Read of %s: %d lines recorded where numLines says %d; not recorded", name, len(lines), n)
			return
		}
		w.sawLines(name, int(max(start, 1)), lines, int(total))
	case "Glob", "Grep":
		result.Get("filenames").ForEach(func(_, f gjson.Result) bool {
			if name, ok := w.relQuiet(f.String()); ok {
				w.sawName(name)
			}
			return true
		})
	case "LS":
		text := result.String()
		if result.IsObject() {
			return
		}
		for _, p := range lsTree(text) {
			if name, ok := w.relQuiet(p); ok {
				w.sawName(name)
			}
		}
	case "Write":
		name, ok := w.rel(input.Get("file_path").String(), "Write of")
		if !ok {
			return
		}
		if orig := result.Get("originalFile"); orig.Type == gjson.String {
			w.observed(name, orig.Str)
		}
		w.wrote(name, input.Get("content").String())
	case "Edit", "MultiEdit":
		name, ok := w.rel(input.Get("file_path").String(), tool+" of")
		if !ok {
			return
		}
		if orig := result.Get("originalFile"); orig.Type == gjson.String {
			w.observed(name, orig.Str)
		}
		base, known := w.current[name]
		if !known {
			w.skip("%s of %s: the file's content before the edit is not known; its final content is not recorded", tool, name)
			return
		}
		var edits []edit.Replacement
		if tool == "Edit" {
			edits = []edit.Replacement{{Old: input.Get("old_string").String(), New: input.Get("new_string").String(), All: input.Get("replace_all").Bool()}}
		} else {
			input.Get("edits").ForEach(func(_, e gjson.Result) bool {
				edits = append(edits, edit.Replacement{Old: e.Get("old_string").String(), New: e.Get("new_string").String(), All: e.Get("replace_all").Bool()})
				return true
			})
		}
		out, err := edit.Replace(base, edits)
		if err != nil {
			w.skip("%s of %s: %v; its final content is not recorded", tool, name, err)
			w.lose(name)
			return
		}
		w.wrote(name, out)
	case "NotebookEdit":
		if name, ok := w.rel(input.Get("notebook_path").String(), "NotebookEdit of"); ok {
			w.skip("NotebookEdit of %s: notebook edits are not applied; its final content is not recorded", name)
			w.lose(name)
		}
	}
}

// addWorkspace adds w's inputs and outputs to the imported log: file
// contents are kept byte for byte. Outputs already in the log (final.md)
// come first; a written file of the same name replaces it, with a warning.
func (b *Builder) addWorkspace(l *execlog.Log, w *workspace) {
	for _, s := range w.skipped {
		b.Warn("%s", s)
	}
	if len(w.inputs) == 0 && len(w.outputs) == 0 {
		return
	}
	var outputs []execlog.Output
	for _, o := range l.Outputs {
		if w.isOutput(o.Name) {
			b.Warn("the session wrote %s, which replaces the output of the same name holding its last message", o.Name)
			continue
		}
		outputs = append(outputs, o)
	}
	for _, name := range w.outputs {
		outputs = append(outputs, execlog.Output{Name: name, Content: execlog.Text(w.current[name])})
	}
	l.Outputs = outputs
	for _, in := range w.inputs {
		switch in.seen {
		case "":
			l.Inputs = append(l.Inputs, execlog.File{Name: in.name, Content: execlog.Text(in.content)})
		case seenName:
			l.Inputs = append(l.Inputs, execlog.File{Name: in.name, Seen: seenName})
		case seenPartial:
			nums := make([]int, 0, len(in.known))
			for n := range in.known {
				nums = append(nums, n)
			}
			slices.Sort(nums)
			var b strings.Builder
			var ranges [][2]int64
			for _, n := range nums {
				b.WriteString(in.known[n])
				b.WriteByte('\n')
				if k := len(ranges); k > 0 && ranges[k-1][1] == int64(n-1) {
					ranges[k-1][1] = int64(n)
				} else {
					ranges = append(ranges, [2]int64{int64(n), int64(n)})
				}
			}
			total := int64(in.total)
			if total > 0 && total < ranges[len(ranges)-1][1] {
				total = 0
			}
			l.Inputs = append(l.Inputs, execlog.File{Name: in.name, Content: execlog.Text(b.String()), Seen: seenPartial, Lines: ranges, TotalLines: total})
		}
	}
}
