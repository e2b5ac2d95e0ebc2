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
	t.Parallel()
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

func TestChoose(t *testing.T) {
	t.Parallel()
	const cc = `{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"x"}}`
	const own = `{"model":{"identifier":"m"},"steps":[]}`
	tests := []struct {
		from, data, want, err string
		code                  int
	}{
		{from: Ctx, data: own, want: Ctx},
		{from: Auto, data: own, want: Ctx},
		{from: Auto, data: cc, want: ClaudeCode},
		{from: ClaudeCode, data: cc, want: ClaudeCode},
		{from: Ctx, data: `{"model":"m"}`, want: Ctx}, // not recognisable: ctx's schema will say why
		{from: Ctx, data: cc, err: "this looks like a claude-code session: use --from auto", code: 1},
		{from: Ctx, data: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, err: "this looks like an openai-chat log: use --from auto", code: 1},
		{from: OpenAIChat, data: own, err: "this is a ctx execution log, not an openai-chat log", code: 1},
		{from: Codex, data: cc, err: "this is a claude-code session, not a codex session", code: 1},
		{from: Inspect, data: cc, err: "this is a claude-code session, not an inspect log", code: 1},
		{from: "yaml", data: own, err: "yaml: unknown format; use ctx, auto, aider, anthropic, atif, claude-code, codex, copilot-cli, gemini-cli, inspect, langsmith, openai-chat, openai-responses, opencode, otel-genai", code: 3},
	}
	for _, tt := range tests {
		got, err := Choose(tt.from, "in", []byte(tt.data))
		if tt.err == "" {
			if err != nil || got != tt.want {
				t.Errorf("Choose(%s, %.30q) = %q, %v; want %q", tt.from, tt.data, got, err, tt.want)
			}
			continue
		}
		var coder interface{ ExitCode() int }
		if err == nil || err.Error() != tt.err || !errors.As(err, &coder) || coder.ExitCode() != tt.code {
			t.Errorf("Choose(%s, %.30q) error = %v, want %q (exit %d)", tt.from, tt.data, err, tt.err, tt.code)
		}
	}
}

// TestNotThisFormat: an empty object is no log of any format; it is an
// error (exit 1) saying so, not an empty run.
func TestNotThisFormat(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		ClaudeCode:      "claude-code: not a claude-code session: no line is a user, assistant or summary record",
		Codex:           "codex: not a codex session: no line is a session_meta, turn_context or response_item record",
		Anthropic:       "anthropic: not an anthropic exchange: expected a request with messages or system, or a response",
		OpenAIChat:      "openai-chat: not an openai-chat exchange: expected a request with messages or prompt, or a response",
		OpenAIResponses: "openai-responses: not an openai-responses exchange: expected a request with input or instructions, or a response",
	}
	for _, f := range Formats() {
		for _, in := range []string{"{}", "{}\n{}\n", `[{}]`, `{"type":"x"}`} {
			out, _, err := Import(f, []byte(in), Options{})
			var ie *Error
			if !errors.As(err, &ie) || ie.ExitCode() != 1 {
				t.Errorf("%s: Import(%q) = %s, %v; want an error", f, in, out, err)
				continue
			}
			if w, ok := want[f]; ok && in == "{}" && err.Error() != w {
				t.Errorf("%s: error = %q\nwant %q", f, err, w)
			}
		}
	}
}
