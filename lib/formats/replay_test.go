package formats_test

import (
	"runtime"
	"testing"

	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/replay/replaytest"
)

// Steps left out by Options.Steps still change the files, so that the
// selected ones see them as the session did.
func TestStepsLeftOutStillEdit(t *testing.T) {
	t.Parallel()
	s, m := replaytest.Pack(t, nil, []replaytest.Step{
		{Tool: "Write", Params: `{"file_path":"a.txt","content":"one\n"}`, Out: "File created successfully at: a.txt"},
		{Tool: "apply_patch", Params: `"*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch"`, Out: "Exit code: 1\nWall time: 0 seconds\nOutput:\nerror: rejected\n"},
		{Tool: "Edit", Params: `{"file_path":"a.txt","old_string":"one","new_string":"three"}`, Out: "The file a.txt has been updated successfully."},
		{Tool: "read_file", Params: `{"path":"a.txt"}`, Out: "three\n", Det: true},
	}, here)
	rep := replaytest.Replay(t, s, m, replay.Options{Steps: []replay.Range{{From: 3, To: 3}}, Edits: formats.ReplayEdits()})
	if len(rep.Steps) != 1 || rep.Steps[0].Status != replay.Matched {
		t.Errorf("steps: %+v", rep.Steps)
	}
	until := 0
	rep = replaytest.Replay(t, s, m, replay.Options{Until: &until, Edits: formats.ReplayEdits()})
	if len(rep.Steps) != 1 || rep.Outputs != nil {
		t.Errorf("--until 0: %+v, outputs %+v", rep.Steps, rep.Outputs)
	}
}

var here = manifest.Environment{OS: runtime.GOOS, Runtime: runtime.Version()}
