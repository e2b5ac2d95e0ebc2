package codex

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/importer"
)

// Name is the format's name, as given to ctx-pack --from.
const Name = "codex"

// Format is Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).
var Format = importer.Format{Name: Name, Noun: "session", Session: true, Import: importCodex, Kinds: kinds,
	Match: match, Hook: hook, Resumable: true}

// kinds are the kinds of record Codex rollouts hold.
var kinds = append([]importer.RecordKind{
	{Kind: "session_meta"},
	{Kind: "turn_context"},
	{Kind: "response_item"},
	{Kind: "inter_agent_communication"},
	{Kind: "inter_agent_communication without content", Skip: `record type "inter_agent_communication" without content`},
	{Kind: "world_state"},
	{Kind: "token_usage_record"},
	{Kind: "inter_agent_communication_metadata", Skip: `record type "inter_agent_communication_metadata" (thread state Codex restores, no message or call)`},
	{Kind: "compacted"},
	{Kind: "compacted without a message", Skip: `record type "compacted" without a message`},
	{Kind: "record_type/state", Skip: `record_type "state" (the CLI's session state, no conversation)`},
	{Kind: "event_msg/token_count"},
	{Kind: "event_msg/token_count empty", Skip: `event_msg "token_count" without counts`},
	{Kind: "event_msg/token_count repeated", Skip: `event_msg "token_count" repeating the one before`},
	{Kind: "event_msg/exec_command_end"},
	{Kind: "event_msg/mcp_tool_call_end"},
	{Kind: "event_msg/turn_aborted"},
	{Kind: "event_msg/task_started"},
	{Kind: "event_msg/task_complete"},
	{Kind: "event_msg/turn_started"},
	{Kind: "event_msg/turn_complete"},
	{Kind: "event_msg/error"},
	{Kind: "event_msg/stream_error"},
	{Kind: "event_msg/warning"},
	{Kind: "event_msg/context_compacted"},
	{Kind: "event_msg/background_event"},
	{Kind: "event_msg/entered_review_mode"},
	{Kind: "event_msg/exited_review_mode"},
	{Kind: "event_msg/thread_rolled_back"},
	{Kind: "event_msg/thread_goal_updated"},
	{Kind: "event_msg/sub_agent_activity"},
	{Kind: "event_msg/item_completed"},
	{Kind: "event_msg/guardian_assessment"},
	{Kind: "event_msg/guardian_warning"},
	{Kind: "event_msg/model_reroute"},
	{Kind: "event_msg/undo_completed"},
	{Kind: "event_msg/thread_settings_applied"},
	{Kind: "event_msg/user_message"},
	{Kind: "event_msg/agent_message"},
	{Kind: "event_msg/user_message copy", Skip: `event_msg "user_message" (repeats response items for display)`},
	{Kind: "event_msg/agent_message copy", Skip: `event_msg "agent_message" (repeats response items for display)`},
}, codexDisplayKinds()...)

// codexDisplayKinds are the event_msg types that repeat, for display,
// what response items record (messages, reasoning, the start and end of
// tool calls, streamed deltas).
func codexDisplayKinds() []importer.RecordKind {
	var out []importer.RecordKind
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
		out = append(out, importer.RecordKind{Kind: "event_msg/" + et, Skip: fmt.Sprintf("event_msg %q (repeats response items for display)", et)})
	}
	return out
}

// codexTypes are the envelope types of Codex rollouts.
var codexTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true,
	"turn_context": true, "compacted": true,
}

// match tells a rollout by its first line's envelope.
func match(rec gjson.Result) bool {
	return rec.Get("payload").Exists() && codexTypes[rec.Get("type").String()]
}
