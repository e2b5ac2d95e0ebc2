package importer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// Record kinds. Each importer reads some kinds of record into the log and
// skips others; recordKinds is the one list of them, per format: the
// skip reasons the Report counts come from it, docs/formats.md's table says
// the same (a test compares them), and a test fails when a fixture holds
// a kind that is in no list. A kind is a record's type, or its type and
// subtype joined by "/" ("progress/hook_progress").
//
// A kind the list does not know is not noise by default: when it holds a
// message, a tool call, a tool result, file content or usage (carriesWork)
// it is named on stderr as lost, with its count.

// A recordKind is one kind of record and what its importer does with it.
type recordKind struct {
	kind string
	// skip says why records of the kind are not imported; "" when
	// they are.
	skip string
	// lost is true for a skipped kind that holds work no other record
	// has: its records are named on stderr as lost, with their count.
	lost bool
}

// recordKinds lists, per format, the kinds of record its importer knows.
var recordKinds = map[string][]recordKind{
	ClaudeCode: {
		{kind: "user"},
		{kind: "assistant"},
		{kind: "summary"},
		{kind: "system/local_command"},
		{kind: "system/local_command without a tag", skip: `record type "system" (local_command whose content opens with no tag of a command or its output)`},
		{kind: "system/local_command copy", skip: `record type "system" (local_command: the same text, at the same time, as a user record)`},
		{kind: "system/compact_boundary alone", skip: `record type "system" (compact_boundary with no compaction summary after it)`},
		{kind: "system/compact_boundary"},
		{kind: "attachment/queued_command"},
		{kind: "attachment/file"},
		{kind: "attachment/file without rendered text", skip: `record type "attachment" (a file with no text rendered for the model)`, lost: true},
		{kind: "attachment/queued_command of another commandMode", skip: `record type "attachment" (a queued_command of another commandMode than prompt or task-notification, not known to reach the model)`},
		{kind: "attachment/queued_command without a prompt", skip: `record type "attachment" (a queued_command with no prompt)`},
		{kind: "attachment/queued_command copy", skip: `record type "attachment" (a queued_command whose prompt the next user record repeats)`},
		{kind: "progress/agent_progress"},
		{kind: "progress/agent_progress copy", skip: `record type "progress" (agent_progress: a copy of a record the subagent's own transcript holds, or of one read before)`},
		{kind: "progress/hook_progress", skip: `record type "progress" (hook and tool progress)`},
		{kind: "progress/bash_progress", skip: `record type "progress" (hook and tool progress)`},
		{kind: "progress/powershell_progress", skip: `record type "progress" (hook and tool progress)`},
		{kind: "progress/mcp_progress", skip: `record type "progress" (hook and tool progress)`},
		{kind: "progress/waiting_for_task", skip: `record type "progress" (hook and tool progress)`},
		{kind: "progress/query_update", skip: `record type "progress" (hook and tool progress)`},
		{kind: "progress/search_results_received", skip: `record type "progress" (hook and tool progress)`},
		{kind: "progress/skill_progress", skip: `record type "progress" (hook and tool progress)`},
		{kind: "progress/task_progress", skip: `record type "progress" (hook and tool progress)`},
		{kind: "progress", skip: `record type "progress" (hook and tool progress)`},
		{kind: "file-history-snapshot", skip: `record type "file-history-snapshot" (editor undo state)`},
		{kind: "queue-operation", skip: `record type "queue-operation" (input queue)`},
		{kind: "attachment/*", skip: `record type "attachment" (what Claude Code adds to a turn: reminders, hook output, file changes)`, lost: true},
		{kind: "system", skip: `record type "system" (status output)`},
		{kind: "system/turn_duration", skip: `record type "system" (turn_duration: status output)`},
		{kind: "system/stop_hook_summary", skip: `record type "system" (stop_hook_summary: status output)`},
		{kind: "system/api_error", skip: `record type "system" (api_error: status output)`},
		{kind: "system/informational", skip: `record type "system" (informational: status output)`},
		{kind: "system/microcompact_boundary", skip: `record type "system" (microcompact_boundary: status output)`},
		{kind: "system/away_summary", skip: `record type "system" (away_summary: status output)`},
		{kind: "last-prompt", skip: `record type "last-prompt" (a copy of the last prompt, to resume the session)`},
		{kind: "permission-mode", skip: `record type "permission-mode" (session state: the permission mode)`},
		{kind: "mode", skip: `record type "mode" (session state: the input mode)`},
		{kind: "custom-title", skip: `record type "custom-title" (session title)`},
		{kind: "ai-title", skip: `record type "ai-title" (session title)`},
		{kind: "agent-name", skip: `record type "agent-name" (session title)`},
		{kind: "agent-color", skip: `record type "agent-color" (session display state)`},
		{kind: "agent-setting", skip: `record type "agent-setting" (session state: the agent definition in use)`},
		{kind: "tag", skip: `record type "tag" (session label)`},
		{kind: "pr-link", skip: `record type "pr-link" (a pull request the session is linked to)`},
		{kind: "worktree-state", skip: `record type "worktree-state" (session state: the git worktree)`},
		{kind: "cost-state"},
		{kind: "api-request"},
		{kind: "api-request-blob"},
		{kind: "api-request-shape"},
		{kind: "attachment/prompt_snapshot"},
		{kind: "atis-latch"},
		{kind: "atis-latch empty", skip: `record type "atis-latch" (an empty latch, holding nothing else)`},
		{kind: "tools-used", skip: `record type "tools-used" (the names of the tools a turn called, which its tool calls say)`},
	},
	Codex: {
		{kind: "session_meta"},
		{kind: "turn_context"},
		{kind: "response_item"},
		{kind: "inter_agent_communication"},
		{kind: "inter_agent_communication without content", skip: `record type "inter_agent_communication" without content`},
		{kind: "world_state"},
		{kind: "token_usage_record"},
		{kind: "inter_agent_communication_metadata", skip: `record type "inter_agent_communication_metadata" (thread state Codex restores, no message or call)`},
		{kind: "compacted"},
		{kind: "compacted without a message", skip: `record type "compacted" without a message`},
		{kind: "record_type/state", skip: `record_type "state" (the CLI's session state, no conversation)`},
		{kind: "event_msg/token_count"},
		{kind: "event_msg/token_count empty", skip: `event_msg "token_count" without counts`},
		{kind: "event_msg/token_count repeated", skip: `event_msg "token_count" repeating the one before`},
		{kind: "event_msg/exec_command_end"},
		{kind: "event_msg/mcp_tool_call_end"},
		{kind: "event_msg/turn_aborted"},
		{kind: "event_msg/task_started"},
		{kind: "event_msg/task_complete"},
		{kind: "event_msg/turn_started"},
		{kind: "event_msg/turn_complete"},
		{kind: "event_msg/error"},
		{kind: "event_msg/stream_error"},
		{kind: "event_msg/warning"},
		{kind: "event_msg/context_compacted"},
		{kind: "event_msg/background_event"},
		{kind: "event_msg/entered_review_mode"},
		{kind: "event_msg/exited_review_mode"},
		{kind: "event_msg/thread_rolled_back"},
		{kind: "event_msg/thread_goal_updated"},
		{kind: "event_msg/sub_agent_activity"},
		{kind: "event_msg/item_completed"},
		{kind: "event_msg/guardian_assessment"},
		{kind: "event_msg/guardian_warning"},
		{kind: "event_msg/model_reroute"},
		{kind: "event_msg/undo_completed"},
		{kind: "event_msg/thread_settings_applied"},
		{kind: "event_msg/user_message"},
		{kind: "event_msg/agent_message"},
		{kind: "event_msg/user_message copy", skip: `event_msg "user_message" (repeats response items for display)`},
		{kind: "event_msg/agent_message copy", skip: `event_msg "agent_message" (repeats response items for display)`},
	},
	Inspect: {
		{kind: "event/model"},
		{kind: "event/tool"},
		{kind: "event/model without message", skip: `event "model" without an output message`},
		{kind: "event/tool without id", skip: `event "tool" without a call id`},
		{kind: "event/model unjoined", skip: `event "model" whose output is not among the messages`},
		{kind: "event/tool unjoined", skip: `event "tool" whose call is not among the messages`},
	},
	LangSmith: {
		{kind: "run/llm"},
		{kind: "run/tool"},
		{kind: "run/retriever"},
		{kind: "run/chain", skip: `run_type "chain" (only llm, tool and retriever runs are steps)`},
		{kind: "run/prompt", skip: `run_type "prompt" (only llm, tool and retriever runs are steps)`},
		{kind: "run/parser", skip: `run_type "parser" (only llm, tool and retriever runs are steps)`},
		{kind: "run/embedding", skip: `run_type "embedding" (only llm, tool and retriever runs are steps)`},
		{kind: "run/none", skip: `run_type "none" (only llm, tool and retriever runs are steps)`},
	},
	OTelGenAI: {
		{kind: "span", skip: "span without a GenAI operation"},
		{kind: "log", skip: "log record of a skipped span"},
	},
}

func init() {
	// The event_msg types that repeat, for display, what response items
	// record (messages, reasoning, the start and end of tool calls,
	// streamed deltas).
	for _, et := range []string{
		"agent_message_delta",
		"agent_reasoning", "agent_reasoning_delta", "agent_reasoning_raw_content",
		"agent_reasoning_raw_content_delta", "agent_reasoning_section_break",
		"exec_command_begin", "exec_command_output_delta",
		"patch_apply_begin", "patch_apply_end", "mcp_tool_call_begin",
		"web_search_begin", "web_search_end", "view_image_tool_call",
		"plan_update", "turn_diff", "item_started",
		"terminal_interaction", "image_generation_begin", "image_generation_end",
		"collab_agent_spawn_begin", "collab_agent_spawn_end",
		"collab_agent_interaction_begin", "collab_agent_interaction_end",
	} {
		recordKinds[Codex] = append(recordKinds[Codex], recordKind{kind: "event_msg/" + et, skip: fmt.Sprintf("event_msg %q (repeats response items for display)", et)})
	}
	// Inspect's events besides model and tool events: the timeline of
	// a sample, what its messages do not say.
	for _, et := range []string{
		"sample_init", "sample_limit", "sandbox", "state", "store", "approval", "input",
		"score", "error", "logger", "info", "span_begin", "span_end", "step", "compaction", "checkpoint",
	} {
		recordKinds[Inspect] = append(recordKinds[Inspect], recordKind{kind: "event/" + et, skip: fmt.Sprintf("event %q (timeline detail)", et)})
	}
	// The spans of the operations otelOps maps, imported.
	ops := make([]string, 0, len(otelOps))
	for op := range otelOps {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var spans []recordKind
	for _, op := range ops {
		spans = append(spans, recordKind{kind: "span/" + op})
	}
	recordKinds[OTelGenAI] = append(spans, recordKinds[OTelGenAI]...)
	// A subtask's events hold model calls of their own.
	recordKinds[Inspect] = append(recordKinds[Inspect], recordKind{kind: "event/subtask", skip: `event "subtask" (timeline detail)`, lost: true})
}

// knownKind returns the entry of kind in format's list: its own, or
// that of every subtype of its type ("attachment/*").
func knownKind(format, kind string) (recordKind, bool) {
	typ, _, _ := strings.Cut(kind, "/")
	var all recordKind
	found := false
	for _, k := range recordKinds[format] {
		switch k.kind {
		case kind:
			return k, true
		case typ + "/*":
			all, found = k, true
		}
	}
	return all, found
}

// reason returns why records of kind are skipped, as the format's list
// says.
func (b *builder) reason(kind string) string {
	k, ok := knownKind(b.format, kind)
	if !ok || k.skip == "" {
		panic("importer: no skip reason for " + b.format + " records of kind " + kind)
	}
	return k.skip
}

// skipKind counts a record of a kind the format's list says is skipped
// (the reason is the list's). A kind not in the list is skipped with
// unknown as its reason, unless rec holds work: then it is named as lost.
func (b *builder) skipKind(kind string, rec gjson.Result, unknown string) {
	// An imported kind skipped here has a shape its importer could not
	// read (no message where one belongs): it is skipped as unknown.
	if k, ok := knownKind(b.format, kind); ok && k.skip != "" {
		b.skip(k.skip)
		if what := carriesWork(rec); k.lost && what != "" {
			b.lose(kind, what)
		}
		return
	}
	if what := carriesWork(rec); what != "" {
		b.lose(kind, what)
		if s, ok := strings.CutSuffix(unknown, ")"); ok {
			unknown = s + "; it holds " + what + ")"
		} else {
			unknown += "; it holds " + what
		}
	}
	b.skip(unknown)
}

// lose notes a skipped record that holds work: stderr names it.
func (b *builder) lose(kind, what string) {
	if b.lost == nil {
		b.lost = map[string]map[string]int{}
	}
	if b.lost[kind] == nil {
		b.lost[kind] = map[string]int{}
	}
	b.lost[kind][what]++
}

// lostWarnings are the warnings naming the records skipped that held work.
func (b *builder) lostWarnings() []string {
	var out []string
	for kind, whats := range b.lost {
		for what, n := range whats {
			out = append(out, fmt.Sprintf("%d record(s) of kind %q hold %s, which is not imported: lost from the log", n, kind, what))
		}
	}
	sort.Strings(out)
	return out
}

// carriesWork says what work a record holds, if any: "a message", "a
// tool call", "a tool result", "file content" or "usage" (the first found,
// looking a few levels deep); "" when it holds none of them.
func carriesWork(v gjson.Result) string {
	return workIn(v, 0)
}

func workIn(v gjson.Result, depth int) string {
	if depth > 6 || !v.IsObject() && !v.IsArray() {
		return ""
	}
	if v.IsObject() {
		f := fieldsOf(v)
		switch f.get("type").String() {
		case "tool_use", "server_tool_use", "mcp_tool_use", "function_call", "custom_tool_call", "local_shell_call", "tool_call":
			return "a tool call"
		case "tool_result", "mcp_tool_result", "function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_call_response":
			return "a tool result"
		}
		if f.get("role").Type == gjson.String && f.get("content").Exists() {
			return "a message"
		}
		if tc := f.get("tool_calls"); informative(tc) {
			return "a tool call"
		}
		if informative(f.get("toolUseResult")) {
			return "a tool result"
		}
		if c := f.first("content", "originalFile"); c.Type == gjson.String && f.first("filePath", "file_path").Type == gjson.String {
			return "file content"
		}
		for _, m := range f {
			if strings.HasSuffix(m.k, "_tokens") && m.v.Type == gjson.Number && m.v.Raw != "0" {
				return "usage"
			}
		}
	}
	found := ""
	each(v, func(_, e gjson.Result) bool {
		found = workIn(e, depth+1)
		return found == ""
	})
	return found
}
