package importer

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
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

	skipped []string // what could not be recorded, and why
}

type wsFile struct {
	name    string
	content string
}

func newWorkspace(root string) *workspace {
	return &workspace{root: root, inputAt: map[string]int{}, current: map[string]string{}, written: map[string]bool{}}
}

// rel makes an absolute path relative to the working directory; ok is
// false for a path outside it, which is noted as skipped.
func (w *workspace) rel(abs, what string) (string, bool) {
	if w.root == "" {
		w.skip("%s %s: the session records no working directory", what, abs)
		return "", false
	}
	name, ok := strings.CutPrefix(abs, w.root+"/")
	if !ok || name == "" || path.Clean(name) != name || strings.HasPrefix(name, "../") || strings.ContainsAny(name, "\\\x00") {
		w.skip("%s %s: not a file under the working directory", what, abs)
		return "", false
	}
	return name, true
}

func (w *workspace) skip(format string, a ...any) {
	w.skipped = append(w.skipped, fmt.Sprintf(format, a...))
}

// saw records that the session observed the whole of name holding
// content: an input, unless the session wrote the file first.
func (w *workspace) saw(name, content string) {
	if _, ok := w.current[name]; ok {
		return // known already: an input, or the session's own writing
	}
	w.current[name] = content
	w.inputAt[name] = len(w.inputs)
	w.inputs = append(w.inputs, wsFile{name, content})
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

func (w *workspace) isOutput(name string) bool {
	for _, o := range w.outputs {
		if o == name {
			return true
		}
	}
	return false
}

// edit is one replacement of an Edit or MultiEdit.
type edit struct {
	old, new string
	all      bool
}

// apply applies edits to content as Claude Code does: each replaces the
// first occurrence of its old string (every one with all), in order.
func apply(content string, edits []edit) (string, error) {
	for i, e := range edits {
		if e.old == "" {
			if content != "" || i > 0 {
				return "", fmt.Errorf("edit %d has an empty old_string on a non-empty file", i)
			}
			content = e.new
			continue
		}
		if !strings.Contains(content, e.old) {
			return "", fmt.Errorf("edit %d: old_string is not in the file", i)
		}
		if e.all {
			content = strings.ReplaceAll(content, e.old, e.new)
		} else {
			content = strings.Replace(content, e.old, e.new, 1)
		}
	}
	return content, nil
}

// claudeCodeWorkspace reads a Claude Code transcript's Read, Write, Edit,
// MultiEdit and NotebookEdit calls and their results, in order.
func claudeCodeWorkspace(data []byte, root string) *workspace {
	w := newWorkspace(root)
	calls := map[string]gjson.Result{} // tool_use id → the tool_use block
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 || !gjson.ValidBytes(line) {
			continue
		}
		rec := gjson.ParseBytes(line)
		content := rec.Get("message.content")
		if !content.IsArray() {
			continue
		}
		var results []gjson.Result
		content.ForEach(func(_, c gjson.Result) bool {
			switch c.Get("type").String() {
			case "tool_use":
				calls[c.Get("id").String()] = c
			case "tool_result":
				results = append(results, c)
			}
			return true
		})
		// A user line carries one result; toolUseResult is its structure.
		if len(results) != 1 {
			continue
		}
		res := results[0]
		call, ok := calls[res.Get("tool_use_id").String()]
		if !ok || res.Get("is_error").Bool() {
			continue
		}
		w.claudeResult(call.Get("name").String(), call.Get("input"), rec.Get("toolUseResult"))
	}
	return w
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
			w.saw(name, f.Get("content").String())
			return
		}
		if _, known := w.current[name]; !known {
			w.skip("Read of %s: lines %d-%d of %d seen; a file seen in part is not recorded", name, start, start+n-1, total)
		}
	case "Write":
		name, ok := w.rel(input.Get("file_path").String(), "Write of")
		if !ok {
			return
		}
		if orig := result.Get("originalFile"); orig.Type == gjson.String {
			w.saw(name, orig.Str)
		}
		w.wrote(name, input.Get("content").String())
	case "Edit", "MultiEdit":
		name, ok := w.rel(input.Get("file_path").String(), tool+" of")
		if !ok {
			return
		}
		if orig := result.Get("originalFile"); orig.Type == gjson.String {
			w.saw(name, orig.Str)
		}
		base, known := w.current[name]
		if !known {
			w.skip("%s of %s: the file's content before the edit is not known; its final content is not recorded", tool, name)
			return
		}
		var edits []edit
		if tool == "Edit" {
			edits = []edit{{input.Get("old_string").String(), input.Get("new_string").String(), input.Get("replace_all").Bool()}}
		} else {
			input.Get("edits").ForEach(func(_, e gjson.Result) bool {
				edits = append(edits, edit{e.Get("old_string").String(), e.Get("new_string").String(), e.Get("replace_all").Bool()})
				return true
			})
		}
		out, err := apply(base, edits)
		if err != nil {
			w.skip("%s of %s: %v; its final content is not recorded", tool, name, err)
			delete(w.current, name)
			return
		}
		w.wrote(name, out)
	case "NotebookEdit":
		if name, ok := w.rel(input.Get("notebook_path").String(), "NotebookEdit of"); ok {
			w.skip("NotebookEdit of %s: notebook edits are not applied; its final content is not recorded", name)
			delete(w.current, name)
		}
	}
}

// addWorkspace adds w's inputs and outputs to the imported log: file
// contents are kept byte for byte. Outputs already in the log (final.md)
// come first; a written file of the same name replaces it, with a warning.
func (b *builder) addWorkspace(l *execlog.Log, w *workspace) {
	for _, s := range w.skipped {
		b.warn("%s", s)
	}
	if len(w.inputs) == 0 && len(w.outputs) == 0 {
		return
	}
	var outputs []execlog.Output
	for _, o := range l.Outputs {
		if w.isOutput(o.Name) {
			b.warn("the session wrote %s, which replaces the output of the same name holding its last message", o.Name)
			continue
		}
		outputs = append(outputs, o)
	}
	for _, name := range w.outputs {
		outputs = append(outputs, execlog.Output{Name: name, Content: execlog.Text(w.current[name])})
	}
	l.Outputs = outputs
	for _, in := range w.inputs {
		l.Inputs = append(l.Inputs, execlog.File{Name: in.name, Content: execlog.Text(in.content)})
	}
}
