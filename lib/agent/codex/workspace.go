package codex

import (
	"bytes"
	"path"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/edit"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/replay/render"
)

// codexWorkspaceReader reads a Codex rollout's shell calls and apply_patch
// calls, in order: a plain `cat FILE` that succeeded shows the whole file
// (an input), a plain read of part of it (sed -n 'A,Bp', head, nl -ba,
// nl -ba | sed -n) the lines it printed (a partial input; recordRead), a
// file an apply_patch deleted the content its FileChange item gives
// (fileChange), and an apply_patch applied to files whose content is
// known gives their final content (outputs). Paths are relative to root, the session's
// working directory.
//
// It reads line after line: a checkpoint saves it with the rest of the
// import's state (importer.ReadLines).
type codexWorkspaceReader struct {
	w     *importer.Workspace
	calls map[string]*codexWSCall // calls whose output has not come yet, by id
}

// A codexWSCall is what codexResult needs of a call.
type codexWSCall struct {
	name, workdir string
	argv          []string
	script, patch string
}

func newCodexWorkspaceReader(root string) *codexWorkspaceReader {
	return &codexWorkspaceReader{w: importer.NewWorkspace(root), calls: map[string]*codexWSCall{}}
}

// read reads the lines of data.
func (r *codexWorkspaceReader) read(data []byte) {
	w, calls := r.w, r.calls
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 || !gjson.ValidBytes(line) {
			continue
		}
		rec := importer.Parse(line)
		item := rec
		if rec.Get("type").String() == "response_item" {
			item = rec.Get("payload")
		}
		if rec.Get("type").String() == "event_msg" {
			if rec.Get("payload.type").String() == "item_completed" {
				r.fileChange(rec.Get("payload.item"))
			}
			continue
		}
		id := item.Get("call_id").String()
		switch item.Get("type").String() {
		case "function_call":
			c := &codexWSCall{name: item.Get("name").String()}
			args := gjson.Parse(item.Get("arguments").String())
			c.workdir = args.Get("workdir").String()
			if c.name == "apply_patch" {
				c.patch = args.Get("input").String()
			}
			readCommand(args.Get("command"), &c.argv, &c.script)
			readCommand(args.Get("cmd"), &c.argv, &c.script)
			calls[id] = c
		case "custom_tool_call":
			c := &codexWSCall{name: item.Get("name").String()}
			if c.name == "apply_patch" {
				c.patch = item.Get("input").String()
			}
			calls[id] = c
		case "local_shell_call":
			c := &codexWSCall{name: "local_shell", workdir: item.Get("action.working_directory").String()}
			readCommand(item.Get("action.command"), &c.argv, &c.script)
			calls[id] = c
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			c, ok := calls[id]
			if !ok {
				continue
			}
			delete(calls, id)
			out := item.Get("output")
			text := out.String()
			if out.IsObject() {
				text = out.Get("content").String()
			}
			codexResult(w, c.name, c.workdir, c.argv, c.script, c.patch, []byte(text))
		}
	}
}

// fileChange reads the FileChange item Codex 0.16x completes when an
// apply_patch applies, before the call's output: a file it deletes is
// given with the content it held, which the session had then seen whole.
func (r *codexWorkspaceReader) fileChange(item gjson.Result) {
	if item.Get("type").String() != "FileChange" || item.Get("status").String() != "completed" {
		return
	}
	item.Get("changes").ForEach(func(abs, ch gjson.Result) bool {
		if ch.Get("type").String() != "delete" || ch.Get("content").Type != gjson.String || !path.IsAbs(abs.String()) {
			return true
		}
		if name, ok := r.w.Rel(path.Clean(abs.String()), "apply_patch delete of"); ok {
			r.w.ShowedWhole(name, ch.Get("content").Str)
		}
		return true
	})
}

// readCommand reads a command given as an argv array or as a script.
func readCommand(v gjson.Result, argv *[]string, script *string) {
	switch {
	case v.IsArray():
		*argv = nil
		for _, a := range v.Array() {
			*argv = append(*argv, a.String())
		}
		if len(*argv) == 3 && isShellName((*argv)[0]) && ((*argv)[1] == "-lc" || (*argv)[1] == "-c") {
			*script, *argv = (*argv)[2], nil
		}
	case v.Type == gjson.String:
		*script = v.Str
	}
}

func isShellName(prog string) bool {
	switch path.Base(prog) {
	case "bash", "sh", "zsh", "dash":
		return true
	}
	return false
}

// codexResult reads the result of a call: a successful apply_patch's
// changes, or what a plain read showed (recordRead).
func codexResult(w *importer.Workspace, name, workdir string, argv []string, script, patch string, result []byte) {
	out, exit, short := Result(result)
	failed := exit != "" && exit != "0"
	if patch == "" {
		patch, workdir = edit.PatchOfCommand(argv, script, workdir)
	}
	dir := w.Root()
	if workdir != "" {
		if path.IsAbs(workdir) {
			dir = path.Clean(workdir)
		} else {
			dir = path.Join(w.Root(), workdir)
		}
	}
	if patch != "" {
		if failed || !bytes.Contains(out, []byte("Success.")) && exit == "" {
			return // not applied
		}
		w.ApplyPatch(patch, dir)
		return
	}
	recordRead(w, argv, script, dir, exit, short, out)
}

// recordRead records what a plain read of a file (ParseRead:
// cat, sed -n 'A,Bp', head, nl -ba, nl -ba | sed -n) that exited 0
// showed: the whole file when the output is all of it byte for byte,
// else the lines it printed, as a partial input. A command of one of
// those programs that is not such a read, failed, or whose output Codex
// shortened is named as skipped.
func recordRead(w *importer.Workspace, argv []string, script, dir, exit string, short bool, out []byte) {
	stages := [][]string{argv}
	shown := strings.Join(argv, " ")
	if script != "" {
		shown = script
		if !mentionsRead(script) {
			return
		}
		if strings.ContainsAny(script, "*?[]{}~") {
			w.Skipf("command %q holds characters a shell would expand; what it printed is not recorded", shown)
			return
		}
		var err error
		if stages, err = render.SplitPipeline(script); err != nil {
			w.Skipf("command %q is not a plain read (%v); what it printed is not recorded", shown, err)
			return
		}
	}
	if len(stages[0]) == 0 || !isReadProgram(stages[0][0]) {
		return
	}
	r, err := ParseRead(stages)
	if err != nil {
		w.Skipf("command %q: %v; what it printed is not recorded", shown, err)
		return
	}
	switch {
	case exit == "":
		w.Skipf("command %q: the result records no exit code; what it printed is not recorded", shown)
		return
	case exit != "0":
		w.Skipf("command %q exited with code %s; what it printed is not recorded", shown, exit)
		return
	case short:
		w.Skipf("command %q: Codex shortened its output; what it printed is not recorded", shown)
		return
	case len(r.Files) != 1:
		w.Skipf("command %q reads %d files, and its output does not say where each ends; what it printed is not recorded", shown, len(r.Files))
		return
	}
	file := r.Files[0]
	if !path.IsAbs(file) {
		file = path.Join(dir, file)
	}
	name, ok := w.Rel(path.Clean(file), r.Prog+" of")
	if !ok {
		return
	}
	lines, ended, err := r.Shown(out)
	switch {
	case err != nil:
		w.Skipf("command %q: %v; what it printed is not recorded", shown, err)
	case r.From == 1 && ended && !r.Numbered:
		w.ShowedWhole(name, string(out))
	case r.From == 1 && ended && len(lines) == 0:
		w.ShowedWhole(name, "") // nl prints nothing of an empty file only
	case len(lines) == 0:
		if r.To >= r.From {
			w.Skipf("command %q printed nothing: %s has fewer than %d lines, which a partial input cannot record", shown, name, r.From)
		}
	default:
		total, ending := 0, ""
		if ended {
			total = r.From + len(lines) - 1
			if !r.Numbered { // nl ends every line it prints
				ending = "none"
				if bytes.HasSuffix(out, []byte("\n")) {
					ending = "\n"
				}
			}
		}
		w.ShowedLines(name, r.From, lines, total, ending, shown)
	}
}

// mentionsRead reports whether a script runs one of the programs whose
// plain reads are recorded: first, or after an operator (cd DIR && sed …).
func mentionsRead(script string) bool {
	fields := strings.Fields(script)
	for i, f := range fields {
		if !isReadProgram(f) {
			continue
		}
		if i == 0 {
			return true
		}
		switch prev := fields[i-1]; {
		case prev == "&&" || prev == "||" || prev == "|" || strings.HasSuffix(prev, ";"):
			return true
		}
	}
	return false
}

// isReadProgram reports whether prog is one of the programs whose plain
// reads are recorded.
func isReadProgram(prog string) bool {
	switch prog {
	case "cat", "sed", "head", "nl":
		return true
	}
	return false
}
