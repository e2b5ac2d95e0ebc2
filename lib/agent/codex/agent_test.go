package codex_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/internal/agenttest"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/store"
)

// TestAgent runs the pinned Codex against every scenario, and replays
// the pack each transcript imports to (replayTranscript).
func TestAgent(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, codex.Driver{}, "testdata/scenarios", agenttest.Checks{SystemPrompt: true, After: replayTranscript})
}

// replayTranscript replays the pack imported from Codex's transcript as
// ctx-replay --codex-shell-reads does, in a workspace of its inputs: every
// apply_patch, and every exec_command of a plain read of a file that
// succeeded, must match what Codex recorded. Then live, in a tree of the
// scenario's inputs (the tree Codex ran in), where edits are not applied:
// the reads of the tree (ls, rg) must match. No step may diverge or fail.
func replayTranscript(t *testing.T, s *store.Store, want, got *manifest.Manifest) {
	replayed(t, s, got, replay.Options{Agents: codex.ReplayTools(), Edits: codex.EditAnswerers()}, true, []string{"cat", "sed", "head", "nl"})
	dir := filepath.Join(t.TempDir(), "live")
	if _, _, err := replay.MaterialiseDir(s, want.Inputs, dir); err != nil {
		t.Fatal(err)
	}
	replayed(t, s, got, replay.Options{Agents: codex.ReplayTools(), Edits: codex.EditAnswerers(), Live: dir}, false, []string{"ls", "rg"})
}

func replayed(t *testing.T, s *store.Store, m *manifest.Manifest, opts replay.Options, patches bool, reads []string) {
	how := "hermetic"
	if opts.Live != "" {
		how = "live"
	}
	rep, err := replay.Run(context.Background(), s, m, opts)
	if err != nil {
		t.Fatalf("replaying the transcript's pack (%s): %v", how, err)
	}
	if rep.Fidelity != replay.Exact && rep.Fidelity != replay.Unverified {
		t.Errorf("the transcript's replay (%s): fidelity %s", how, rep.Fidelity)
	}
	for _, r := range rep.Steps {
		st := m.Steps[r.Index]
		if st.Type != manifest.ToolCall {
			continue
		}
		var must bool
		switch st.Tool {
		case "apply_patch":
			must = patches
		case "exec_command":
			cmd := strings.Fields(gjson.GetBytes(st.Parameters, "cmd").String())
			must = len(cmd) > 0 && slices.Contains(reads, cmd[0]) && st.Error == nil
		}
		if r.Status == replay.Diverged || r.Status == replay.Failed || must && r.Status != replay.Matched {
			t.Errorf("the transcript's replay (%s), step %d (%s): %s %s\n got %q\nwant %q", how, r.Index, st.Tool, r.Status, r.Reason, r.Actual, r.Expected)
		}
	}
}
