package claudecode

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/importer"
)

// Name is the format's name, as given to ctx-pack --from.
const Name = "claude-code"

// Format is Claude Code session transcripts.
var Format = importer.Format{Name: Name, Noun: "session", Session: true, Import: importClaudeCode, Kinds: kinds,
	Match: match, Beside: beside, Resumable: true}

// beside reads a session's subagents' transcripts.
func beside(name string) (importer.Beside, error) {
	subs, err := Subagents(name)
	if err != nil || len(subs) == 0 {
		return importer.Beside{}, err
	}
	return importer.Beside{Subagents: subs, Note: fmt.Sprintf("including the %d subagent transcript(s) under %s", len(subs), path.Dir(subs[0].Name))}, nil
}

// kinds are the kinds of record Claude Code transcripts hold.
var kinds = []importer.RecordKind{
	{Kind: "user"},
	{Kind: "assistant"},
	{Kind: "summary"},
	{Kind: "system/local_command"},
	{Kind: "system/local_command without a tag", Skip: `record type "system" (local_command whose content opens with no tag of a command or its output)`},
	{Kind: "system/local_command copy", Skip: `record type "system" (local_command: the same text, at the same time, as a user record)`},
	{Kind: "system/compact_boundary alone", Skip: `record type "system" (compact_boundary with no compaction summary after it)`},
	{Kind: "system/compact_boundary"},
	{Kind: "attachment/queued_command"},
	{Kind: "attachment/file"},
	{Kind: "attachment/file without rendered text", Skip: `record type "attachment" (a file with no text rendered for the model)`, Lost: true},
	{Kind: "attachment/queued_command of another commandMode", Skip: `record type "attachment" (a queued_command of another commandMode than prompt or task-notification, not known to reach the model)`},
	{Kind: "attachment/queued_command without a prompt", Skip: `record type "attachment" (a queued_command with no prompt)`},
	{Kind: "attachment/queued_command copy", Skip: `record type "attachment" (a queued_command whose prompt the next user record repeats)`},
	{Kind: "progress/agent_progress"},
	{Kind: "progress/agent_progress copy", Skip: `record type "progress" (agent_progress: a copy of a record the subagent's own transcript holds, or of one read before)`},
	{Kind: "progress/hook_progress", Skip: `record type "progress" (hook and tool progress)`},
	{Kind: "progress/bash_progress", Skip: `record type "progress" (hook and tool progress)`},
	{Kind: "progress/powershell_progress", Skip: `record type "progress" (hook and tool progress)`},
	{Kind: "progress/mcp_progress", Skip: `record type "progress" (hook and tool progress)`},
	{Kind: "progress/waiting_for_task", Skip: `record type "progress" (hook and tool progress)`},
	{Kind: "progress/query_update", Skip: `record type "progress" (hook and tool progress)`},
	{Kind: "progress/search_results_received", Skip: `record type "progress" (hook and tool progress)`},
	{Kind: "progress/skill_progress", Skip: `record type "progress" (hook and tool progress)`},
	{Kind: "progress/task_progress", Skip: `record type "progress" (hook and tool progress)`},
	{Kind: "progress", Skip: `record type "progress" (hook and tool progress)`},
	{Kind: "file-history-snapshot", Skip: `record type "file-history-snapshot" (editor undo state)`},
	{Kind: "queue-operation", Skip: `record type "queue-operation" (input queue)`},
	{Kind: "attachment/*", Skip: `record type "attachment" (what Claude Code adds to a turn: reminders, hook output, file changes)`, Lost: true},
	{Kind: "system", Skip: `record type "system" (status output)`},
	{Kind: "system/turn_duration", Skip: `record type "system" (turn_duration: status output)`},
	{Kind: "system/stop_hook_summary", Skip: `record type "system" (stop_hook_summary: status output)`},
	{Kind: "system/api_error", Skip: `record type "system" (api_error: status output)`},
	{Kind: "system/informational", Skip: `record type "system" (informational: status output)`},
	{Kind: "system/microcompact_boundary", Skip: `record type "system" (microcompact_boundary: status output)`},
	{Kind: "system/away_summary", Skip: `record type "system" (away_summary: status output)`},
	{Kind: "last-prompt", Skip: `record type "last-prompt" (a copy of the last prompt, to resume the session)`},
	{Kind: "permission-mode", Skip: `record type "permission-mode" (session state: the permission mode)`},
	{Kind: "mode", Skip: `record type "mode" (session state: the input mode)`},
	{Kind: "custom-title", Skip: `record type "custom-title" (session title)`},
	{Kind: "ai-title", Skip: `record type "ai-title" (session title)`},
	{Kind: "agent-name", Skip: `record type "agent-name" (session title)`},
	{Kind: "agent-color", Skip: `record type "agent-color" (session display state)`},
	{Kind: "agent-setting", Skip: `record type "agent-setting" (session state: the agent definition in use)`},
	{Kind: "tag", Skip: `record type "tag" (session label)`},
	{Kind: "pr-link", Skip: `record type "pr-link" (a pull request the session is linked to)`},
	{Kind: "worktree-state", Skip: `record type "worktree-state" (session state: the git worktree)`},
	{Kind: "cost-state"},
	{Kind: "api-request"},
	{Kind: "api-request-blob"},
	{Kind: "api-request-shape"},
	{Kind: "attachment/prompt_snapshot"},
	{Kind: "atis-latch"},
	{Kind: "atis-latch empty", Skip: `record type "atis-latch" (an empty latch, holding nothing else)`},
	{Kind: "tools-used", Skip: `record type "tools-used" (the names of the tools a turn called, which its tool calls say)`},
}

// lineTypes are the line types of Claude Code transcripts: those
// of the kinds its importer knows (kinds), any of which may
// come first (permission-mode, file-history-snapshot, queue-operation, …).
var lineTypes = func() map[string]bool {
	types := map[string]bool{}
	for _, k := range kinds {
		typ, _, _ := strings.Cut(k.Kind, "/")
		types[typ] = true
	}
	return types
}()

func match(rec gjson.Result) bool {
	has := func(p string) bool { return rec.Get(p).Exists() }
	return lineTypes[rec.Get("type").String()] && (has("uuid") || has("sessionId") || has("leafUuid") || has("messageId"))
}

// Subagents reads the transcripts of the subagents of the Claude
// Code session whose transcript is at transcript: newer versions of Claude
// Code write them beside it, as <session>/subagents/agent-*.jsonl, not in
// the session's own. Each is named by its path relative to the
// transcript's directory; a session without any has none.
func Subagents(transcript string) ([]importer.File, error) {
	stem, ok := strings.CutSuffix(transcript, ".jsonl")
	if !ok {
		return nil, nil
	}
	dir := filepath.Join(stem, "subagents")
	names, err := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	if err != nil {
		return nil, err
	}
	var files []importer.File
	for _, name := range names {
		data, err := found.ReadFile(name, found.Rule{What: "the session's subagent transcript", Max: importer.MaxTranscript, Within: dir})
		if err != nil {
			return nil, err
		}
		files = append(files, importer.File{Name: filepath.ToSlash(filepath.Join(filepath.Base(stem), "subagents", filepath.Base(name))), Data: data})
	}
	return files, nil
}
