package importer

import (
	"bytes"
	"path"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/replay/render"
)

// codexWorkspace reads a Codex rollout's shell calls and apply_patch
// calls, in order: a plain `cat FILE` that succeeded shows the whole file
// (an input), and an apply_patch applied to files whose content is known
// gives their final content (outputs). Paths are relative to root, the
// session's working directory.
func codexWorkspace(data []byte, root string) *workspace {
	w := newWorkspace(root)
	type call struct {
		name, workdir string
		argv          []string
		script, patch string
	}
	calls := map[string]*call{}
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 || !gjson.ValidBytes(line) {
			continue
		}
		rec := gjson.ParseBytes(line)
		item := rec
		if rec.Get("type").String() == "response_item" {
			item = rec.Get("payload")
		}
		id := item.Get("call_id").String()
		switch item.Get("type").String() {
		case "function_call":
			c := &call{name: item.Get("name").String()}
			args := gjson.Parse(item.Get("arguments").String())
			c.workdir = args.Get("workdir").String()
			if c.name == "apply_patch" {
				c.patch = args.Get("input").String()
			}
			readCommand(args.Get("command"), &c.argv, &c.script)
			readCommand(args.Get("cmd"), &c.argv, &c.script)
			calls[id] = c
		case "custom_tool_call":
			c := &call{name: item.Get("name").String()}
			if c.name == "apply_patch" {
				c.patch = item.Get("input").String()
			}
			calls[id] = c
		case "local_shell_call":
			c := &call{name: "local_shell", workdir: item.Get("action.working_directory").String()}
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
	return w
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

func (w *workspace) codexResult(name, workdir string, argv []string, script, patch string, result []byte) {
	out, exit, short := render.CodexResult(result)
	failed := exit != "" && exit != "0"
	if patch == "" {
		patch, workdir = applyPatchOf(argv, script, workdir)
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
	if failed || short {
		return
	}
	words := argv
	if script != "" {
		if strings.ContainsAny(script, "|&;<>()$`\\\"'*?[]{}~\n") {
			return
		}
		words = strings.Fields(script)
	}
	if len(words) != 2 || words[0] != "cat" || strings.HasPrefix(words[1], "-") {
		return
	}
	file := words[1]
	if !path.IsAbs(file) {
		file = path.Join(dir, file)
	}
	if rel, ok := w.rel(path.Clean(file), "cat of"); ok {
		w.saw(rel, string(out))
	}
}

// applyPatchOf finds the patch of an apply_patch run as a command:
// ["apply_patch", PATCH], or a shell script "apply_patch <<'EOF' … EOF",
// optionally after "cd DIR && ".
func applyPatchOf(argv []string, script, workdir string) (string, string) {
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

// applyPatch records what a successful apply_patch did to the files under
// dir whose content is known.
func (w *workspace) applyPatch(patch, dir string) {
	ops, err := parsePatch(patch)
	if err != nil {
		w.skip("apply_patch: %v; the files it changed are not recorded", err)
		return
	}
	for _, op := range ops {
		abs := op.path
		if !path.IsAbs(abs) {
			abs = path.Join(dir, abs)
		}
		name, ok := w.rel(path.Clean(abs), "apply_patch of")
		if !ok {
			continue
		}
		switch op.kind {
		case "add":
			w.wrote(name, op.add)
		case "delete":
			w.skip("apply_patch deleted %s; a deleted file is not an output", name)
			delete(w.current, name)
			w.outputs = removeName(w.outputs, name)
		case "update":
			base, known := w.current[name]
			if !known {
				w.skip("apply_patch of %s: the file's content before the patch is not known; its final content is not recorded", name)
				continue
			}
			out, err := applyChunks(base, op.chunks)
			if err != nil {
				w.skip("apply_patch of %s: %v; its final content is not recorded", name, err)
				delete(w.current, name)
				continue
			}
			target := name
			if op.moveTo != "" {
				mv := op.moveTo
				if !path.IsAbs(mv) {
					mv = path.Join(dir, mv)
				}
				if target, ok = w.rel(path.Clean(mv), "apply_patch move to"); !ok {
					continue
				}
				delete(w.current, name)
				w.outputs = removeName(w.outputs, name)
			}
			w.wrote(target, out)
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
