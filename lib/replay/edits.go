package replay

import (
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

// EditAnswerer renders an agent's answer to one of its file-editing
// tools (Options.Edits): the replay applies the edit, and compares what
// the answerer renders with the recorded answer. It is given by the
// agent's package (lib/formats gathers them).
type EditAnswerer interface {
	// Unchanged reports, before the edit is applied, whether the answer
	// the session got to call says that the edit changed nothing (a
	// patch that did not apply, without the step marked as failed), and
	// why: the edit is then not applied, and the step is skipped with the
	// reason. It reads the recorded answer only when it needs it
	// (call.RecordedOutput).
	Unchanged(call *Call) (why string, err error)
	// Answer renders the answer the agent gave to an edit the replay
	// applied; a *render.Unsupported error (Skipf) skips the step.
	Answer(e *AppliedEdit) ([]byte, error)
}

// AppliedEdit is an edit a replay applied to the workspace, for its
// EditAnswerer.
type AppliedEdit struct {
	// Call is the step.
	Call *Call
	// Edit is the step's edit, as package edit reads it.
	Edit *edit.Edit
	// Changes are what it did to the files, in the order Edit.Apply gave
	// them.
	Changes []edit.Change
	// Recorded is the answer the session got (nil when none was
	// recorded).
	Recorded []byte

	names map[string]string // the edit's paths → workspace names
}

// Name returns the workspace name of path p, as the edit names it, and
// whether the edit names it.
func (a *AppliedEdit) Name(p string) (string, bool) {
	name, ok := a.names[p]
	return name, ok
}

// Shown returns path p, as the edit names it, as the workspace shows it
// (Workspace.Shown): under the recorded working directory.
func (a *AppliedEdit) Shown(p string) string { return a.Call.Workspace.Shown(a.names[p]) }

// Absent reports whether the file at path p, as the edit names it, was
// not in the workspace when the edit was applied: the pack does not hold
// it.
func (a *AppliedEdit) Absent(p string) bool { return a.Call.Workspace.absent[a.names[p]] }

// editor carries out the steps package edit reads, in the workspace, and
// renders the answer the agent gave with answer (nil: the answer is not
// rendered).
type editor struct{ answer EditAnswerer }

// Version returns EditVersion.
func (editor) Version() string { return EditVersion }

// editorFor returns the editor when st is an edit ctx carries out itself
// and the user named no executor for its tool, with the answerer of
// edits for its tool: a patch is answered as apply_patch answers it,
// whichever tool ran it (a shell command).
func editorFor(st *manifest.Step, user map[string]Executor, edits map[string]EditAnswerer) Executor {
	if _, ok := user[st.Tool]; ok || st.Type != manifest.ToolCall || !edit.Is(st.Tool) {
		return nil
	}
	e, err := edit.Parse(st.Tool, st.Parameters)
	if e == nil && err == nil {
		return nil // a shell command that is no apply_patch
	}
	key := st.Tool
	if e != nil && e.Patch() != nil {
		key = patchTool
	}
	return editor{answer: edits[key]}
}

// patchTool is the name under which Options.Edits answers a patch.
const patchTool = "apply_patch"

// Run applies the edit to the workspace and writes the answer the agent
// would have given.
func (ed editor) Run(ctx context.Context, call *Call, out io.Writer) error {
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
	if ed.answer != nil {
		why, err := ed.answer.Unchanged(call)
		if err != nil {
			return err
		}
		if why != "" {
			return Skipf("%s: %s", call.Tool, why)
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
	if ed.answer == nil {
		return Skipf("%s: its answer is the tool's own text, which is not rendered; the edit was applied", call.Tool)
	}
	b, err := ed.answer.Answer(&AppliedEdit{Call: call, Edit: e, Changes: changes, Recorded: rec, names: names})
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
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
		if editorFor(st, nil, nil) == nil || recordedError(st) {
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
