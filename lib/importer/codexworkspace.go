package importer

import (
	"bytes"
	"path"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/edit"
	"github.com/ctx-tools/ctx/lib/replay/render"
)

// codexWorkspaceReader reads a Codex rollout's shell calls and apply_patch
// calls, in order: a plain `cat FILE` that succeeded shows the whole file
// (an input), a plain read of part of it (sed -n 'A,Bp', head, nl -ba,
// nl -ba | sed -n) the lines it printed (a partial input; codexRead), a
// file an apply_patch deleted the content its FileChange item gives
// (fileChange), and an apply_patch applied to files whose content is
// known gives their final content (outputs). Paths are relative to root, the session's
// working directory.
//
// It reads line after line: a checkpoint saves it with the rest of the
// import's state (resume.go).
type codexWorkspaceReader struct {
	w     *Workspace
	calls map[string]*codexWSCall // calls whose output has not come yet, by id
}

// A codexWSCall is what codexResult needs of a call.
type codexWSCall struct {
	name, workdir string
	argv          []string
	script, patch string
}

func newCodexWorkspaceReader(root string) *codexWorkspaceReader {
	return &codexWorkspaceReader{w: NewWorkspace(root), calls: map[string]*codexWSCall{}}
}

// read reads the lines of data.
func (r *codexWorkspaceReader) read(data []byte) {
	w, calls := r.w, r.calls
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 || !gjson.ValidBytes(line) {
			continue
		}
		rec := Parse(line)
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
			w.codexResult(c.name, c.workdir, c.argv, c.script, c.patch, []byte(text))
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
			r.w.codexSawWhole(name, ch.Get("content").Str)
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

func (w *Workspace) codexResult(name, workdir string, argv []string, script, patch string, result []byte) {
	out, exit, short := codex.Result(result)
	failed := exit != "" && exit != "0"
	if patch == "" {
		patch, workdir = edit.PatchOfCommand(argv, script, workdir)
	}
	dir := w.root
	if workdir != "" {
		if path.IsAbs(workdir) {
			dir = path.Clean(workdir)
		} else {
			dir = path.Join(w.root, workdir)
		}
	}
	if patch != "" {
		if failed || !bytes.Contains(out, []byte("Success.")) && exit == "" {
			return // not applied
		}
		w.applyPatch(patch, dir)
		return
	}
	w.codexRead(argv, script, dir, exit, short, out)
}

// codexRead records what a plain read of a file (codex.ParseRead:
// cat, sed -n 'A,Bp', head, nl -ba, nl -ba | sed -n) that exited 0
// showed: the whole file when the output is all of it byte for byte,
// else the lines it printed, as a partial input. A command of one of
// those programs that is not such a read, failed, or whose output Codex
// shortened is named as skipped.
func (w *Workspace) codexRead(argv []string, script, dir, exit string, short bool, out []byte) {
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
	r, err := codex.ParseRead(stages)
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
		w.codexSawWhole(name, string(out))
	case r.From == 1 && ended && len(lines) == 0:
		w.codexSawWhole(name, "") // nl prints nothing of an empty file only
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
		w.codexSawLines(name, r.From, lines, total, ending, shown)
	}
}

// codexSawWhole records that a read showed the whole of name holding
// content. A file the session changed in a way the rollout does not show
// is known again, but is no input; nor is content that contradicts the
// lines seen before (the file changed in between).
func (w *Workspace) codexSawWhole(name, content string) {
	if w.stale[name] {
		delete(w.stale, name)
		w.current[name] = content
		return
	}
	if i, ok := w.inputAt[name]; ok && w.inputs[i].seen == seenPartial {
		if _, known := w.current[name]; !known && !agrees(w.inputs[i], 1, splitLines(content), true) {
			w.Skipf("%s holds other lines than were seen of it before: it changed in between; its input keeps the lines first seen", name)
			w.current[name] = content
			return
		}
	}
	w.Observed(name, content)
}

// codexSawLines records lines of name from line from on, of a file of
// total lines (0 if unknown) whose last line ends in ending ("\n", "none",
// or "" if not shown), shown by command. Once every line is known, and how
// the last one ends, the file is known whole. Lines that contradict what
// is known of the file (its content, the lines seen before) mean it
// changed in a way the rollout does not show: what it holds is then no
// longer known.
func (w *Workspace) codexSawLines(name string, from int, lines []string, total int, ending, command string) {
	if w.stale[name] {
		return
	}
	if cur, ok := w.current[name]; ok {
		f := wsFile{seen: seenPartial, known: map[int]string{}}
		all := splitLines(cur)
		for k, l := range all {
			f.known[k+1] = l
		}
		f.total = len(all)
		if !agrees(f, from, lines, total > 0) || from+len(lines)-1 > f.total {
			w.Skipf("command %q shows other lines of %s than the session knew it to hold: it changed in a way the rollout does not show; its content is no longer known", command, name)
			w.Lose(name)
		}
		return
	}
	if w.written[name] {
		return
	}
	if i, ok := w.inputAt[name]; ok && w.inputs[i].seen == seenPartial {
		f := w.inputs[i]
		if !agrees(f, from, lines, false) || total > 0 && f.total > 0 && total != f.total || total > 0 && maxLine(f) > total || f.total > 0 && from+len(lines)-1 > f.total {
			w.Skipf("command %q shows other lines of %s than were seen of it before: it changed in between; its input keeps the lines first seen", command, name)
			w.stale[name] = true
			return
		}
	}
	w.SawLines(name, from, lines, total)
	i := w.inputAt[name]
	f := &w.inputs[i]
	if ending != "" {
		f.ending = ending
	}
	if f.total == 0 || f.ending == "" || len(f.known) != f.total || maxLine(*f) != f.total {
		return
	}
	var b strings.Builder
	for n := 1; n <= f.total; n++ {
		b.WriteString(f.known[n])
		if n < f.total || f.ending == "\n" {
			b.WriteByte('\n')
		}
	}
	w.inputs[i] = wsFile{name: name, content: b.String()}
	w.current[name] = b.String()
}

// agrees reports whether lines, lines of a file from line from on, agree
// with the lines f knows; with whole, they are all of the file, so f's
// known lines past them and f's total must agree too.
func agrees(f wsFile, from int, lines []string, whole bool) bool {
	for k, l := range lines {
		if known, ok := f.known[from+k]; ok && known != l {
			return false
		}
	}
	if whole {
		last := from + len(lines) - 1
		if f.total > 0 && f.total != last || maxLine(f) > last {
			return false
		}
	}
	return true
}

// maxLine is the last line number f knows.
func maxLine(f wsFile) int {
	n := 0
	for k := range f.known {
		n = max(n, k)
	}
	return n
}

// splitLines splits content into its lines, without their line endings,
// as sed and nl count them: a last line without one is a line.
func splitLines(content string) []string {
	if content == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(content, "\n"), "\n")
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

// applyPatch records what a successful apply_patch did to the files under
// dir whose content is known.
func (w *Workspace) applyPatch(patch, dir string) {
	ops, err := edit.ParsePatch(patch)
	if err != nil {
		w.Skipf("apply_patch: %v; the files it changed are not recorded", err)
		return
	}
	for _, op := range ops {
		abs := op.Path
		if !path.IsAbs(abs) {
			abs = path.Join(dir, abs)
		}
		name, ok := w.Rel(path.Clean(abs), "apply_patch of")
		if !ok {
			continue
		}
		switch op.Kind {
		case edit.PatchAdd:
			delete(w.stale, name)
			w.Wrote(name, op.Add)
		case edit.PatchDelete:
			w.Skipf("apply_patch deleted %s; a deleted file is not an output", name)
			w.Lose(name)
		case edit.PatchUpdate:
			base, known := w.current[name]
			if !known {
				w.Skipf("apply_patch of %s: the file's content before the patch is not known; its final content is not recorded", name)
				w.Lose(name)
				continue
			}
			out, err := edit.ApplyChunks(base, op.Chunks)
			if err != nil {
				w.Skipf("apply_patch of %s: %v; its final content is not recorded", name, err)
				w.Lose(name)
				continue
			}
			target := name
			if op.MoveTo != "" {
				mv := op.MoveTo
				if !path.IsAbs(mv) {
					mv = path.Join(dir, mv)
				}
				if target, ok = w.Rel(path.Clean(mv), "apply_patch move to"); !ok {
					continue
				}
				w.Lose(name)
			}
			delete(w.stale, target)
			w.Wrote(target, out)
		}
	}
}

func removeName(names []string, name string) []string {
	out := names[:0]
	for _, n := range names {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}
