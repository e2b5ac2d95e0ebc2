package formats_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

func TestMalformed(t *testing.T) {
	tests := []struct {
		file, format string
		want         string // the whole error message
	}{
		{"claude-code/malformed.jsonl", claudecode.Name, "claude-code: line 3: invalid JSON: unexpected end of JSON input (column 122)"},
		{"claude-code/badmessage.jsonl", claudecode.Name, "claude-code: line 2: message: expected an object, got a string"},
		{"codex/malformed.jsonl", codex.Name, "codex: line 2: payload: expected an item object, got a string"},
		{"openai-chat/malformed.json", importer.OpenAIChat, "openai-chat: [1].request.messages: expected an array of messages, got an object"},
		{"openai-responses/malformed.jsonl", importer.OpenAIResponses, "openai-responses: line 2: response.output: expected an array, got an object"},
		{"anthropic/malformed.json", importer.Anthropic, "anthropic: request.messages[0].content: expected a string or an array of content parts, got a number"},
		{"otel-genai/malformed.json", importer.OTelGenAI, "otel-genai: resourceSpans[0].scopeSpans[0].spans[1].attributes[0]: attribute has no key"},
		{"inspect/malformed.json", importer.Inspect, "inspect: samples[1].messages[2].tool_calls: expected an array, got an object"},
		{"langsmith/malformed.json", importer.LangSmith, "langsmith: post[1]: run has neither id nor dotted_order"},
	}
	tree := sharedtest.FixtureTree(t, "..", formats.Formats())
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(tree, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := formats.Import(tt.format, data, importer.Options{})
			if err == nil {
				t.Fatalf("no error; imported:\n%s", out)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q\nwant    %q", err, tt.want)
			}
			var ie *importer.Error
			if !errors.As(err, &ie) || ie.ExitCode() != 1 {
				t.Errorf("error %T is not an *Error with exit code 1", err)
			}
		})
	}
}

// TestMalformedDocuments covers input that is not JSON at all, in every
// format: the error names the line (and column).
func TestMalformedDocuments(t *testing.T) {
	for _, f := range formats.Formats() {
		for _, in := range []string{"{\"a\":\n  [1, 2,\n  }", "not json"} {
			_, _, err := formats.Import(f, []byte(in), importer.Options{})
			var ie *importer.Error
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "line ") {
				t.Errorf("%s: Import(%q) error = %v, want one naming the line", f, in, err)
			}
		}
	}
}
