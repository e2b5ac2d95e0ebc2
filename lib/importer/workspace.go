package importer

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ctx-tools/ctx/lib/edit"
	"github.com/ctx-tools/ctx/lib/execlog"
)

// Workspace is what a session's file tools tell about the files it worked
// on: the files it saw whole before changing them (the pack's inputs) and
// the final content of the files it wrote (outputs). Names are relative
// to the recorded working directory; contents are verbatim.
type Workspace struct {
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

// NewWorkspace returns the workspace of a session whose working
// directory is root ("" when none is recorded).
func NewWorkspace(root string) *Workspace {
	return &Workspace{root: root, inputAt: map[string]int{}, current: map[string]string{}, written: map[string]bool{}, stale: map[string]bool{}}
}

// Root returns the session's working directory, "" when none is recorded.
func (w *Workspace) Root() string { return w.root }

// Rel makes an absolute path relative to the working directory, in the
// directory's path syntax (pathUnder), with "/" between its names; ok is
// false for a path outside it, which is noted as skipped.
func (w *Workspace) Rel(abs, what string) (string, bool) {
	if w.root == "" {
		w.Skipf("%s %s: the session records no working directory", what, abs)
		return "", false
	}
	name, ok := w.RelQuiet(abs)
	if !ok {
		w.Skipf("%s %s: not a file under the working directory", what, abs)
	}
	return name, ok
}

// RelQuiet is rel for paths a listing printed: one outside the working
// directory is left out without a note (the listing itself is a step).
func (w *Workspace) RelQuiet(abs string) (string, bool) {
	if w.root == "" {
		return "", false
	}
	name, ok := pathUnder(abs, w.root)
	if !ok || name == "." || name == "" || path.Clean(name) != name || strings.HasPrefix(name, "../") || strings.ContainsAny(name, "\\\x00") {
		return "", false
	}
	return name, true
}

// LSTree reads the files of Claude Code's LS tree ("- /dir/", then
// "  - name" lines two spaces deeper per level, directories ending in
// "/") as absolute paths.
func LSTree(text string) []string {
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

// Skipf notes what could not be recorded, and why.
func (w *Workspace) Skipf(format string, a ...any) {
	w.skipped = append(w.skipped, fmt.Sprintf(format, a...))
}

// saw records that the session observed the whole of name holding
// content: an input, unless the session wrote the file first. A file seen
// before only in part or by name is now known whole.
func (w *Workspace) saw(name, content string) {
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

// SawLines records lines of name from start on (1-based), of a file of
// total lines (0 if unknown), unless the file is known whole or written.
func (w *Workspace) SawLines(name string, start int, lines []string, total int) {
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

// SawName records that a listing showed name.
func (w *Workspace) SawName(name string) {
	if _, ok := w.inputAt[name]; ok || w.written[name] {
		return
	}
	if _, ok := w.current[name]; ok {
		return
	}
	w.inputAt[name] = len(w.inputs)
	w.inputs = append(w.inputs, wsFile{name: name, seen: seenName})
}

// Observed records that name holds content now, as a whole Read or the
// originalFile of a write shows it: the file may have changed since the
// session last wrote it (a formatter run by a hook, a shell command, the
// user), and what comes next applies to what it holds.
func (w *Workspace) Observed(name, content string) {
	w.saw(name, content)
	w.current[name] = content
}

// Wrote records name's new content.
func (w *Workspace) Wrote(name, content string) {
	if _, ok := w.current[name]; !ok {
		w.written[name] = true
	}
	if !w.isOutput(name) {
		w.outputs = append(w.outputs, name)
	}
	w.current[name] = content
}

// Lose forgets what name holds: the session changed it in a way that is
// not known. An output of that name is no longer one (its final content
// is not known), and later Codex reads of it are no input.
func (w *Workspace) Lose(name string) {
	delete(w.current, name)
	w.outputs = removeName(w.outputs, name)
	w.stale[name] = true
}

// Holds returns what the session knows name holds now, if it knows.
func (w *Workspace) Holds(name string) (content string, ok bool) {
	content, ok = w.current[name]
	return content, ok
}

func (w *Workspace) isOutput(name string) bool {
	for _, o := range w.outputs {
		if o == name {
			return true
		}
	}
	return false
}

// Files returns what w records, as the log holds it: the files the
// session saw (inputs), the final content of the files it wrote, in order
// of first write (outputs), and what could not be recorded, and why.
func (w *Workspace) Files() (inputs []execlog.File, outputs []execlog.Output, skipped []string) {
	for _, name := range w.outputs {
		outputs = append(outputs, execlog.Output{Name: name, Content: execlog.Text(w.current[name])})
	}
	for _, in := range w.inputs {
		switch in.seen {
		case "":
			inputs = append(inputs, execlog.File{Name: in.name, Content: execlog.Text(in.content)})
		case seenName:
			inputs = append(inputs, execlog.File{Name: in.name, Seen: seenName})
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
			inputs = append(inputs, execlog.File{Name: in.name, Content: execlog.Text(b.String()), Seen: seenPartial, Lines: ranges, TotalLines: total})
		}
	}
	return inputs, outputs, w.skipped
}

// addWorkspace adds w's inputs and outputs to the imported log: file
// contents are kept byte for byte. Outputs already in the log (final.md)
// come first; a written file of the same name replaces it, with a warning.
func (b *Builder) addWorkspace(l *execlog.Log, w *Workspace) {
	inputs, written, skipped := w.Files()
	for _, s := range skipped {
		b.Warn("%s", s)
	}
	if len(inputs) == 0 && len(written) == 0 {
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
	l.Outputs = append(outputs, written...)
	l.Inputs = append(l.Inputs, inputs...)
}

// ShowedWhole records that a command (a plain read, a deleting patch's
// record) showed the whole of name holding content. A file the session
// changed in a way the transcript does not show is known again, but is
// no input; nor is content that contradicts the lines seen before (the
// file changed in between).
func (w *Workspace) ShowedWhole(name, content string) {
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

// ShowedLines records lines of name from line from on, of a file of
// total lines (0 if unknown) whose last line ends in ending ("\n", "none",
// or "" if not shown), shown by command. Once every line is known, and how
// the last one ends, the file is known whole. Lines that contradict what
// is known of the file (its content, the lines seen before) mean it
// changed in a way the transcript does not show: what it holds is then no
// longer known.
func (w *Workspace) ShowedLines(name string, from int, lines []string, total int, ending, command string) {
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

// ApplyPatch records what a successful apply_patch (edit.ParsePatch's
// form) did to the files under dir whose content is known.
func (w *Workspace) ApplyPatch(patch, dir string) {
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
