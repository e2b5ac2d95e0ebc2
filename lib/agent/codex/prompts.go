package codex

import (
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/importer"
)

// Codex writes its own context into the conversation as messages of role
// "user" (or "developer"): the project's AGENTS.md, the environment
// (cwd, shell, sandbox), the permissions and approval policy, a shell
// command the user ran with "!", the notice that a turn was aborted, a
// skill's instructions, a subagent's status, hook output. Codex itself
// tells these apart from what a person typed by the markers each text
// opens and closes with (codex-rs core/src/context: a ContextualUserFragment's
// START_MARKER and END_MARKER, matched case-insensitively on the trimmed
// text), so they are harness prompts of their kind (importer.Harness's model:
// role "harness", the text byte for byte, the kind in
// metadata.prompts[i].harness), not the user's.

// codexContextItem makes Codex's context items harness prompts (h, the
// rollout's harness): a message all of whose text is Codex's
// becomes one; one whose leading texts are Codex's and the rest the
// user's is split in two, the harness's part returned to come before m.
// A developer message keeps "role": "developer" in its metadata; one
// that is no context item stays a system prompt.
func codexContextItem(b *importer.Builder, h *importer.Harness, m *importer.Msg, content gjson.Result, where string) *importer.Msg {
	role := m.Role
	if role != "user" && role != "developer" {
		return nil
	}
	if role == "developer" {
		if tag := laterContext(content); tag != "" {
			// Codex writes every developer message: one whose text
			// opens with what is not a context item Codex knows stays
			// a system prompt, and none of it is the user's.
			b.Warn("%s: a developer message holds Codex's context (%s) after text that is no context item Codex is known to write; it is kept as a system prompt", where, tag)
			return nil
		}
		// classify reads user records; the role is put back when
		// the message is not Codex's context.
		m.Role = "user"
	}
	before := h.Classify(b, where, m, content, importer.HarnessMarks{}, Context)
	switch {
	case m.Role == "user" && role == "developer":
		m.Role = role
	case m.Role == importer.HarnessRole && role == "developer":
		m.Meta.SetString("role", role)
	}
	if before != nil && role == "developer" {
		before.Meta.SetString("role", role)
	}
	return before
}

// laterContext returns the marker of the first of content's text parts
// that is Codex's context when an earlier one is not: "" when the parts
// are all Codex's context, or none is, or the first is.
func laterContext(content gjson.Result) string {
	var shown string
	other := false
	importer.Each(content, func(_, p gjson.Result) bool {
		t := p.Get("text")
		if t.Type != gjson.String {
			return true
		}
		switch kind, tag := Context(t.Str); {
		case kind == "":
			other = true
		case other:
			shown = tag
			return false
		}
		return true
	})
	return shown
}
