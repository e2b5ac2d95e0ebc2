package serve

import "testing"

// TestAgentsClean: each agent's run-to-run text reads the same whatever
// run wrote it, as the agent's package says.
func TestAgentsClean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ agent, a, b string }{
		{"gemini", "Output: x\nProcess Group PGID: 101", "Output: x\nProcess Group PGID: 202"},
		{"opencode", "...output truncated...\n\nFull output saved to: /h1/.local/share/opencode/tool-output/tool_abc\n\n9",
			"...output truncated...\n\nFull output saved to: /h2/.local/share/opencode/tool-output/tool_xyz\n\n9"},
	} {
		var a *Agent
		for _, e := range Agents {
			if e.Agent.Name == tc.agent {
				a = e.Agent
			}
		}
		if a == nil || a.Clean == nil {
			t.Errorf("%s: no Clean rule", tc.agent)
			continue
		}
		if a.Clean(tc.a) != a.Clean(tc.b) {
			t.Errorf("%s: %q and %q read differently", tc.agent, a.Clean(tc.a), a.Clean(tc.b))
		}
	}
}
