package importer

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Codex writes its own context into the conversation as messages of role
// "user" (or "developer"): the project's AGENTS.md, the environment
// (cwd, shell, sandbox), the permissions and approval policy, a shell
// command the user ran with "!", the notice that a turn was aborted, a
// skill's instructions, a subagent's status, hook output. Codex itself
// tells these apart from what a person typed by the markers each text
// opens and closes with (codex-rs core/src/context: a ContextualUserFragment's
// START_MARKER and END_MARKER, matched case-insensitively on the trimmed
// text), so they are harness prompts of their kind (ccharness.go's model:
// role "harness", the text byte for byte, the kind in
// metadata.prompts[i].harness), not the user's.

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

// codexContext returns the kind of Codex context item a text block is, if
// it is one, and the marker that shows it.
func codexContext(text string) (kind, shown string) {
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

// codexContextItem makes Codex's context items harness prompts (h, an
// itemReader's codex harness): a message all of whose text is Codex's
// becomes one; one whose leading texts are Codex's and the rest the
// user's is split in two, the harness's part returned to come before m.
// A developer message keeps "role": "developer" in its metadata; one
// that is no context item stays a system prompt.
func codexContextItem(b *builder, h *harness, m *msg, content gjson.Result, where string) *msg {
	role := m.role
	if role != "user" && role != "developer" {
		return nil
	}
	if role == "developer" {
		// classify reads user records; the role is put back when
		// the message is not Codex's context.
		m.role = "user"
	}
	before := h.classify(b, where, m, content, ccMarks{})
	switch {
	case m.role == "user" && role == "developer":
		m.role = role
	case m.role == harnessRole && role == "developer":
		m.meta.setString("role", role)
	}
	if before != nil && role == "developer" {
		before.meta.setString("role", role)
	}
	return before
}
