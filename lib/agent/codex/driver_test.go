package codex

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/agent"
)

// TestTranscriptNotSubagent: the transcript is the newest rollout of a
// session, not the rollout a subagent it spawned wrote after it.
func TestTranscriptNotSubagent(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".codex", "sessions", "2026", "11", "01")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, meta string, age time.Duration) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`{"type":"session_meta","payload":`+meta+"}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
		return p
	}
	parent := write("rollout-a.jsonl", `{"id":"p"}`, time.Minute)
	write("rollout-b.jsonl", `{"id":"c","parent_thread_id":"p"}`, 0)
	got, err := Driver{}.Transcript(agent.Session{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if got != parent {
		t.Errorf("transcript %s, want the session's %s", got, parent)
	}
}
