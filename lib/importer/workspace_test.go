package importer

import (
	"path/filepath"
	"reflect"
	"testing"
)

func TestParseHook(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data string
		want       *Hook
		err        string
	}{
		{"claude code stop", `{"session_id":"s","transcript_path":"/t/s.jsonl","cwd":"/p","hook_event_name":"Stop"}`,
			&Hook{Transcript: "/t/s.jsonl", Cwd: "/p", SessionID: "s", Event: "Stop"}, ""},
		{"tool step", `{"session_id":"s","transcript_path":"/t/s.jsonl","cwd":"/p","hook_event_name":"PostToolUse","tool_use_id":"toolu_1","tool_name":"Bash"}`,
			&Hook{Transcript: "/t/s.jsonl", Cwd: "/p", SessionID: "s", Event: "PostToolUse", ToolUseID: "toolu_1", Tool: "Bash"}, ""},
		{"relative transcript", `{"session_id":"s","transcript_path":"t.jsonl","cwd":"/p"}`,
			&Hook{Transcript: filepath.Join("/p", "t.jsonl"), Cwd: "/p", SessionID: "s"}, ""},
		{"empty transcript", `{"session_id":"s","transcript_path":""}`, nil, "hook payload: transcript_path is not a non-empty string"},
		{"transcript without session or event", `{"transcript_path":"/t/s.jsonl"}`, nil, ""},
		{"a notification naming no transcript", `{"type":"agent-turn-complete","thread-id":"abc-123","turn-id":"1","cwd":"/p"}`, nil, ""},
		{"a transcript line", `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}`, nil, ""},
		{"a transcript", "{\"type\":\"user\"}\n{\"type\":\"assistant\"}\n", nil, ""},
		{"not json", "hello", nil, ""},
	}
	for _, tt := range tests {
		got, err := ParseHook([]byte(tt.data))
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, %q; want %+v, %q", tt.name, got, msg, tt.want, tt.err)
		}
	}
}
