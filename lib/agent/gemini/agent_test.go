package gemini_test

import (
	"testing"

	"github.com/ctx-tools/ctx/internal/agenttest"
	"github.com/ctx-tools/ctx/lib/agent/gemini"
)

// TestAgent runs the pinned agent against every scenario.
func TestAgent(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, gemini.Driver{}, "testdata/scenarios", agenttest.Checks{})
}
