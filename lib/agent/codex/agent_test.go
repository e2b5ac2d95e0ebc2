package codex_test

import (
	"testing"

	"github.com/ctx-tools/ctx/internal/agenttest"
	"github.com/ctx-tools/ctx/lib/agent/codex"
)

// TestAgent runs the pinned Codex against every scenario.
func TestAgent(t *testing.T) {
	agenttest.Run(t, codex.Driver{}, "testdata/scenarios", agenttest.Checks{SystemPrompt: true})
}
