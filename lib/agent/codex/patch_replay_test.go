package codex

import (
	"runtime"
	"testing"

	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/replay/replaytest"
)

// A patch Codex recorded as failed, without marking the step an error,
// changes nothing.
func TestFailedPatchNotApplied(t *testing.T) {
	t.Parallel()
	s, m := replaytest.Pack(t, map[string]string{"a.txt": "one\n"}, []replaytest.Step{
		{Tool: "apply_patch", Params: `"*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch"`, Out: "Exit code: 1\nWall time: 0 seconds\nOutput:\napply_patch verification failed\n"},
		{Tool: "read_file", Params: `{"path":"a.txt"}`, Out: "one\n", Det: true},
	}, here)
	rep := replaytest.Replay(t, s, m, replay.Options{Edits: EditAnswerers()})
	if r := rep.Steps[0]; r.Status != replay.Skipped || r.Reason != "apply_patch: the recorded apply_patch did not succeed, so it changed nothing" || len(r.Changes) > 0 {
		t.Errorf("step 0: %+v", r)
	}
	if r := rep.Steps[1]; r.Status != replay.Matched {
		t.Errorf("step 1: %+v", r)
	}
}

var here = manifest.Environment{OS: runtime.GOOS, Runtime: runtime.Version()}
