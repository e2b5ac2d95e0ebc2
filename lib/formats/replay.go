package formats

import (
	"maps"

	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/replay"
)

// ReplayTools returns the agents' own tools that a replay renders as each
// agent renders their results (replay.Options.Agents): Claude Code's
// Read, Glob, Grep and LS; with codexShellReads also Codex's shell tools,
// which replay only plain reads and which ctx-replay uses only when asked
// (--codex-shell-reads). Adding an agent's renderings is adding them here.
func ReplayTools(codexShellReads bool) map[string]replay.Executor {
	tools := claudecode.ReplayTools()
	if codexShellReads {
		maps.Copy(tools, codex.ReplayTools())
	}
	return tools
}
