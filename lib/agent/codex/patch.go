package codex

import (
	"bytes"
	"strings"

	"github.com/ctx-tools/ctx/lib/edit"
	"github.com/ctx-tools/ctx/lib/replay"
)

// patchAnswerer renders Codex's answer to apply_patch, as a tool or run by
// a shell command (EditAnswerers).
type patchAnswerer struct{}

// EditAnswerers returns, for replay.Options.Edits, the renderer of Codex's
// answer to apply_patch, whether Codex ran it as a tool or a shell tool
// ran it as a command.
func EditAnswerers() map[string]replay.EditAnswerer {
	return map[string]replay.EditAnswerer{"apply_patch": patchAnswerer{}}
}

// Unchanged reports whether the recorded result says the patch failed:
// Codex does not always mark a failed apply_patch as an error, its result
// says so (as the importer reads it).
func (patchAnswerer) Unchanged(call *replay.Call) (string, error) {
	rec, err := call.RecordedOutput()
	if err != nil || rec == nil {
		return "", err
	}
	out, exit, _ := Result(rec)
	if exit != "" && exit != "0" || exit == "" && !bytes.Contains(out, []byte("Success.")) {
		return "the recorded apply_patch did not succeed, so it changed nothing", nil
	}
	return "", nil
}

// Answer renders apply_patch's summary of the patch a, in the frame of the
// recorded result. The paths are the patch's own, unless the recorded
// summary names files by absolute paths: then they are shown as the
// workspace shows them.
func (patchAnswerer) Answer(a *replay.AppliedEdit) ([]byte, error) {
	e, ws := a.Edit, a.Call.Workspace
	absolute := false
	for _, l := range strings.Split(string(Output(a.Recorded)), "\n") {
		if len(l) > 2 && strings.Contains("AMD", l[:1]) && l[1:3] == " /" {
			absolute = true
		}
	}
	shown := func(p string) string {
		if absolute {
			if name, ok := a.Name(e.At(p)); ok {
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
	out := PatchSummary(added, modified, deleted)
	if a.Recorded == nil {
		return out, nil
	}
	return Frame(a.Recorded, out)
}

// PatchSummary renders what apply_patch prints when it succeeded
// (openai/codex codex-rs/apply-patch print_summary): "Success. Updated
// the following files:" and a line per file, "A PATH" for each added,
// then "M PATH" for each updated (a moved file under its new name), then
// "D PATH" for each deleted, each line ending in "\n".
func PatchSummary(added, modified, deleted []string) []byte {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for _, g := range []struct {
		tag   string
		paths []string
	}{{"A ", added}, {"M ", modified}, {"D ", deleted}} {
		for _, p := range g.paths {
			b.WriteString(g.tag + p + "\n")
		}
	}
	return []byte(b.String())
}
