package importer

import (
	"errors"
	"path/filepath"

	"github.com/tidwall/gjson"
)

// Hook is what an agent's hook (or notify program) is given when a session
// stops or a turn ends: the session's transcript, where it ran, and what
// happened. Packing the transcript it names is one line in the agent's
// configuration.
type Hook struct {
	// Transcript is the path of the session's own log.
	Transcript string
	// Cwd, SessionID and Event are as the payload gives them ("" if not).
	Cwd, SessionID, Event string
	// ToolUseID and Tool name the step a PreToolUse or PostToolUse
	// payload is about ("" otherwise).
	ToolUseID, Tool string
	// Within is the directory the transcript was found in, when ctx
	// looked it up itself (a Codex rollout under sessions/): symlinks
	// must not lead out of it.
	Within string
}

// MaxTranscript bounds a transcript ctx finds for itself (the one a hook
// payload names, a Codex rollout, a subagent's transcript): each must be
// a regular file of at most this many bytes (lib/found).
const MaxTranscript = 1 << 30

// ParseHook recognises a hook payload: an agent's hook input (a JSON
// object with transcript_path, and session_id or hook_event_name, as
// Claude Code's hooks and Codex's send). It returns nil, nil when data is
// not one (a transcript, say, or a payload only a format's own Hook
// recognises: Registry.ParseHook), and an error when it is one that
// names no transcript.
func ParseHook(data []byte) (*Hook, error) {
	payload, ok := HookPayload(data)
	if !ok {
		return nil, nil
	}
	return hookOf(payload)
}

// HookPayload returns data's first record when data could be a hook
// payload: valid JSON whose first record is an object.
func HookPayload(data []byte) (gjson.Result, bool) {
	rec, ok := FirstRecord(data)
	if !ok || !rec.IsObject() || !gjson.ValidBytes(data) {
		return gjson.Result{}, false
	}
	return rec, true
}

// hookOf is ParseHook of a payload HookPayload returned.
func hookOf(payload gjson.Result) (*Hook, error) {
	if !payload.Get("transcript_path").Exists() || !payload.Get("session_id").Exists() && !payload.Get("hook_event_name").Exists() {
		return nil, nil
	}
	h := &Hook{Transcript: HookString(payload, "transcript_path"), Cwd: HookString(payload, "cwd"), SessionID: HookString(payload, "session_id"),
		Event: HookString(payload, "hook_event_name"), ToolUseID: HookString(payload, "tool_use_id"), Tool: HookString(payload, "tool_name")}
	if h.Transcript == "" {
		return nil, errors.New("hook payload: transcript_path is not a non-empty string")
	}
	if !filepath.IsAbs(h.Transcript) && h.Cwd != "" {
		h.Transcript = filepath.Join(h.Cwd, h.Transcript)
	}
	return h, nil
}

// HookString is payload member k when it is a string, else "".
func HookString(payload gjson.Result, k string) string {
	if v := payload.Get(gjson.Escape(k)); v.Type == gjson.String {
		return v.Str
	}
	return ""
}
