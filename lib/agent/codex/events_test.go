package codex_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

// Codex's turn lifecycle events (task_started, task_complete: the turn's
// duration, its context window) and its error and warning events repeat
// no response item: they are kept in metadata.events, in order. Events
// that do repeat response items are skipped, and said so; an event type
// the importer does not know is skipped with that reason, not with a
// claim that it repeats something.
func TestCodexEvents(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s","cwd":"/p","cli_version":"0.1"}}`,
		`{"timestamp":"2026-01-01T00:00:01Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t1","model_context_window":1000}}`,
		`{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`,
		`{"timestamp":"2026-01-01T00:00:02Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}`,
		`{"timestamp":"2026-01-01T00:00:03Z","type":"event_msg","payload":{"type":"error","message":"stream disconnected before completion"}}`,
		`{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}}`,
		`{"timestamp":"2026-01-01T00:00:04Z","type":"event_msg","payload":{"type":"agent_message","message":"hello"}}`,
		`{"timestamp":"2026-01-01T00:00:05Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","last_agent_message":"hello","duration_ms":4000}}`,
		`{"timestamp":"2026-01-01T00:00:06Z","type":"event_msg","payload":{"type":"some_future_event","x":1}}`,
	}
	out, rep, err := formats.Import(codex.Name, []byte(strings.Join(lines, "\n")+"\n"), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Metadata struct {
			Events []map[string]any `json:"events"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"timestamp": "2026-01-01T00:00:01Z", "type": "task_started", "turn_id": "t1", "model_context_window": 1000.0},
		{"timestamp": "2026-01-01T00:00:03Z", "type": "error", "message": "stream disconnected before completion"},
		{"timestamp": "2026-01-01T00:00:05Z", "type": "task_complete", "turn_id": "t1", "last_agent_message": "hello", "duration_ms": 4000.0},
	}
	if !reflect.DeepEqual(l.Metadata.Events, want) {
		t.Errorf("metadata.events:\n got %v\nwant %v", l.Metadata.Events, want)
	}
	wantReasons := []string{
		`event_msg "agent_message" (repeats response items for display): 1`,
		`event_msg "some_future_event" (an event type this importer does not map): 1`,
		`event_msg "user_message" (repeats response items for display): 1`,
	}
	if !reflect.DeepEqual(rep.Reasons, wantReasons) {
		t.Errorf("reasons:\n got %q\nwant %q", rep.Reasons, wantReasons)
	}
}
