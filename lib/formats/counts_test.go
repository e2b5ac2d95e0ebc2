package formats_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// sampleCounts are, for each shared sample, the numbers counted by hand in
// the source (with jq): tool calls (and results whose call the log lacks,
// which become steps of their own), tool results, failed calls, and the
// sum of each token counter over the model turns (a Claude Code message
// split over lines counted once, with its last line's usage).
var sampleCounts = map[string]struct {
	tools, results, errors int
	usage                  map[string]int
}{
	"claude-code/simonw-sample-session.jsonl": {2, 2, 0, nil},
	"claude-code/spotter-short.jsonl": {2, 2, 2, map[string]int{
		"input_tokens": 3, "output_tokens": 13, "cache_read_tokens": 11515, "cache_creation_tokens": 13835}},
	"claude-code/spotter-tool-heavy.jsonl": {6, 6, 0, map[string]int{
		"input_tokens": 54, "output_tokens": 212, "cache_read_tokens": 88231, "cache_creation_tokens": 17696}},
	"codex-cli/simonw-sample-codex-session.jsonl": {0, 0, 0, nil},
	"openai-chat/agentops-openai_chat_tool_calls.json": {1, 0, 0, map[string]int{
		"input_tokens": 97, "output_tokens": 23, "total_tokens": 120, "cache_read_tokens": 0, "reasoning_tokens": 0}},
	"openai-chat/otel-js-nock-chat-tool-calls.json": {2, 2, 0, map[string]int{
		"input_tokens": 182, "output_tokens": 73, "total_tokens": 255, "cache_read_tokens": 0, "reasoning_tokens": 0}},
	"openai-chat/otel-js-nock-chat-tool-calls.decoded.json": {2, 2, 0, map[string]int{
		"input_tokens": 182, "output_tokens": 73, "total_tokens": 255, "cache_read_tokens": 0, "reasoning_tokens": 0}},
	"openai-responses/agentops-openai_response_tool_calls.json": {1, 0, 0, map[string]int{
		"input_tokens": 287, "output_tokens": 20, "total_tokens": 307, "cache_read_tokens": 0, "reasoning_tokens": 0}},
	"openai-responses/otel-js-nock-responses-function-call-outputs.json": {1, 1, 0, map[string]int{
		"input_tokens": 50, "output_tokens": 12, "total_tokens": 62, "cache_read_tokens": 0, "reasoning_tokens": 0}},
	"openai-responses/otel-js-nock-responses-function-calls.json": {3, 0, 0, map[string]int{
		"input_tokens": 291, "output_tokens": 23, "total_tokens": 314, "reasoning_tokens": 0}},
	"anthropic-messages/otel-py-anthropic-thinking.json": {0, 0, 0, map[string]int{
		"input_tokens": 46, "output_tokens": 417, "cache_read_tokens": 0, "cache_creation_tokens": 0}},
	"anthropic-messages/otel-py-anthropic-tool-use.json": {1, 0, 0, map[string]int{
		"input_tokens": 386, "output_tokens": 34, "cache_read_tokens": 0, "cache_creation_tokens": 0}},
	"anthropic-messages/otel-py-bedrock-claude-tool-call-roundtrip.json": {2, 2, 0, map[string]int{
		"input_tokens": 996, "output_tokens": 281}},
	"otel-genai/any-agent-OPENAI_trace.json":      {2, 2, 0, map[string]int{"input_tokens": 1020, "output_tokens": 76}},
	"otel-genai/any-agent-LANGCHAIN_trace.json":   {2, 2, 0, map[string]int{"input_tokens": 1262, "output_tokens": 125}},
	"otel-genai/otlp-js-openai-chat.logs.jsonl":   {2, 2, 0, nil},
	"otel-genai/otlp-js-openai-chat.traces.jsonl": {0, 0, 0, map[string]int{"input_tokens": 182, "output_tokens": 73}},
	"otel-genai/otlp-js-openai-resp.logs.jsonl":   {1, 1, 0, nil},
	"otel-genai/otlp-js-openai-resp.traces.jsonl": {0, 0, 0, map[string]int{"input_tokens": 50, "output_tokens": 12}},
	"inspect-ai/log_message_deduplication.eval":   {5, 5, 0, nil},
	"inspect-ai/log_read_sample.json":             {0, 0, 0, map[string]int{"input_tokens": 66, "output_tokens": 3, "total_tokens": 69}},
	"inspect-ai/log_tool_call_error.json":         {11, 11, 11, nil},
	"langsmith/langsmith_js_wrap_openai_default.json": {0, 0, 0, map[string]int{
		"input_tokens": 9, "output_tokens": 9, "total_tokens": 18, "cache_read_tokens": 0, "reasoning_tokens": 0}},
	"langsmith/langsmith_py_wrap_openai_.json": {0, 0, 0, map[string]int{
		"input_tokens": 9, "output_tokens": 9, "total_tokens": 18, "cache_read_tokens": 0, "reasoning_tokens": 0}},
	"langsmith/langsmith_py_wrap_openai_reasoning.json": {0, 0, 0, map[string]int{
		"input_tokens": 43, "output_tokens": 2497, "total_tokens": 2540, "cache_read_tokens": 0, "reasoning_tokens": 1408}},
}

// TestSampleCounts: on every shared sample, no tool result of the source
// is missing from the log, no call is doubled, and the failures and token
// counts are the source's.
func TestSampleCounts(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t, "agent-logs")
	if len(sampleCounts) != len(samples) {
		t.Errorf("%d samples counted, %d known", len(sampleCounts), len(samples))
	}
	for _, sm := range samples {
		t.Run(sm.file, func(t *testing.T) {
			t.Parallel()
			want, ok := sampleCounts[sm.file]
			if !ok {
				t.Fatal("not counted")
			}
			data, err := os.ReadFile(filepath.Join(dir, sm.file))
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := formats.Import(sm.format, data, importer.Options{Name: filepath.Base(sm.file)})
			if err != nil {
				t.Fatal(err)
			}
			tools, results, errs, usage := importtest.Tally(t, importtest.Decode(t, out))
			if tools != want.tools || results != want.results || errs != want.errors {
				t.Errorf("%d tool steps, %d results, %d errors; want %d, %d, %d", tools, results, errs, want.tools, want.results, want.errors)
			}
			if !reflect.DeepEqual(usage, want.usage) {
				t.Errorf("usage = %v\nwant    %v", usage, want.usage)
			}
		})
	}
}
