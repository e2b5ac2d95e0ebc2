package codex

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

	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/replay/render"
	"github.com/go-json-experiment/json/jsontext"
)

// Codex's shell tools (shell, shell_command, exec_command, local_shell),
// replayed (ReplayTools; ctx-replay --codex-shell-reads): the plain
// read-only commands cat FILE…, sed -n 'A,Bp' FILE, head [-n N] FILE,
// nl -ba FILE, nl -ba FILE | sed -n 'A,Bp' (or | head -n N; the one
// pipeline replayed), ls [-1] [-A] [DIR] and rg [-n] [-i] [-F] PATTERN
// [PATH…] or rg --files [PATH…] are replayed by reading the workspace as
// GNU coreutils and ripgrep (output not a terminal: no line numbers unless
// -n, hidden and binary files left out) would print it; no shell ever
// runs. The command is taken from the step's argv (bash -lc SCRIPT is
// split as a shell splits simple words); a pipe, redirection, expansion,
// another program or option skips the step with the reason. Codex records
// a command's output inside a frame (JSON with exit_code and duration, or
// an "Exit code … Output:" header) that says nothing about the files: the
// reproduced output is put back into the recorded frame
// (Frame), so only the output is compared; a recorded non-zero
// exit or a shortened output skips the step. A sed, head or nl of a file
// the pack holds in part (Codex's reads of part of a file, imported)
// prints its known lines, each ending in a line break, when every line it
// prints is known; otherwise it skips, naming the first missing line, and
// so does one that would print the file's last line (total_lines) as it
// is, since a partial input does not record whether that line ends in a
// line break (nl always ends it); cat of such a file skips. ls and rg in a
// hermetic workspace skip (the pack holds the files the session saw, not
// the directory), and names or lines in another order than recorded (ls
// sorts by the locale's collation, ripgrep searches in parallel) skip too.

// ReplayVersion is the version of the Codex shell-read renderings.
const ReplayVersion = "codex-shell-reads-1"

// ReplayTools returns, for replay.Options.Agents, executors for Codex's shell tools (shell,
// shell_command, exec_command, local_shell) that replay only plain
// read-only commands — cat, sed -n 'A,Bp', head -n N, nl -ba, ls, rg — by
// reading the workspace as those commands would, never by running a shell.
// Anything else (pipes, redirections, expansions, other programs or
// options) is skipped with the reason. ctx-replay uses them only when
// asked (--codex-shell-reads).
func ReplayTools() map[string]replay.Executor {
	out := map[string]replay.Executor{}
	for _, name := range []string{"shell", "shell_command", "exec_command", "local_shell"} {
		out[name] = &codexShell{name: name}
	}
	return out
}

type codexShell struct{ name string }

// Version returns ReplayVersion.
func (c *codexShell) Version() string { return ReplayVersion }

// Run renders the step's command if it is a plain read.
func (c *codexShell) Run(ctx context.Context, call *replay.Call, out io.Writer) error {
	p, err := replay.ParseParams(c.name, call.Parameters)
	if err != nil {
		return err
	}
	stages, dir, err := codexCommand(c.name, p)
	if err != nil {
		return err
	}
	b, err := replayRead(call, dir, stages)
	if err != nil {
		return err
	}
	n := 0 // names whose order the locale decides
	if stages[0][0] == "ls" {
		n = bytes.Count(b, []byte("\n"))
	}
	if rec, err := call.RecordedOutput(); err != nil {
		return err
	} else if rec != nil {
		if got := Output(rec); n > 1 && !bytes.Equal(got, b) && replay.SameLines(got, b) {
			return replay.Skipf("%s: the same %d names in another order: ls sorts by the locale's collation, which the pack does not record", stages[0][0], n)
		}
		if b, err = Frame(rec, b); err != nil {
			return err
		}
	}
	_, err = out.Write(b)
	return err
}

// codexCommand reads the command and working directory of a shell call:
// one simple command, or the stages of a pipeline that is a plain read.
// Every other parameter (timeouts, justification, sandbox settings) does
// not change what a read prints and is ignored.
func codexCommand(tool string, p *replay.Params) ([][]string, string, error) {
	var argv []string
	var script string
	for _, k := range []string{"command", "cmd"} {
		var v jsontext.Value
		if ok, err := p.Get(k, &v, "JSON"); err != nil || !ok {
			if err != nil {
				return nil, "", err
			}
			continue
		}
		switch v.Kind() {
		case '[':
			if _, err := p.Get(k, &argv, "an array of strings"); err != nil {
				return nil, "", err
			}
		case '"':
			if _, err := p.Get(k, &script, "a string"); err != nil {
				return nil, "", err
			}
		default:
			return nil, "", fmt.Errorf("%s: parameter %s: want a string or an array of strings", tool, k)
		}
	}
	dir := "."
	for _, k := range []string{"workdir", "working_directory", "cwd"} {
		if s, ok, err := p.Str(k); err != nil {
			return nil, "", err
		} else if ok && s != "" {
			d, err := replay.Resolve(s)
			if err != nil {
				return nil, "", replay.Skipf("%s: working directory: %v", tool, err)
			}
			dir = d
		}
	}
	if len(argv) >= 3 && isShell(argv[0]) && (argv[1] == "-c" || argv[1] == "-lc") {
		script, argv = argv[2], nil
	}
	stages := [][]string{argv}
	if script != "" {
		if strings.ContainsAny(script, "*?[]{}~") {
			return nil, "", replay.Skipf("%s: %q holds characters a shell would expand; only plain commands are replayed", tool, script)
		}
		words, err := render.Split(script)
		if err != nil {
			// A pipeline only when it is a plain read (nl -ba FILE | sed -n 'A,Bp').
			pipeline, perr := render.SplitPipeline(script)
			if perr != nil || len(pipeline) < 2 {
				return nil, "", replay.Skipf("%s: not a plain command: %v", tool, err)
			}
			if r, rerr := ParseRead(pipeline); r == nil || rerr != nil {
				return nil, "", replay.Skipf("%s: not a plain command: %v", tool, err)
			}
			return pipeline, dir, nil
		}
		stages = [][]string{words}
	}
	if len(stages[0]) == 0 {
		return nil, "", fmt.Errorf("%s: no command parameter", tool)
	}
	return stages, dir, nil
}

func isShell(prog string) bool {
	switch path.Base(prog) {
	case "bash", "sh", "zsh", "dash":
		return true
	}
	return false
}

// replayRead prints what a read-only command (one simple command, or the
// stages of a pipeline ParseRead reads) prints when run in dir.
func replayRead(call *replay.Call, dir string, stages [][]string) ([]byte, error) {
	ws := call.Workspace
	argv := stages[0]
	prog, args := argv[0], argv[1:]
	where := func(name string) (string, error) {
		name = ws.Local(name)
		full, err := replay.Resolve(path.Join(dir, name))
		if err == nil && path.IsAbs(name) {
			_, err = replay.Resolve(name) // absolute: outside the recorded working directory
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", prog, err)
		}
		return full, nil
	}
	file := func(full string) ([]byte, error) {
		b, err := replay.ReadRegular(ws.Root, full)
		switch {
		case err != nil && ws.Hermetic:
			return nil, replay.Skipf("%s: %s is not among the pack's inputs", prog, full)
		case err != nil:
			return nil, fmt.Errorf("%s: %w", prog, err)
		}
		return b, nil
	}
	plain := func(what string) error {
		return replay.Skipf("%s: %s is not replayed; only plain reads are", prog, what)
	}
	r, err := ParseRead(stages)
	var nr *NotARead
	switch {
	case errors.As(err, &nr):
		return nil, plain(nr.What)
	case err != nil:
		return nil, err
	case r != nil:
		var out []byte
		for _, a := range r.Files {
			full, err := where(a)
			if err != nil {
				return nil, err
			}
			if sf := ws.SeenAs(full); sf != nil {
				b, err := printSeen(sf, full, r)
				if err != nil {
					return nil, err
				}
				out = append(out, b...)
				continue
			}
			b, err := file(full)
			if err != nil {
				return nil, err
			}
			out = append(out, r.Print(b)...)
		}
		return out, nil
	}
	switch prog {
	case "ls":
		all := false
		var dirs []string
		for _, a := range args {
			switch a {
			case "-1":
			case "-A":
				all = true
			default:
				if strings.HasPrefix(a, "-") {
					return nil, plain("option " + a)
				}
				dirs = append(dirs, a)
			}
		}
		if len(dirs) > 1 {
			return nil, plain("ls of several directories")
		}
		target := dir
		if len(dirs) == 1 {
			d, err := replay.Resolve(path.Join(dir, ws.Local(dirs[0])))
			if err != nil {
				return nil, fmt.Errorf("ls: %w", err)
			}
			target = d
		}
		if ws.Hermetic {
			return nil, replay.Skipf("ls: a workspace made of the pack's inputs holds the files the session saw, not the directory %s", target)
		}
		entries, err := fs.ReadDir(ws.Root.FS(), target)
		if err != nil {
			return nil, fmt.Errorf("ls: %s: %w", target, replay.UnwrapPath(err))
		}
		var names []string
		for _, e := range entries {
			if all || !strings.HasPrefix(e.Name(), ".") {
				names = append(names, e.Name())
			}
		}
		slices.Sort(names)
		return Lines(names), nil
	case "rg":
		return codexRg(call, dir, args)
	}
	return nil, replay.Skipf("%s is not one of the read-only commands replayed (cat, sed -n, head, nl -ba, ls, rg)", prog)
}

// codexRg prints what `rg [-n] [-i] [-F] PATTERN [PATH…]` or
// `rg --files [PATH…]` prints when its output is not a terminal: matching
// lines as "PATH:LINE" ("PATH:N:LINE" with -n; no PATH for a single file
// named), or the files; hidden files and binary files left out, no line
// numbers unless asked. Files are taken in walk order; ripgrep searches in
// parallel, so a recorded output holding the same lines in another order
// skips the step rather than diverging.
func codexRg(call *replay.Call, dir string, args []string) ([]byte, error) {
	ws := call.Workspace
	numbers, icase, fixed, files := false, false, false, false
	var operands []string
	for i, a := range args {
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
		case a == "-n" || a == "--line-number":
			numbers = true
		case a == "-i" || a == "--ignore-case":
			icase = true
		case a == "-F" || a == "--fixed-strings":
			fixed = true
		case a == "--files":
			files = true
		case strings.HasPrefix(a, "-"):
			return nil, replay.Skipf("rg: option %s is not replayed; only plain reads are", a)
		default:
			operands = append(operands, a)
			continue
		}
		if a == "--" {
			break
		}
	}
	var pattern string
	if !files {
		if len(operands) == 0 {
			return nil, replay.Skipf("rg: no pattern")
		}
		pattern, operands = operands[0], operands[1:]
	}
	if fixed {
		pattern = regexp.QuoteMeta(pattern)
	}
	if icase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, replay.Skipf("rg: pattern %q is not a regular expression Go reads as ripgrep does: %v", pattern, err)
	}
	if ws.Hermetic {
		return nil, replay.Skipf("rg: a workspace made of the pack's inputs holds the files the session saw, not the tree rg searched")
	}
	type target struct{ shown, name string }
	var targets []target
	if len(operands) == 0 {
		operands = []string{""}
	}
	single := len(operands) == 1
	for _, op := range operands {
		name := "."
		if op != "" {
			n, err := replay.Resolve(path.Join(dir, ws.Local(op)))
			if err != nil {
				return nil, fmt.Errorf("rg: %w", err)
			}
			name = n
		} else if dir != "." {
			name = dir
		}
		fi, err := ws.Root.Stat(name)
		if err != nil {
			return nil, fmt.Errorf("rg: %s: %w", name, replay.UnwrapPath(err))
		}
		if !fi.IsDir() {
			targets = append(targets, target{op, name})
			continue
		}
		single = false
		if found, err := ws.IgnoreFile(context.Background(), name); err != nil || found != "" {
			return nil, replay.Skipf("rg: ripgrep would apply the ignore rules of the tree, which are not rendered")
		}
		err = replay.Walk(context.Background(), ws.Root, name, func(rel string, d fs.DirEntry) error {
			if strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				shown := rel
				if op != "" {
					shown = strings.TrimSuffix(op, "/") + "/" + rel
				}
				targets = append(targets, target{shown, path.Join(name, rel)})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("rg: %w", err)
		}
	}
	var lines []string
	for _, t := range targets {
		data, err := replay.ReadRegular(ws.Root, t.name)
		if err != nil {
			return nil, fmt.Errorf("rg: %w", err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			if single {
				return nil, replay.Skipf("rg: %s is binary; ripgrep's notice for it is not rendered", t.shown)
			}
			continue
		}
		if files {
			lines = append(lines, t.shown)
			continue
		}
		for i, l := range replay.SplitLines(data) {
			if !re.Match(l) {
				continue
			}
			var b strings.Builder
			if !single {
				b.WriteString(t.shown + ":")
			}
			if numbers {
				b.WriteString(strconv.Itoa(i+1) + ":")
			}
			b.Write(l)
			lines = append(lines, b.String())
		}
	}
	out := Lines(lines)
	rec, err := call.RecordedOutput()
	if err != nil {
		return nil, err
	}
	if got := Output(rec); rec != nil && len(lines) > 1 && !bytes.Equal(got, out) && replay.SameLines(got, out) {
		return nil, replay.Skipf("rg: the same %d lines in another order: ripgrep searches files in parallel", len(lines))
	}
	return out, nil
}

// printSeen prints what r prints of a file the session saw in part, when
// the lines it prints are all known and end in a line break: a partial
// input holds lines, not whether the file's last line has one.
func printSeen(sf *replay.SeenFile, name string, r *Read) ([]byte, error) {
	if !sf.Partial() {
		return nil, replay.Skipf("%s: %s was seen only by name; its content is not in the pack", r.Prog, name)
	}
	if r.Prog == "cat" {
		return nil, replay.Skipf("%s: %s was seen only in part", r.Prog, name)
	}
	end := r.To
	if sf.Total() > 0 && end > sf.Total() {
		end = sf.Total()
	}
	if end == ToEnd {
		return nil, replay.Skipf("%s: %s was seen only in part, and its length is not known", r.Prog, name)
	}
	var lines []string
	for n := r.From; n <= end; n++ {
		l, ok := sf.Line(n)
		if !ok {
			return nil, replay.Skipf("%s: %s was seen only in part; line %d is not in the pack", r.Prog, name, n)
		}
		lines = append(lines, l)
	}
	if len(lines) > 0 && end == sf.Total() && !r.Numbered {
		return nil, replay.Skipf("%s: %s was seen only in part; whether its last line ends in a line break is not in the pack", r.Prog, name)
	}
	return r.PrintLines(lines), nil
}
