package importer

import (
	"errors"
	"strings"
	"testing"
)

// TestTruncatedLastLine: a log still being written ends in a cut-short
// record. It is left out with a warning naming its line; a malformed
// record anywhere else, or one that is not cut short but wrong, is an
// error naming its line.
func TestTruncatedLastLine(t *testing.T) {
	const ok = `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}`
	tests := []struct {
		in, warn, err string
	}{
		{in: ok + "\n" + `{"type":"user","uuid":"u2","sess` + "\n\n", warn: "line 2 is cut short (the log was still being written?); it is left out"},
		{in: ok + "\n\n" + `{"type":"user","message":{"role":"user","content":"a`, warn: "line 3 is cut short (the log was still being written?); it is left out"},
		{in: `{"type":"user","uuid":"u2","sess` + "\n" + ok, err: "claude-code: line 1: invalid JSON"},
		{in: ok + "\n" + `{"type":"user","uuid":}`, err: "claude-code: line 2: invalid JSON"},
		{in: `{"type":"user","uuid":"u2","sess`, err: "claude-code: line 1: invalid JSON"},
	}
	for _, tt := range tests {
		_, rep, err := Import(ClaudeCode, []byte(tt.in), Options{})
		if tt.err != "" {
			var ie *Error
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("Import(%.40q) error = %v, want %q…", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Import(%.40q): %v", tt.in, err)
			continue
		}
		if len(rep.Warnings) == 0 || rep.Warnings[0] != tt.warn || rep.Records != 1 || rep.Mapped != 1 {
			t.Errorf("Import(%.40q) report = %+v", tt.in, rep)
		}
	}
	// The same holds in every JSON Lines format.
	in := `{"timestamp":"2025-01-01T00:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"x"}]}}` + "\n" + `{"timestamp":"2025-01-01T00:00:01Z","type":"response_item","payload":{"ty`
	if _, rep, err := Import(Codex, []byte(in), Options{}); err != nil || len(rep.Warnings) == 0 || !strings.HasPrefix(rep.Warnings[0], "line 2 is cut short") {
		t.Errorf("codex: %v, %+v", err, rep)
	}
}
