package importer

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParseHook(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	rollout := filepath.Join(home, "sessions", "2025", "01", "02", "rollout-2025-01-02T03-04-05-abc-123.jsonl")
	if err := os.MkdirAll(filepath.Dir(rollout), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rollout, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, data string
		want       *Hook
		err        string
	}{
		{"claude code stop", `{"session_id":"s","transcript_path":"/t/s.jsonl","cwd":"/p","hook_event_name":"Stop"}`,
			&Hook{Transcript: "/t/s.jsonl", Cwd: "/p", SessionID: "s", Event: "Stop"}, ""},
		{"relative transcript", `{"session_id":"s","transcript_path":"t.jsonl","cwd":"/p"}`,
			&Hook{Transcript: filepath.Join("/p", "t.jsonl"), Cwd: "/p", SessionID: "s"}, ""},
		{"empty transcript", `{"session_id":"s","transcript_path":""}`, nil, "hook payload: transcript_path is not a non-empty string"},
		{"codex notify", `{"type":"agent-turn-complete","thread-id":"abc-123","turn-id":"1","cwd":"/p"}`,
			&Hook{Transcript: rollout, Cwd: "/p", SessionID: "abc-123", Event: "agent-turn-complete", Within: filepath.Join(home, "sessions")}, ""},
		{"codex unknown thread", `{"type":"agent-turn-complete","thread-id":"zzz"}`, nil, "codex notify payload: no rollout of thread zzz under " + filepath.Join(home, "sessions")},
		{"codex bad thread", `{"type":"agent-turn-complete","thread-id":"../x"}`, nil, `codex notify payload: thread-id "../x" is not an id`},
		{"a transcript line", `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}`, nil, ""},
		{"a transcript", "{\"type\":\"user\"}\n{\"type\":\"assistant\"}\n", nil, ""},
		{"not json", "hello", nil, ""},
	}
	for _, tt := range tests {
		got, err := ParseHook([]byte(tt.data), home)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, %q; want %+v, %q", tt.name, got, msg, tt.want, tt.err)
		}
	}
}
