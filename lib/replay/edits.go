package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/edit"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay/render"
)

// EditVersion is the version of the replayed edits (package edit and the
// renderings of their answers), compared with recorded tool versions.
const EditVersion = "edits-2"

// FileChange is what a replayed edit did to one workspace file: Change
// is created, updated or deleted; Before and After are the digests of
// the file's content before and after (absent for a file that did not
// exist, or no longer does).
type FileChange struct {
	Name   string `json:"name"`
	Change string `json:"change"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`

	// The contents, for a page that shows the diff; nil when the file
	// did not exist, or was larger than maxDiffContent.
	BeforeText, AfterText []byte `json:"-"`
}

// Changes a FileChange reports.
const (
	Created = "created"
	Updated = "updated"
	Deleted = "deleted"
)

// maxDiffContent bounds the contents a FileChange keeps for a diff.
const maxDiffContent = 1 << 20

// divergence is a step whose effect is not the recorded one: an edit that
// does not apply to the workspace.
type divergence struct{ reason string }

func (d *divergence) Error() string { return d.reason }

// editor carries out the steps package edit reads, in the workspace, and
// renders the answer the agent gave.
type editor struct{}

// Version returns EditVersion.
func (editor) Version() string { return EditVersion }

// editorFor returns the editor when st is an edit ctx carries out itself
// and the user named no executor for its tool.
func editorFor(st *manifest.Step, user map[string]Executor) Executor {
	if _, ok := user[st.Tool]; ok || st.Type != manifest.ToolCall || !edit.Is(st.Tool) {
		return nil
	}
	e, err := edit.Parse(st.Tool, st.Parameters)
	if e == nil && err == nil {
		return nil // a shell command that is no apply_patch
	}
	return editor{}
}

// Run applies the edit to the workspace and writes the answer the agent
// would have given.
func (editor) Run(ctx context.Context, call *Call, out io.Writer) error {
	e, err := edit.Parse(call.Tool, call.Parameters)
	if err != nil {
		return err
	}
	ws := call.Workspace
	names := map[string]string{}
	for _, p := range e.Paths() {
		name, err := ws.editName(p)
		if err != nil {
			return fmt.Errorf("%s: %w", call.Tool, err)
		}
		names[p] = name
	}
	if !ws.Hermetic {
		// The tree holds what it holds now: a read of these files that
		// differs later says nothing.
		ws.forget(names, fmt.Sprintf("step %d changed it, and edits are not applied to a live tree", call.Index))
		return Skipf("%s: edits are not applied to a live tree; replay in a temporary workspace (without --live) to follow them", call.Tool)
	}
	if e.Patch() != nil {
		// Codex does not always mark a failed apply_patch as an error:
		// its result says so, as the importer reads it.
		rec, err := call.RecordedOutput()
		if err != nil {
			return err
		}
		if rec != nil {
			out, exit, _ := render.CodexResult(rec)
			if exit != "" && exit != "0" || exit == "" && !bytes.Contains(out, []byte("Success.")) {
				return Skipf("%s: the recorded apply_patch did not succeed, so it changed nothing", call.Tool)
			}
		}
	}
	var unknown *unknownContent
	changes, err := e.Apply(func(p string) (string, error) { return ws.current(names[p]) })
	var conflict *edit.Conflict
	switch {
	case errors.As(err, &unknown):
		ws.forget(names, fmt.Sprintf("step %d changed it, and %s", call.Index, unknown.reason))
		return Skipf("%s: %s", call.Tool, unknown.reason)
	case errors.As(err, &conflict):
		name := names[conflict.Path]
		if ws.absent[name] {
			ws.forget(names, fmt.Sprintf("step %d changed it, and its content before was not in the pack", call.Index))
			return Skipf("%s: %s is not among the pack's inputs", call.Tool, name)
		}
		ws.forget(names, fmt.Sprintf("step %d's edit of it did not apply", call.Index))
		return &divergence{reason: fmt.Sprintf("%s: %s: the workspace is not what the session had", call.Tool, strings.Replace(conflict.Error(), conflict.Path, name, 1))}
	case errors.Is(err, edit.ErrUnsupported):
		ws.forget(names, fmt.Sprintf("step %d changed it in a way replay does not reproduce", call.Index))
		return Skipf("%v", err)
	case err != nil:
		return err
	}
	for _, c := range changes {
		fc, err := ws.applyChange(names[c.Path], c, call.Index)
		if err != nil {
			return fmt.Errorf("%s: %w", call.Tool, err)
		}
		call.changes = append(call.changes, fc)
	}
	rec, err := call.RecordedOutput()
	if err != nil {
		return err
	}
	b, err := editAnswer(call, e, changes, names, rec)
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

// editAnswer renders the answer the agent gave to edit e, which made
// changes.
func editAnswer(call *Call, e *edit.Edit, changes []edit.Change, names map[string]string, rec []byte) ([]byte, error) {
	ws := call.Workspace
	switch call.Tool {
	case "Write", "Edit":
		rec, note := render.ClaudeCutFileStateNote(rec)
		out, err := claudeEditAnswer(call, e, changes, names, rec)
		if err != nil {
			return nil, err
		}
		return append(out, note...), nil
	case "MultiEdit":
		var olds, news []string
		for _, r := range e.Replacements() {
			olds, news = append(olds, r.Old), append(news, r.New)
		}
		return render.ClaudeCodeMultiEdit(spelled(ws.Shown(names[e.Path]), rec), olds, news, rec)
	case "write_file", "edit_file":
		return nil, Skipf("%s: its answer is the tool's own text, which is not rendered; the edit was applied", call.Tool)
	}
	// apply_patch, as a tool or a command.
	absolute := false
	for _, l := range strings.Split(string(render.CodexOutput(rec)), "\n") {
		if len(l) > 2 && strings.Contains("AMD", l[:1]) && l[1:3] == " /" {
			absolute = true
		}
	}
	shown := func(p string) string {
		if absolute {
			if name, ok := names[e.At(p)]; ok {
				return ws.Shown(name)
			}
		}
		return p
	}
	var added, modified, deleted []string
	for _, op := range e.Patch() {
		switch {
		case op.Kind == edit.PatchAdd:
			added = append(added, shown(op.Path))
		case op.Kind == edit.PatchDelete:
			deleted = append(deleted, shown(op.Path))
		case op.MoveTo != "":
			modified = append(modified, shown(op.MoveTo))
		default:
			modified = append(modified, shown(op.Path))
		}
	}
	out := render.CodexPatchSummary(added, modified, deleted)
	if rec == nil {
		return out, nil
	}
	return render.CodexFrame(rec, out)
}

// claudeEditAnswer renders Claude Code's answer to the Write or Edit e,
// in the form of rec (the recorded answer without the note on the file
// state, render.ClaudeCutFileStateNote).
func claudeEditAnswer(call *Call, e *edit.Edit, changes []edit.Change, names map[string]string, rec []byte) ([]byte, error) {
	ws := call.Workspace
	c := changes[0]
	shown := spelled(ws.Shown(names[c.Path]), rec)
	form := render.ClaudeEditFormOf(rec)
	numbering := render.ClaudeArrow
	if _, rest, ok := bytes.Cut(rec, []byte("\n")); ok {
		numbering = render.ClaudeNumberingOf(rest)
	}
	if call.Tool == "Edit" {
		r := e.Replacements()[0]
		return render.ClaudeCodeEdit(shown, c.Before, c.Content, r.Old, r.New, r.All, form, numbering)
	}
	if !c.Existed {
		switch {
		case form != render.ClaudeEditUnknown && ws.absent[names[c.Path]]:
			return nil, Skipf("Write: the session's answer says %s existed, and the pack does not hold it", names[c.Path])
		case rec != nil && form == render.ClaudeEditUnknown && !bytes.HasPrefix(rec, []byte(render.ClaudeCreatedPrefix)):
			return nil, Skipf("Write: the recorded answer is in none of the forms of Claude Code's Write that are rendered")
		}
		return render.ClaudeCodeWriteCreated(shown), nil
	}
	return render.ClaudeCodeWriteUpdated(shown, c.Content, form, numbering)
}

// unknownContent is a file whose content the replay does not know.
type unknownContent struct{ reason string }

func (u *unknownContent) Error() string { return u.reason }

// editName is the workspace name of a path an edit names: a path outside
// the recorded working directory (absolute elsewhere, through "..", or
// under "~") is an *outsideError.
func (w *Workspace) editName(p string) (string, error) {
	return Resolve(w.Local(p))
}

// current is what workspace file name holds now, for an edit: its
// content, edit.ErrNotExist, or an *unknownContent when the pack does not
// know it.
func (w *Workspace) current(name string) (string, error) {
	if why, ok := w.unknown[name]; ok {
		return "", &unknownContent{reason: name + " is not known: " + why}
	}
	if sf := w.SeenAs(name); sf != nil {
		what := "by name"
		if sf.seen == seenPartial {
			what = "in part"
		}
		return "", &unknownContent{reason: fmt.Sprintf("%s was seen only %s, so what it held is not known", name, what)}
	}
	b, err := ReadRegular(w.Root, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if w.absent == nil {
			w.absent = map[string]bool{}
		}
		w.absent[name] = true
		return "", edit.ErrNotExist
	case err != nil:
		return "", err
	}
	return string(b), nil
}

// forget records that the files an edit names hold what the replay does
// not know, and why.
func (w *Workspace) forget(names map[string]string, why string) {
	if w.unknown == nil {
		w.unknown = map[string]string{}
	}
	for _, name := range names {
		w.unknown[name] = why
		delete(w.written, name)
	}
}

// applyChange writes one change of an edit made by step index to file
// name. A file is replaced, never rewritten in place: inputs of the same
// content share one file. Written files get a modification time after
// every input's, in step order, as the session's own writes had.
func (w *Workspace) applyChange(name string, c edit.Change, index int) (FileChange, error) {
	fc := fileChange(name, c)
	if err := w.Root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fc, fmt.Errorf("removing %s: %w", name, UnwrapPath(err))
	}
	delete(w.seen, name)
	delete(w.unknown, name)
	if w.written == nil {
		w.written = map[string]bool{}
	}
	if c.Deleted {
		delete(w.written, name)
		return fc, nil
	}
	if dir := path.Dir(name); dir != "." {
		if err := w.Root.MkdirAll(dir, 0o755); err != nil {
			return fc, fmt.Errorf("creating %s: %w", dir, UnwrapPath(err))
		}
	}
	f, err := w.Root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fc, fmt.Errorf("writing %s: %w", name, UnwrapPath(err))
	}
	_, err = f.WriteString(c.Content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		t := fixedMTime.Add(time.Duration(index+1) * time.Second)
		err = w.Root.Chtimes(name, t, t)
	}
	if err != nil {
		return fc, fmt.Errorf("writing %s: %w", name, UnwrapPath(err))
	}
	w.written[name] = true
	return fc, nil
}

// fileChange reports change c of workspace file name.
func fileChange(name string, c edit.Change) FileChange {
	fc := FileChange{Name: name, Change: Updated}
	if c.Existed {
		fc.Before = digest.Of([]byte(c.Before)).String()
		if len(c.Before) <= maxDiffContent {
			fc.BeforeText = []byte(c.Before)
		}
	} else {
		fc.Change = Created
	}
	if c.Deleted {
		fc.Change = Deleted
		return fc
	}
	fc.After = digest.Of([]byte(c.Content)).String()
	if len(c.Content) <= maxDiffContent {
		fc.AfterText = []byte(c.Content)
	}
	return fc
}

// maxKnownInput bounds the input a pack page (EditChanges) loads to apply
// edits to.
const maxKnownInput = 8 << 20

// EditChanges returns, by step index, what each edit of m does to the
// files when carried out as a replay carries it out, from the pack's
// inputs, in memory: no workspace, nothing run, nothing rendered. It is
// what a page of the pack links each edit step to. An edit of a file
// whose content is not known (seen only by name or in part, larger than
// 8 MiB, changed by an edit that did not apply), outside the working
// directory, or that does not apply, has no changes.
func EditChanges(get func(digest.Digest) ([]byte, error), m *manifest.Manifest) map[int][]FileChange {
	ws := &Workspace{}
	ws.RecordedDir = recordedDir(m.Metadata)
	inputs := map[string]manifest.File{}
	for _, in := range m.Inputs {
		inputs[in.Name] = in
	}
	files := map[string]*string{} // nil: deleted
	unknown := map[string]bool{}
	read := func(name string) (string, error) {
		if c, ok := files[name]; ok {
			if c == nil {
				return "", edit.ErrNotExist
			}
			return *c, nil
		}
		in, ok := inputs[name]
		switch {
		case unknown[name]:
			return "", &unknownContent{reason: name + " is not known"}
		case !ok:
			return "", edit.ErrNotExist
		case in.Seen != manifest.SeenWhole || in.Size > maxKnownInput:
			return "", &unknownContent{reason: name + " is not known"}
		}
		b, err := get(in.ContentRef)
		if err != nil {
			return "", &unknownContent{reason: err.Error()}
		}
		return string(b), nil
	}
	out := map[int][]FileChange{}
	for i := range m.Steps {
		st := &m.Steps[i]
		if editorFor(st, nil) == nil || recordedError(st) {
			continue
		}
		e, err := edit.Parse(st.Tool, st.Parameters)
		if err != nil || e == nil {
			continue
		}
		names := map[string]string{}
		ok := true
		for _, p := range e.Paths() {
			name, err := ws.editName(p)
			if err != nil {
				ok = false
				break
			}
			names[p] = name
		}
		if !ok {
			continue
		}
		changes, err := e.Apply(func(p string) (string, error) { return read(names[p]) })
		if err != nil {
			for _, name := range names {
				unknown[name] = true
				delete(files, name)
			}
			continue
		}
		for _, c := range changes {
			name := names[c.Path]
			delete(unknown, name)
			if c.Deleted {
				files[name] = nil
			} else {
				content := c.Content
				files[name] = &content
			}
			out[st.Index] = append(out[st.Index], fileChange(name, c))
		}
	}
	return out
}
