package serve

import (
	"net/http"
	"strings"

	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/agent/gemini"
	"github.com/ctx-tools/ctx/lib/agent/opencode"
)

// Agents are the agents whose harness text serving knows, each told by
// its requests' User-Agent, else by the API it speaks.
var Agents = []struct {
	UserAgent string // a prefix of the User-Agent header
	API       string
	Agent     *Agent
}{
	{"claude-cli/", "anthropic", &Agent{Name: "claude-code",
		Harness: func(t string) bool { k, _ := claudecode.HarnessText(t); return k != "" },
		Clean:   claudecode.Clean, Side: claudecode.Side, Summary: claudecode.CompactSummary}},
	{"codex", "openai-responses", &Agent{Name: "codex",
		Harness: func(t string) bool { k, _ := codex.Context(t); return k != "" },
		Clean:   codex.Clean}},
	{"GeminiCLI", "gemini", &Agent{Name: "gemini", Harness: gemini.Harness, Clean: gemini.Clean}},
	{"opencode", "openai-chat", &Agent{Name: "opencode", Side: func(system, _ string) string { return opencode.Side(system) }, Clean: opencode.Clean}},
}

// agentOf tells which agent sent r.
func agentOf(r *http.Request, w Wire) *Agent {
	ua := r.Header.Get("User-Agent")
	for _, a := range Agents {
		if strings.HasPrefix(ua, a.UserAgent) {
			return a.Agent
		}
	}
	for _, a := range Agents {
		if a.API == w.Name() {
			return a.Agent
		}
	}
	return nil
}
