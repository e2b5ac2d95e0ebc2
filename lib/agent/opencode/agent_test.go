package opencode_test

import (
	"testing"

	"github.com/ctx-tools/ctx/internal/agenttest"
	"github.com/ctx-tools/ctx/lib/agent/opencode"
)

// TestAgent runs the pinned agent against every scenario.
func TestAgent(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, opencode.Driver{}, "testdata/scenarios", agenttest.Checks{})
}
