package claudecode

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/edit"
	"github.com/ctx-tools/ctx/lib/importer"
)

// claudeCodeWorkspace reads a Claude Code transcript's Read, Write, Edit,
// MultiEdit and NotebookEdit calls and their results, in order: the
// session's records, its subagents' (the progress records holding them
// too) and each result once, though a subagent's record may be both in
// a progress record and in its own transcript.
func claudeCodeWorkspace(data []byte, root string) *importer.Workspace {
	r := newCCWorkspace(root)
	r.read(data)
	return r.done()
}

// ccWorkspace is claudeCodeWorkspace's reading, line after line: a
// checkpoint saves it with the rest of the import's state (importer.ReadLines).
type ccWorkspace struct {
	w     *importer.Workspace
	calls map[string]gjson.Result // tool_use id → the tool_use block
	seen  map[string]bool         // the ids of the results applied, each once
	early map[string]gjson.Result // records of results whose call has not come yet
	// Reads whose result has no toolUseResult, by id: the file they read.
	bare      map[string]string
	bareOrder []string
}

func newCCWorkspace(root string) *ccWorkspace {
	return &ccWorkspace{w: importer.NewWorkspace(root), calls: map[string]gjson.Result{}, seen: map[string]bool{},
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
		if claudeShown(r.w, call.Get("input"), res.Get("content")) {
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
	claudeResult(r.w, call.Get("name").String(), call.Get("input"), tur)
}

// read reads the lines of data. The results it keeps share data's memory.
func (r *ccWorkspace) read(data []byte) {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 || !gjson.ValidBytes(line) {
			continue
		}
		rec := importer.Parse(line)
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
func (r *ccWorkspace) done() *importer.Workspace {
	var names []string
	for _, id := range r.bareOrder {
		if name, ok := r.w.RelQuiet(r.bare[id]); ok && !r.seen["result:"+id] && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) > 0 {
		list := strings.Join(names[:min(len(names), 5)], ", ")
		if len(names) > 5 {
			list += fmt.Sprintf(" and %d more", len(names)-5)
		}
		r.w.Skipf("%d file(s) read with no toolUseResult (only the lines shown are recorded, not the file) are no inputs: %s", len(names), list)
	}
	return r.w
}

// claudeShown reads the answer of a Read whose record has no
// toolUseResult: the numbered lines Claude Code shows (any of
// Numbering's forms), from the first line asked for. They
// are the whole file when the call asked for no offset and no limit and
// fewer lines than Read shows at most, none of them possibly cut (as
// long as ReadLineLength); else the lines seen. False when
// the answer is not such lines (an image, an empty file's warning).
func claudeShown(w *importer.Workspace, input, content gjson.Result) bool {
	text := content.Str
	if content.IsArray() {
		if n := content.Get("#").Int(); n != 1 || content.Get("0.type").String() != "text" {
			return false
		}
		text = content.Get("0.text").String()
	} else if content.Type != gjson.String {
		return false
	}
	text = WithoutReminders(text)
	name, ok := w.RelQuiet(input.Get("file_path").String())
	if !ok || text == "" {
		return false
	}
	start := max(int(input.Get("offset").Int()), 1)
	form := NumberingOf([]byte(text))
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		rest, ok := claudeNumbered(l, start+i, form)
		if !ok || utf8.RuneCountInString(rest) >= ReadLineLength {
			return false
		}
		lines[i] = rest
	}
	if !input.Get("offset").Exists() && !input.Get("limit").Exists() && len(lines) < ReadLines {
		w.Observed(name, strings.Join(lines, "\n"))
		return true
	}
	w.SawLines(name, start, lines, 0)
	return true
}

// claudeNumbered returns line without its line number n in form f, false
// when it does not open with it.
func claudeNumbered(line string, n int, f Numbering) (string, bool) {
	if f != Tab {
		line = strings.TrimLeft(line, " ")
	}
	rest, ok := strings.CutPrefix(line, strconv.Itoa(n))
	if !ok {
		return "", false
	}
	if f == Arrow {
		return strings.CutPrefix(rest, "→")
	}
	return strings.CutPrefix(rest, "\t")
}

func claudeResult(w *importer.Workspace, tool string, input, result gjson.Result) {
	switch tool {
	case "Read":
		f := result.Get("file")
		if result.Get("type").String() != "text" || !f.Get("content").Exists() {
			return
		}
		name, ok := w.Rel(f.Get("filePath").String(), "Read of")
		if !ok {
			return
		}
		start, n, total := f.Get("startLine").Int(), f.Get("numLines").Int(), f.Get("totalLines").Int()
		if start <= 1 && n == total {
			w.Observed(name, f.Get("content").String())
			return
		}
		lines := strings.Split(f.Get("content").String(), "\n")
		if int64(len(lines)) == n+1 && lines[n] == "" {
			lines = lines[:n]
		}
		if int64(len(lines)) != n || n == 0 {
			w.Skipf("Read of %s: %d lines recorded where numLines says %d; not recorded", name, len(lines), n)
			return
		}
		w.SawLines(name, int(max(start, 1)), lines, int(total))
	case "Glob", "Grep":
		result.Get("filenames").ForEach(func(_, f gjson.Result) bool {
			if name, ok := w.RelQuiet(f.String()); ok {
				w.SawName(name)
			}
			return true
		})
	case "LS":
		text := result.String()
		if result.IsObject() {
			return
		}
		for _, p := range importer.LSTree(text) {
			if name, ok := w.RelQuiet(p); ok {
				w.SawName(name)
			}
		}
	case "Write":
		name, ok := w.Rel(input.Get("file_path").String(), "Write of")
		if !ok {
			return
		}
		if orig := result.Get("originalFile"); orig.Type == gjson.String {
			w.Observed(name, orig.Str)
		}
		w.Wrote(name, input.Get("content").String())
	case "Edit", "MultiEdit":
		name, ok := w.Rel(input.Get("file_path").String(), tool+" of")
		if !ok {
			return
		}
		if orig := result.Get("originalFile"); orig.Type == gjson.String {
			w.Observed(name, orig.Str)
		}
		base, known := w.Holds(name)
		if !known {
			w.Skipf("%s of %s: the file's content before the edit is not known; its final content is not recorded", tool, name)
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
			w.Skipf("%s of %s: %v; its final content is not recorded", tool, name, err)
			w.Lose(name)
			return
		}
		w.Wrote(name, out)
	case "NotebookEdit":
		if name, ok := w.Rel(input.Get("notebook_path").String(), "NotebookEdit of"); ok {
			w.Skipf("NotebookEdit of %s: notebook edits are not applied; its final content is not recorded", name)
			w.Lose(name)
		}
	}
}
