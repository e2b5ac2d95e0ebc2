package codex_test

import (
	"context"
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
	agenttest.Run(t, codex.Driver{}, "testdata/scenarios", agenttest.Checks{SystemPrompt: true, Replayed: replayTranscript})
}

// plainReads are the programs whose plain reads ctx-replay
// --codex-shell-reads replays.
var plainReads = []string{"cat", "sed", "head", "nl", "ls", "rg"}

// replayTranscript replays the pack imported from Codex's transcript as
// ctx-replay --codex-shell-reads does: every apply_patch, and every
// exec_command of a plain read that succeeded, must match what Codex
// recorded, and no step may diverge or fail.
func replayTranscript(t *testing.T, s *store.Store, m *manifest.Manifest) {
	rep, err := replay.Run(context.Background(), s, m, replay.Options{CodexShellReads: true})
	if err != nil {
		t.Fatalf("replaying the transcript's pack: %v", err)
	}
	if rep.Fidelity != replay.Exact && rep.Fidelity != replay.Unverified {
		t.Errorf("the transcript's replay: fidelity %s", rep.Fidelity)
	}
	for _, r := range rep.Steps {
		st := m.Steps[r.Index]
		if st.Type != manifest.ToolCall {
			continue
		}
		var must bool
		switch st.Tool {
		case "apply_patch":
			must = true
		case "exec_command":
			cmd := strings.Fields(gjson.GetBytes(st.Parameters, "cmd").String())
			must = len(cmd) > 0 && slices.Contains(plainReads, cmd[0]) && st.Error == nil
		}
		if r.Status == replay.Diverged || r.Status == replay.Failed || must && r.Status != replay.Matched {
			t.Errorf("the transcript's replay, step %d (%s): %s %s\n got %q\nwant %q", r.Index, st.Tool, r.Status, r.Reason, r.Actual, r.Expected)
		}
	}
}
