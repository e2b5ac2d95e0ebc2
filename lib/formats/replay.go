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

// ReplayEdits returns the agents' renderings of their answers to the
// edits a replay applies (replay.Options.Edits): Claude Code's Write, Edit
// and MultiEdit, Codex's apply_patch (as a tool or a command). Adding an
// agent's is adding it here.
func ReplayEdits() map[string]replay.EditAnswerer {
	edits := claudecode.EditAnswerers()
	maps.Copy(edits, codex.EditAnswerers())
	return edits
}
