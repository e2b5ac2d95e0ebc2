package formats_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/agent/gemini"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

// TestEmpty: an input without records is an error, not an empty run.
func TestEmpty(t *testing.T) {
	for _, f := range formats.Formats() {
		for _, in := range []string{"", "\n\n", "[]"} {
			_, _, err := formats.Import(f, []byte(in), importer.Options{})
			var ie *importer.Error
			if !errors.As(err, &ie) {
				t.Errorf("%s: formats.Import(%q) error = %v", f, in, err)
			}
		}
	}
	if _, _, err := formats.Import(claudecode.Name, []byte("\n"), importer.Options{}); err == nil || !strings.HasSuffix(err.Error(), "the input holds no records") {
		t.Errorf("error = %v", err)
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"", `{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"x"}}` + "\n{}", claudecode.Name},
		{"", `{"timestamp":"t","type":"session_meta","payload":{}}`, codex.Name},
		{"", `{"resourceLogs":[]}`, importer.OTelGenAI},
		{"", `[{"name":"chat","context":{"span_id":1},"attributes":{}}]`, importer.OTelGenAI},
		{"", `{"post":[],"patch":[]}`, importer.LangSmith},
		{"", `{"id":"r","run_type":"llm","inputs":{}}`, importer.LangSmith},
		{"", `{"version":2,"status":"success","eval":{},"samples":[]}`, importer.Inspect},
		{"x.eval", `anything`, importer.Inspect},
		{"", "PK\x03\x04rest", importer.Inspect},
		{"", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, importer.OpenAIChat},
		{"", `{"model":"m","max_tokens":5,"system":"s","messages":[{"role":"user","content":"hi"}]}`, importer.Anthropic},
		{"", `{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"y"}]}]}`, importer.Anthropic},
		{"", `{"model":"m","input":"hi"}`, importer.OpenAIResponses},
		{"", `{"id":"r","object":"response","output":[]}`, importer.OpenAIResponses},
		{"", `{"custom_id":"1","response":{"status_code":200,"body":{"object":"chat.completion","choices":[]}}}`, importer.OpenAIChat},
		{"", `[{"scope":"https://api.anthropic.com:443","method":"POST","path":"/v1/messages","body":{}}]`, importer.Anthropic},
		{"", "{\n  \"request\": {\"model\": \"m\", \"input\": []},\n  \"response\": {\"object\": \"response\"}\n}", importer.OpenAIResponses},
	}
	for _, tt := range tests {
		got, err := formats.Detect(tt.name, []byte(tt.data))
		if got != tt.want || err != nil {
			t.Errorf("formats.Detect(%q, %.50q) = %q, %v; want %q", tt.name, tt.data, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "hello", `{"a":1}`, `[1,2]`, `{"type":"user"}`} {
		_, err := formats.Detect("in.json", []byte(bad))
		var de *importer.DetectError
		if !errors.As(err, &de) || de.ExitCode() != 1 {
			t.Errorf("formats.Detect(%q) error = %v, want a *importer.DetectError", bad, err)
			continue
		}
		for _, f := range formats.Formats() {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("formats.Detect(%q) error %q does not list %s", bad, err, f)
			}
		}
	}
	for data, reason := range map[string]string{"": "it is empty", " \n\n": "it is empty", "hello": "it is not JSON"} {
		if _, err := formats.Detect("in.json", []byte(data)); err == nil || !strings.Contains(err.Error(), "("+reason+")") {
			t.Errorf("formats.Detect(%q) error = %v, want the reason %q", data, err, reason)
		}
	}
}

func TestFormats(t *testing.T) {
	want := []string{"aider", "anthropic", "atif", "claude-code", "codex", "copilot-cli", "gemini-cli", "inspect", "langsmith", "openai-chat", "openai-responses", "opencode", "otel-genai"}
	if got := formats.Formats(); !reflect.DeepEqual(got, want) {
		t.Errorf("formats.Formats() = %q", got)
	}
	if _, _, err := formats.Import("auto", []byte("{}"), importer.Options{}); err == nil {
		t.Error("formats.Import(auto) did not fail")
	}
}

func TestChoose(t *testing.T) {
	const cc = `{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"x"}}`
	const own = `{"model":{"identifier":"m"},"steps":[]}`
	tests := []struct {
		from, data, want, err string
		code                  int
	}{
		{from: importer.Ctx, data: own, want: importer.Ctx},
		{from: importer.Auto, data: own, want: importer.Ctx},
		{from: importer.Auto, data: cc, want: claudecode.Name},
		{from: claudecode.Name, data: cc, want: claudecode.Name},
		{from: importer.Ctx, data: `{"model":"m"}`, want: importer.Ctx}, // not recognisable: ctx's schema will say why
		{from: importer.Ctx, data: cc, err: "this looks like a claude-code session: use --from auto", code: 1},
		{from: importer.Ctx, data: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, err: "this looks like an openai-chat log: use --from auto", code: 1},
		{from: importer.OpenAIChat, data: own, err: "this is a ctx execution log, not an openai-chat log", code: 1},
		{from: codex.Name, data: cc, err: "this is a claude-code session, not a codex session", code: 1},
		{from: importer.Inspect, data: cc, err: "this is a claude-code session, not an inspect log", code: 1},
		{from: "yaml", data: own, err: "yaml: unknown format; use ctx, auto, aider, anthropic, atif, claude-code, codex, copilot-cli, gemini-cli, inspect, langsmith, openai-chat, openai-responses, opencode, otel-genai", code: 3},
	}
	for _, tt := range tests {
		got, err := formats.Choose(tt.from, "in", []byte(tt.data))
		if tt.err == "" {
			if err != nil || got != tt.want {
				t.Errorf("formats.Choose(%s, %.30q) = %q, %v; want %q", tt.from, tt.data, got, err, tt.want)
			}
			continue
		}
		var coder interface{ ExitCode() int }
		if err == nil || err.Error() != tt.err || !errors.As(err, &coder) || coder.ExitCode() != tt.code {
			t.Errorf("formats.Choose(%s, %.30q) error = %v, want %q (exit %d)", tt.from, tt.data, err, tt.err, tt.code)
		}
	}
}

// TestNotThisFormat: an empty object is no log of any format; it is an
// error (exit 1) saying so, not an empty run.
func TestNotThisFormat(t *testing.T) {
	want := map[string]string{
		claudecode.Name:          "claude-code: not a claude-code session: no line is a user, assistant or summary record",
		codex.Name:               "codex: not a codex session: no line is a session_meta, turn_context or response_item record",
		importer.Anthropic:       "anthropic: not an anthropic exchange: expected a request with messages or system, or a response",
		importer.OpenAIChat:      "openai-chat: not an openai-chat exchange: expected a request with messages or prompt, or a response",
		importer.OpenAIResponses: "openai-responses: not an openai-responses exchange: expected a request with input or instructions, or a response",
	}
	for _, f := range formats.Formats() {
		for _, in := range []string{"{}", "{}\n{}\n", `[{}]`, `{"type":"x"}`} {
			out, _, err := formats.Import(f, []byte(in), importer.Options{})
			var ie *importer.Error
			if !errors.As(err, &ie) || ie.ExitCode() != 1 {
				t.Errorf("%s: formats.Import(%q) = %s, %v; want an error", f, in, out, err)
				continue
			}
			if w, ok := want[f]; ok && in == "{}" && err.Error() != w {
				t.Errorf("%s: error = %q\nwant %q", f, err, w)
			}
		}
	}
}

// Logs of formats ctx does not import are named, whatever --from says.
func TestNotImported(t *testing.T) {
	for _, tt := range []struct{ data, what string }{
		{`[{"sessionId":"s","messageId":0,"type":"user","message":"hi","timestamp":"2026-05-01T10:00:00Z"}]`, "a Gemini CLI prompt log (logs.json)"},
	} {
		_, err := formats.Detect("", []byte(tt.data))
		var u *importer.UnsupportedError
		if !errors.As(err, &u) || u.What != tt.what || u.ExitCode() != 1 || err.Error() != "this looks like "+tt.what+": not supported" {
			t.Errorf("%s: Detect error %v, want %q", tt.data, err, tt.what)
		}
		for _, from := range []string{importer.Ctx, importer.Auto, importer.OpenAIChat} {
			if _, err := formats.Choose(from, "x.json", []byte(tt.data)); !errors.As(err, &u) {
				t.Errorf("%s: formats.Choose(%s) = %v", tt.data, from, err)
			}
		}
	}
	// Gemini CLI's chats and checkpoints, which look alike Chat
	// Completions logs, are its own.
	for _, data := range []string{
		`{"sessionId":"s","projectHash":"ab","startTime":"2026-05-01T10:00:00Z","lastUpdated":"2026-05-01T10:00:00Z","messages":[{"id":"1","timestamp":"2026-05-01T10:00:00Z","type":"user","content":"hi"}]}`,
		`{"messages":[{"id":"1","timestamp":"2026-05-01T10:00:00Z","type":"gemini","content":"hi","model":"gemini-2.5-pro"}]}`,
		`[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"hello"}]}]`,
	} {
		if f, err := formats.Detect("", []byte(data)); f != gemini.Name {
			t.Errorf("%s: Detect = %q, %v", data, f, err)
		}
		if _, _, err := formats.Import(gemini.Name, []byte(data), importer.Options{}); err != nil {
			t.Errorf("%s: %v", data, err)
		}
	}
	// A Chat Completions request is still one.
	if f, err := formats.Detect("", []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`)); f != importer.OpenAIChat {
		t.Errorf("a chat request: %q, %v", f, err)
	}
}
