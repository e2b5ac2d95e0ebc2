package claudecode_test

import (
	"testing"

	"github.com/ctx-tools/ctx/internal/agenttest"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
)

// TestAgent runs the pinned Claude Code against every scenario.
func TestAgent(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, claudecode.Driver{}, "testdata/scenarios", agenttest.Checks{SystemPrompt: true, Replayed: []string{"Write", "Edit"}})
}
