// Package codex holds what ctx knows of the Codex CLI: its rollouts'
// format (Format, which imports them into execution logs), the context
// items its harness writes into a conversation, the way it is run against
// a model endpoint (Driver), and the API it speaks.
package codex

import (
	"regexp"
	"strings"
)

// codexFragments are the markers of Codex's context items and their kinds.
var codexFragments = []struct{ start, end, kind string }{
	{"# AGENTS.md instructions for ", "</INSTRUCTIONS>", "agents-md"},
	{"<user_instructions>", "</user_instructions>", "user-instructions"}, // AGENTS.md, before 0.4x
	{"<environment_context>", "</environment_context>", "environment-context"},
	{"<permissions instructions>", "</permissions instructions>", "permissions"},
	{"<collaboration_mode>", "</collaboration_mode>", "collaboration-mode"},
	{"<personality_spec>", "</personality_spec>", "personality"},
	{"<model_switch>", "</model_switch>", "model-switch"},
	{"<skill>", "</skill>", "skill"},
	{"<user_shell_command>", "</user_shell_command>", "shell-command"},
	{"<turn_aborted>", "</turn_aborted>", "interrupt"},
	{"<subagent_notification>", "</subagent_notification>", "subagent-notification"},
	// The developer items 0.16x builds from its world state.
	{"<skills_instructions>", "</skills_instructions>", "skills"},
	{"<tools>", "</tools>", "tools"},
	{"<apps_instructions>", "</apps_instructions>", "apps"},
	{"<plugins_instructions>", "</plugins_instructions>", "plugins"},
	{"<environments_instructions>", "</environments_instructions>", "environments"},
	{"<managed_developer_instructions>", "</managed_developer_instructions>", "managed-instructions"},
	{"<multi_agent_mode>", "</multi_agent_mode>", "multi-agent-mode"},
	{"<persistent_mode>", "</persistent_mode>", "persistent-mode"},
	{"<context_window_guidance>", "</context_window_guidance>", "context-window"},
	{"<model_catalog>", "</model_catalog>", "model-catalog"},
	// Tags with attributes: the start marker is the tag's name.
	{"<hook_prompt", "</hook_prompt>", "hook-prompt"},
	{"<codex_internal_context", "</codex_internal_context>", "internal-context"},
}

// codexWarnings open the warnings Codex once wrote as user messages.
var codexWarnings = []string{
	"Warning: The maximum number of unified exec processes you can keep open is",
	"Warning: Your account was flagged for potentially high-risk cyber activity",
	"Warning: apply_patch was requested via ",
}

// Context returns the kind of Codex context item a text block is, if
// it is one, and the marker that shows it.
func Context(text string) (kind, shown string) {
	t := strings.TrimSpace(text)
	for _, f := range codexFragments {
		if len(t) < len(f.start)+len(f.end) || !strings.EqualFold(t[:len(f.start)], f.start) || !strings.EqualFold(t[len(t)-len(f.end):], f.end) {
			continue
		}
		if strings.HasSuffix(f.start, ">") || strings.HasSuffix(f.start, " ") {
			return f.kind, strings.TrimSpace(f.start)
		}
		// "<hook_prompt" must be the whole tag name.
		if c := t[len(f.start)]; c == '>' || c == ' ' {
			return f.kind, f.start + ">"
		}
	}
	for _, w := range codexWarnings {
		if strings.HasPrefix(t, w) {
			return "warning", w
		}
	}
	return "", ""
}

// runLines are the lines Codex puts above a command's output that
// differ from run to run: its wall time, and the chunk id of unified
// exec's output.
var (
	wallTime = regexp.MustCompile(`(?m)^Wall time: [0-9.]+ seconds$`)
	chunkID  = regexp.MustCompile(`(?m)^Chunk ID: [0-9A-Za-z_-]+$`)
)

// Clean makes a tool's output as Codex sends it comparable from run to
// run: its "Wall time: N seconds" line reads as "Wall time: 0 seconds",
// its "Chunk ID: X" line as "Chunk ID: 0".
func Clean(text string) string {
	if strings.Contains(text, "Wall time: ") {
		text = wallTime.ReplaceAllString(text, "Wall time: 0 seconds")
	}
	if strings.Contains(text, "Chunk ID: ") {
		text = chunkID.ReplaceAllString(text, "Chunk ID: 0")
	}
	return text
}
