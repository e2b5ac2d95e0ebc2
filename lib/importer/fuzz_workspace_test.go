package importer

import (
	"testing"
)

// FuzzParseHook reads arbitrary bytes as a hook payload: no panic, and a
// payload it accepts names a transcript.
func FuzzParseHook(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","transcript_path":"/t/s.jsonl","cwd":"/p","hook_event_name":"Stop"}`))
	f.Add([]byte(`{"type":"agent-turn-complete","thread-id":"x"}`))
	f.Add([]byte("{\"type\":\"user\"}\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ParseHook(data)
		if err == nil && h != nil && h.Transcript == "" {
			t.Fatalf("payload %q accepted without a transcript", data)
		}
	})
}
