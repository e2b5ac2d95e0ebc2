package codex

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ctx-tools/ctx/lib/importer"
)

func TestNotify(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	rollout := filepath.Join(home, "sessions", "2025", "01", "02", "rollout-2025-01-02T03-04-05-abc-123.jsonl")
	later := filepath.Join(home, "sessions", "2025", "01", "03", "rollout-2025-01-03T00-00-00-abc-123.jsonl")
	for _, p := range []string{rollout, later} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, data, home string
		want             *importer.Hook
		err              string
	}{
		{"notify", `{"type":"agent-turn-complete","thread-id":"abc-123","turn-id":"1","cwd":"/p"}`, home,
			&importer.Hook{Transcript: later, Cwd: "/p", SessionID: "abc-123", Event: "agent-turn-complete", Within: filepath.Join(home, "sessions")}, ""},
		{"unknown thread", `{"type":"agent-turn-complete","thread-id":"zzz"}`, home, nil, "codex notify payload: no rollout of thread zzz under " + filepath.Join(home, "sessions")},
		{"bad thread", `{"type":"agent-turn-complete","thread-id":"../x"}`, home, nil, `codex notify payload: thread-id "../x" is not an id`},
		{"empty thread", `{"type":"agent-turn-complete","thread-id":""}`, home, nil, "codex notify payload: thread-id is not a non-empty string"},
		{"no home", `{"type":"agent-turn-complete","thread-id":"abc-123"}`, "", nil, "codex notify payload: no Codex home to find the rollout in (set CODEX_HOME)"},
		{"a hook payload", `{"session_id":"s","transcript_path":"/t/s.jsonl","hook_event_name":"Stop"}`, home, nil, ""},
		{"a rollout line", `{"type":"session_meta","payload":{"id":"abc-123"}}`, home, nil, ""},
		{"not json", "hello", home, nil, ""},
	}
	for _, tt := range tests {
		got, err := notify([]byte(tt.data), tt.home)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, %q; want %+v, %q", tt.name, got, msg, tt.want, tt.err)
		}
	}
}

// FuzzNotify reads arbitrary bytes as a notify payload: no panic, and a
// payload it accepts names a rollout under the home's sessions.
func FuzzNotify(f *testing.F) {
	f.Add([]byte(`{"type":"agent-turn-complete","thread-id":"x"}`))
	f.Add([]byte(`{"type":"agent-turn-complete","thread-id":"abc-123"}`))
	home := f.TempDir()
	p := filepath.Join(home, "sessions", "2025", "01", "02", "rollout-2025-01-02T03-04-05-abc-123.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := notify(data, home)
		if err == nil && h != nil && (h.Transcript != p || h.Within != filepath.Join(home, "sessions")) {
			t.Fatalf("payload %q accepted with transcript %q", data, h.Transcript)
		}
	})
}

// notify is Notify of data, when data could be a hook payload.
func notify(data []byte, home string) (*importer.Hook, error) {
	payload, ok := importer.HookPayload(data)
	if !ok {
		return nil, nil
	}
	return Notify(payload, home)
}
