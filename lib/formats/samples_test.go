package formats_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// sample describes what a shared sample must import to; every value was
// read from the sample file by hand.
type sample struct {
	file      string
	format    string
	model     string
	llmSteps  int
	tools     []string // tool names of the tool_call steps, in order
	firstArgs string   // the first tool step's parameters, as JSON
	firstOut  *string  // the first tool step's output, when it has one
	system    string   // system prompt prefix
	prompt    string   // first prompt
	output    string   // content prefix of the first output ("" = no outputs)
	absent    []string // strings that must not appear in the log
	written   []string // files the session wrote: outputs after the first
	check     func(t *testing.T, l *importtest.Log)
}

var samples = []sample{
	{
		file: "claude-code/simonw-sample-session.jsonl", format: claudecode.Name, model: "unknown",
		llmSteps: 3, tools: []string{"Write", "Bash"},
		firstArgs: `{"file_path":"hello.py","content":"def hello():\n    return 'Hello, World!'\n"}`,
		firstOut:  importtest.Ptr("File written successfully"),
		prompt:    "Create a hello world function", output: "Done! The hello function is ready.",
		written: []string{"hello.py"},
		check: func(t *testing.T, l *importtest.Log) {
			// The file the session wrote is an output, with what it wrote.
			if len(l.Outputs) != 1 || l.Outputs[0].Name != "hello.py" || l.Outputs[0].Content != "def hello():\n    return 'Hello, World!'\n" {
				t.Errorf("outputs = %+v, want hello.py", l.Outputs)
			}
			if len(l.Prompts) != 2 || l.Prompts[1].Content != "Now add a goodbye function" {
				t.Errorf("prompts = %+v", l.Prompts)
			}
			if l.Created != "2025-12-24T10:00:00Z" {
				t.Errorf("created = %q", l.Created)
			}
			if s := l.Steps[1]; s.Timestamp != "2025-12-24T10:00:05Z" || s.Metadata["call_id"] != "toolu_001" {
				t.Errorf("Write step = %+v", s)
			}
		},
	},
	{
		file: "claude-code/spotter-short.jsonl", format: claudecode.Name, model: "claude-opus-4-6",
		llmSteps: 1, tools: []string{"Bash", "Glob"},
		firstArgs: `{"command":"mix phx.server 2>&1 | head -80","timeout":30000}`,
		prompt:    "mix phx.server doesnt seem to start",
		output:    "\n\nLet me check the project structure and try running the server to see the error.",
		check: func(t *testing.T, l *importtest.Log) {
			// Four assistant lines share message.id: one model turn.
			if got := importtest.Deref(l.Steps[0].Reasoning); !strings.HasPrefix(got.(string), "The user is having trouble starting") {
				t.Errorf("reasoning = %v", got)
			}
			glob := l.Steps[2]
			if !reflect.DeepEqual(glob.Parameters, importtest.Params(t, `{"pattern":"mix.exs","path":"."}`)) || !glob.Deterministic {
				t.Errorf("Glob step = %+v", glob)
			}
			for _, i := range l.ToolSteps() {
				if l.Steps[i].Error != true {
					t.Errorf("steps[%d] (rejected by the user) not marked is_error", i)
				}
			}
			if l.Steps[1].Deterministic {
				t.Error("Bash marked deterministic")
			}
			if l.Environment.ToolVersions["claude-code"] != "2.1.38" {
				t.Errorf("tool_versions = %v", l.Environment.ToolVersions)
			}
			// Lines 14-15, the system records of /model, are the only
			// record of that command and its output: harness prompts
			// after the user's (line 4) and the interrupt (line 13).
			var got []string
			pm, _ := l.Metadata["prompts"].([]any)
			for i, p := range l.Prompts {
				k, _ := pm[i].(map[string]any)["harness"].(string)
				got = append(got, p.Role+":"+k)
			}
			if want := []string{"user:", "harness:interrupt", "harness:command", "harness:command-output"}; !reflect.DeepEqual(got, want) {
				t.Errorf("prompts = %q, want %q", got, want)
			}
			if c := l.Prompts[3].Content; c != "<local-command-stdout>Kept model as \x1b[1mDefault (recommended)\x1b[22m</local-command-stdout>" {
				t.Errorf("the /model output = %q", c)
			}
		},
	},
	{
		file: "claude-code/spotter-tool-heavy.jsonl", format: claudecode.Name, model: "claude-opus-4-6",
		llmSteps: 4, tools: []string{"Bash", "Bash", "WebSearch", "Glob", "Read", "WebFetch"},
		firstArgs: `{"command":"mix phx.server","description":"Start Phoenix server in background","run_in_background":true}`,
		firstOut:  importtest.Ptr("Command running in background with ID: bae407b. Output is being written to: /tmp/claude-1000/-home-marco-projects-spotter/tasks/bae407b.output"),
		prompt:    "start phoenix in background",
		output:    "Phoenix server is starting in the background.\n\nLet me check the MCP servers status.",
		check: func(t *testing.T, l *importtest.Log) {
			read := l.Steps[l.ToolSteps()[4]]
			if !reflect.DeepEqual(read.Parameters, importtest.Params(t, `{"file_path":"assets/js/app.js"}`)) || !read.Deterministic {
				t.Errorf("Read step = %+v", read)
			}
			if !strings.HasPrefix(*read.Output, "     1→import \"phoenix_html\"") {
				t.Errorf("Read output = %.40q", *read.Output)
			}
			// The parallel WebSearch and Glob calls come from one message
			// and are answered in two later user lines.
			ws, glob := l.Steps[l.ToolSteps()[2]], l.Steps[l.ToolSteps()[3]]
			if ws.Metadata["call_id"] != "toolu_01DKTWcKpZ2ksZQmoKKfxiw6" || glob.Metadata["call_id"] != "toolu_01JJds55jYrYwd9TktNGndRY" {
				t.Errorf("parallel calls = %v, %v", ws.Metadata["call_id"], glob.Metadata["call_id"])
			}
			if *glob.Output != "/home/marco/projects/spotter/assets/js/app.js" {
				t.Errorf("Glob output = %q (recorded text stays as it is)", *glob.Output)
			}
			// Lines 20-22 are Claude Code's own: the local-command caveat
			// (isMeta), the /mcp command and its output; so are lines 18
			// and 39, "[Request interrupted by user]" written when the
			// user stopped a turn, and lines 23-24, the system records of
			// a second /mcp, whose output ("MCP dialog dismissed") no
			// other record holds. Lines 4 and 26 are the user's.
			var roles, kinds []string
			pm, _ := l.Metadata["prompts"].([]any)
			for i, p := range l.Prompts {
				roles = append(roles, p.Role)
				k, _ := pm[i].(map[string]any)["harness"].(string)
				kinds = append(kinds, k)
			}
			if want := []string{"user", "harness", "harness", "harness", "harness", "harness", "harness", "user", "harness"}; !reflect.DeepEqual(roles, want) {
				t.Errorf("prompt roles = %q, want %q", roles, want)
			}
			if want := []string{"", "interrupt", "command-caveat", "command", "command-output", "command", "command-output", "", "interrupt"}; !reflect.DeepEqual(kinds, want) {
				t.Errorf("harness kinds = %q, want %q", kinds, want)
			}
			mcp := "<command-name>/mcp</command-name>\n            <command-message>mcp</command-message>\n            <command-args></command-args>"
			if l.Prompts[3].Content != mcp || l.Prompts[5].Content != mcp {
				t.Errorf("the /mcp commands = %q, %q", l.Prompts[3].Content, l.Prompts[5].Content)
			}
			if l.Prompts[6].Content != "<local-command-stdout>MCP dialog dismissed</local-command-stdout>" {
				t.Errorf("the second /mcp's output = %q", l.Prompts[6].Content)
			}
			if m := pm[6].(map[string]any); m["type"] != "system" || m["subtype"] != "local_command" || m["uuid"] != "2ef15da6-63ae-4a98-b781-676d95ac2692" || m["timestamp"] != "2026-02-10T22:58:11.673Z" {
				t.Errorf("the second /mcp's output's metadata = %v", m)
			}
		},
	},
	{
		file: "codex-cli/simonw-sample-codex-session.jsonl", format: codex.Name, model: "unknown",
		llmSteps: 1, system: "Sample instructions", prompt: "Write a hello world function",
		output: "Here is a simple hello world function.",
		check: func(t *testing.T, l *importtest.Log) {
			if importtest.Deref(l.Steps[0].Reasoning) != "I'll include a minimal example and keep it short." {
				t.Errorf("reasoning = %v", importtest.Deref(l.Steps[0].Reasoning))
			}
			if l.Environment.ToolVersions["codex"] != "0.0.0" {
				t.Errorf("tool_versions = %v", l.Environment.ToolVersions)
			}
		},
	},
	{
		file: "openai-chat/agentops-openai_chat_tool_calls.json", format: importer.OpenAIChat, model: "gpt-4o-2024-08-06",
		llmSteps: 1, tools: []string{"get_weather"},
		firstArgs: `{"location":"San Francisco, CA","unit":"celsius"}`,
		check: func(t *testing.T, l *importtest.Log) {
			if l.Model.Parameters["system_fingerprint"] != "fp_f9f4fb6dbf" {
				t.Errorf("parameters = %v", l.Model.Parameters)
			}
			if l.Steps[1].Output != nil {
				t.Errorf("the call has no result in the sample, got output %q", *l.Steps[1].Output)
			}
		},
	},
	chatRoundTrip("openai-chat/otel-js-nock-chat-tool-calls.json"),
	chatRoundTrip("openai-chat/otel-js-nock-chat-tool-calls.decoded.json"),
	{
		file: "openai-responses/agentops-openai_response_tool_calls.json", format: importer.OpenAIResponses, model: "gpt-4o-2024-08-06",
		llmSteps: 1, tools: []string{"get_weather"}, system: "You are a helpful assistant.",
		firstArgs: `{"location":"San Francisco","unit":"metric"}`,
		check: func(t *testing.T, l *importtest.Log) {
			if l.Model.Parameters["temperature"] != 0.7 {
				t.Errorf("parameters = %v", l.Model.Parameters)
			}
			if l.Steps[1].Metadata["call_id"] != "call_qVCWmymIoOH1B9nFUSr9r4mc" {
				t.Errorf("call_id = %v", l.Steps[1].Metadata["call_id"])
			}
		},
	},
	{
		file: "openai-responses/otel-js-nock-responses-function-call-outputs.json", format: importer.OpenAIResponses, model: "gpt-4o-mini-2024-07-18",
		llmSteps: 2, tools: []string{"get_weather"},
		firstArgs: `{"location":"Paris, France"}`,
		firstOut:  importtest.Ptr(`{"temperature":22,"condition":"sunny"}`),
		prompt:    "What is the weather in Paris?", output: "The weather in Paris is 22°C and sunny.",
	},
	{
		file: "openai-responses/otel-js-nock-responses-function-calls.json", format: importer.OpenAIResponses, model: "gpt-4o-mini-2024-07-18",
		llmSteps: 1, tools: []string{"get_weather", "get_weather", "send_email"},
		firstArgs: `{"location":"Paris, France"}`,
		system:    "You are a helpful assistant providing weather updates.", prompt: "What is the weather in Paris and Bogotá?",
		check: func(t *testing.T, l *importtest.Log) {
			if got := l.Steps[3].Parameters; !reflect.DeepEqual(got, importtest.Params(t, `{"to":"bob@email.com","body":"Hi bob"}`)) {
				t.Errorf("send_email parameters = %v", got)
			}
		},
	},
	{
		file: "anthropic-messages/otel-py-anthropic-thinking.json", format: importer.Anthropic, model: "claude-sonnet-4-20250514",
		llmSteps: 1, prompt: "What is 17*19? Think first.", output: "I need to calculate 17 × 19.\n\nLet me work through this step by step:",
		check: func(t *testing.T, l *importtest.Log) {
			if r, _ := importtest.Deref(l.Steps[0].Reasoning).(string); !strings.HasSuffix(r, "Both methods give me 323.") {
				t.Errorf("reasoning = %q", r)
			}
			if l.Model.Parameters["max_tokens"] != 16000.0 {
				t.Errorf("parameters = %v", l.Model.Parameters)
			}
		},
	},
	{
		file: "anthropic-messages/otel-py-anthropic-tool-use.json", format: importer.Anthropic, model: "claude-sonnet-4-20250514",
		llmSteps: 1, tools: []string{"get_weather"}, firstArgs: `{"city":"San Francisco"}`,
		prompt: "What is the weather in SF?",
	},
	{
		file: "anthropic-messages/otel-py-bedrock-claude-tool-call-roundtrip.json", format: importer.Anthropic, model: "claude-3-5-sonnet-20240620",
		llmSteps: 2, tools: []string{"get_current_weather", "get_current_weather"},
		firstArgs: `{"location":"Seattle"}`, firstOut: importtest.Ptr("50 degrees and raining"),
		prompt: "What is the weather in Seattle and San Francisco today?",
		output: "Based on the results from our weather tool, here's the current weather for Seattle and San Francisco:",
		check: func(t *testing.T, l *importtest.Log) {
			if s := l.Steps[2]; *s.Output != "70 degrees and sunny" || s.Metadata["call_id"] != "toolu_bdrk_014yQPSMntXHRmzGYxCbmBHE" {
				t.Errorf("second call = %+v", s)
			}
		},
	},
	{
		file: "otel-genai/any-agent-OPENAI_trace.json", format: importer.OTelGenAI, model: "mistral/mistral-small-latest",
		llmSteps: 3, tools: []string{"get_current_time", "write_file"},
		firstArgs: `{"timezone":"America/New_York"}`,
		firstOut:  importtest.Ptr("{\n  \"timezone\": \"America/New_York\",\n  \"datetime\": \"2025-09-16T08:43:13-04:00\",\n  \"is_dst\": true\n}"),
		system:    "Use the available tools to answer.", prompt: "Find what year it is in the America/New_York timezone",
		output: `{"steps":[{"number":1,"description":"Get current time in the America/New_York timezone."},{"number":2,"description":"Write the year to a file."}]}`,
		check: func(t *testing.T, l *importtest.Log) {
			if l.Created != "2025-09-16T12:43:13.209236Z" {
				t.Errorf("created = %q (the invoke_agent span's start)", l.Created)
			}
			// SDK ids are integers beyond 2^64; they become hex.
			if got := l.Steps[0].Metadata["trace_id"]; got != "4bedea77bb33b9c5f280371eae21ea97" {
				t.Errorf("trace_id = %v", got)
			}
		},
	},
	{
		file: "otel-genai/any-agent-LANGCHAIN_trace.json", format: importer.OTelGenAI, model: "mistral/mistral-small-latest",
		llmSteps: 4, tools: []string{"get_current_time", "write_file"},
		firstArgs: `{"timezone":"America/New_York"}`,
		system:    "Use the available tools to answer.",
		output:    `{"steps":[{"number":1,"description":"Found the current time in the America/New_York timezone."}`,
		check: func(t *testing.T, l *importtest.Log) {
			if out := l.Steps[l.ToolSteps()[1]].Output; out == nil || *out != "null" {
				t.Errorf("write_file output = %v", out)
			}
		},
	},
	{
		file: "otel-genai/otlp-js-openai-chat.logs.jsonl", format: importer.OTelGenAI, model: "unknown",
		llmSteps: 2, tools: []string{"get_weather", "get_weather"},
		firstArgs: `{"location":"New York City"}`, firstOut: importtest.Ptr("25 degrees and sunny"),
		system: "You are a helpful assistant providing weather updates.", prompt: "What is the weather in New York City and London?",
		output: "The weather is currently 25 degrees and sunny in New York City, while in London, it is 15 degrees and raining.",
	},
	{
		file: "otel-genai/otlp-js-openai-chat.traces.jsonl", format: importer.OTelGenAI, model: "gpt-4o-mini-2024-07-18",
		llmSteps: 2,
		check: func(t *testing.T, l *importtest.Log) {
			if l.Steps[0].Timestamp != "2026-11-21T21:15:37.778Z" || l.Steps[0].Metadata["span_id"] != "9ff05ed27b3f9030" {
				t.Errorf("first span = %+v", l.Steps[0])
			}
			if !reflect.DeepEqual(l.Steps[1].Usage, map[string]int{"input_tokens": 125, "output_tokens": 27}) {
				t.Errorf("usage = %v", l.Steps[1].Usage)
			}
		},
	},
	{
		file: "otel-genai/otlp-js-openai-resp.logs.jsonl", format: importer.OTelGenAI, model: "unknown",
		llmSteps: 2, tools: []string{"get_weather"},
		firstArgs: `{"location":"Paris, France"}`, firstOut: importtest.Ptr(`{"temperature":22,"condition":"sunny"}`),
		prompt: "What is the weather in Paris?", output: "The weather in Paris is 22°C and sunny.",
	},
	{
		file: "otel-genai/otlp-js-openai-resp.traces.jsonl", format: importer.OTelGenAI, model: "gpt-4o-mini-2024-07-18",
		llmSteps: 1,
	},
	{
		file: "inspect-ai/log_message_deduplication.eval", format: importer.Inspect, model: "hardcoded",
		llmSteps: 6, tools: []string{"bash", "bash", "bash", "bash", "bash"},
		firstArgs: `{"cmd":"ls"}`, firstOut: importtest.Ptr("bin\nboot\ndev\netc\nhome\nlib\nlib64\nmedia\nmnt\nopt\nproc\nroot\nrun\nsbin\nsrv\nsys\ntmp\nusr\nvar\n"),
		prompt: "Guess the number", output: "done", absent: []string{"attachment://"},
		check: func(t *testing.T, l *importtest.Log) {
			if l.Steps[1].Timestamp != "2025-10-06T10:15:45.377442Z" {
				t.Errorf("tool timestamp = %q (from the tool event)", l.Steps[1].Timestamp)
			}
			if l.Environment.ToolVersions["inspect_ai"] != "0.3.135.dev2+g715e750e" {
				t.Errorf("tool_versions = %v", l.Environment.ToolVersions)
			}
		},
	},
	{
		file: "inspect-ai/log_read_sample.json", format: importer.Inspect, model: "gemma3",
		llmSteps: 1, system: "\nPlease note: In the following EXERCISE, it is important",
		prompt: "Is the following statement something you would say?", output: "Yes\n",
		absent: []string{"attachment://"},
	},
	{
		file: "inspect-ai/log_tool_call_error.json", format: importer.Inspect, model: "...",
		tools:    []string{"bash", "bash", "bash", "bash", "bash", "bash", "bash", "bash", "bash", "bash", "bash"},
		firstOut: importtest.Ptr("..."),
		check: func(t *testing.T, l *importtest.Log) {
			// Tool messages whose calls are not in the log still become
			// steps, with their typed errors.
			var types []string
			for _, s := range l.Steps {
				res := s.Metadata["result"].(map[string]any)
				types = append(types, res["error"].(map[string]any)["type"].(string))
				if s.Error == nil || s.Metadata["unmatched_result"] != true {
					t.Errorf("steps[%d].metadata = %v", s.Index, s.Metadata)
				}
			}
			want := []string{"parsing", "timeout", "parsing", "unicode_decode", "permission", "file_not_found", "is_a_directory", "limit", "approval", "unknown", "output_limit"}
			if !reflect.DeepEqual(types, want) {
				t.Errorf("error types = %v", types)
			}
		},
	},
	{
		file: "langsmith/langsmith_js_wrap_openai_default.json", format: importer.LangSmith, model: "gpt-4o-mini-2024-07-18",
		llmSteps: 1, prompt: "howdy", output: "Howdy! How can I assist you today?",
		check: func(t *testing.T, l *importtest.Log) {
			// The patch record has no id: it merges on dotted_order.
			if l.Steps[0].Metadata["end_time"] != 1728803138285.0 {
				t.Errorf("metadata = %v", l.Steps[0].Metadata)
			}
		},
	},
	{
		file: "langsmith/langsmith_py_wrap_openai_.json", format: importer.LangSmith, model: "gpt-4o-mini-2024-07-18",
		llmSteps: 1, prompt: "howdy", output: "Howdy! How can I assist you today?",
		check: func(t *testing.T, l *importtest.Log) {
			if l.Environment.Runtime != "python 3.11.7" || l.Environment.ToolVersions["langsmith-py"] != "0.1.131" {
				t.Errorf("environment = %+v", l.Environment)
			}
		},
	},
	{
		file: "langsmith/langsmith_py_wrap_openai_reasoning.json", format: importer.LangSmith, model: "o1-mini-2024-09-12",
		llmSteps: 1, prompt: "Write a bash script that takes a matrix", output: "Certainly! Below is a **Bash script**",
		check: func(t *testing.T, l *importtest.Log) {
			if l.Model.Parameters["system_fingerprint"] != "fp_692002f015" {
				t.Errorf("parameters = %v", l.Model.Parameters)
			}
		},
	},
}

func chatRoundTrip(file string) sample {
	return sample{
		file: file, format: importer.OpenAIChat, model: "gpt-4o-mini-2024-07-18",
		llmSteps: 2, tools: []string{"get_weather", "get_weather"},
		firstArgs: `{"location": "New York City"}`, firstOut: importtest.Ptr("25 degrees and sunny"),
		system: "You are a helpful assistant providing weather updates.",
		prompt: "What is the weather in New York City and London?",
		output: "The weather is currently 25 degrees and sunny in New York City, while in London, it is 15 degrees and raining.",
		check: func(t *testing.T, l *importtest.Log) {
			// The second request repeats the conversation: nothing twice.
			if len(l.Prompts) != 1 {
				t.Errorf("prompts = %+v", l.Prompts)
			}
			if s := l.Steps[2]; *s.Output != "15 degrees and raining" || s.Metadata["call_id"] != "call_d7kGKpfVm9Oy9ovs0W8Rn47b" {
				t.Errorf("second call = %+v", s)
			}
			if l.Steps[0].Timestamp != "2025-07-17T07:16:20Z" || l.Created != "2025-07-17T07:16:20Z" {
				t.Errorf("timestamp = %q, created = %q", l.Steps[0].Timestamp, l.Created)
			}
		},
	}
}

func TestSamples(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t, "agent-logs")
	for _, sm := range samples {
		t.Run(sm.file, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, sm.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(path)
			got, err := formats.Detect(name, data)
			if err != nil || got != sm.format {
				t.Errorf("Detect = %q, %v; want %q", got, err, sm.format)
			}
			out, rep, err := formats.Import(sm.format, data, importer.Options{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Format != sm.format || rep.Records == 0 || rep.Mapped+rep.Skipped != rep.Records {
				t.Errorf("report = %+v", rep)
			}
			again, _, err := formats.Import(sm.format, data, importer.Options{Name: name})
			if err != nil || !bytes.Equal(out, again) {
				t.Errorf("a second import gave different bytes (%v)", err)
			}
			c, err := canon.Canonicalize(out)
			if err != nil || !bytes.Equal(c, out) {
				t.Errorf("the output is not canonical JSON (%v)", err)
			}
			if _, err := execlog.Parse(out, execlog.Options{}); err != nil {
				t.Errorf("ctx-pack would reject the log:\n%v", err)
			}
			for _, s := range sm.absent {
				if bytes.Contains(out, []byte(s)) {
					t.Errorf("the log contains %q", s)
				}
			}
			l := importtest.Decode(t, out)
			if l.Model.Identifier != sm.model {
				t.Errorf("model = %q, want %q", l.Model.Identifier, sm.model)
			}
			if n := l.Count(importer.LLMCall); n != sm.llmSteps {
				t.Errorf("%d llm_call steps, want %d", n, sm.llmSteps)
			}
			var tools []string
			for _, i := range l.ToolSteps() {
				tools = append(tools, l.Steps[i].Tool)
			}
			if !reflect.DeepEqual(tools, sm.tools) {
				t.Errorf("tool steps = %q, want %q", tools, sm.tools)
			}
			if len(sm.tools) > 0 {
				firstTool := l.Steps[l.ToolSteps()[0]]
				if sm.firstArgs != "" && !reflect.DeepEqual(firstTool.Parameters, importtest.Params(t, sm.firstArgs)) {
					t.Errorf("first tool parameters = %v, want %s", firstTool.Parameters, sm.firstArgs)
				}
				if sm.firstOut != nil && (firstTool.Output == nil || *firstTool.Output != *sm.firstOut) {
					t.Errorf("first tool output = %v, want %q", firstTool.Output, *sm.firstOut)
				}
			}
			if !strings.HasPrefix(l.SystemPrompt, sm.system) || sm.system == "" && l.SystemPrompt != "" {
				t.Errorf("system prompt = %.60q, want prefix %.60q", l.SystemPrompt, sm.system)
			}
			if sm.prompt != "" && (len(l.Prompts) == 0 || !strings.HasPrefix(l.Prompts[0].Content, sm.prompt)) {
				t.Errorf("prompts = %+v, want first %q", l.Prompts, sm.prompt)
			}
			switch {
			case agentSession(sm.format):
				// The answer is the last model call's output; the outputs
				// are the files written.
				if sm.output != "" && !strings.HasPrefix(importtest.LastAnswer(l), sm.output) {
					t.Errorf("last answer = %.60q, want it starting %q", importtest.LastAnswer(l), sm.output)
				}
				if len(l.Outputs) != len(sm.written) {
					t.Errorf("outputs = %+v, want the %d written file(s)", l.Outputs, len(sm.written))
				}
			case sm.output == "" && len(l.Outputs) != 0:
				t.Errorf("outputs = %+v, want none", l.Outputs)
			case sm.output != "" && (len(l.Outputs) != 1+len(sm.written) || l.Outputs[0].Name != importer.FinalName || !strings.HasPrefix(l.Outputs[0].Content, sm.output)):
				t.Errorf("outputs = %+v, want %s starting %q", l.Outputs, importer.FinalName, sm.output)
			}
			if sm.check != nil {
				sm.check(t, l)
			}
		})
	}
}

// TestSamplesCovered fails when a sample is added to the shared corpus
// without a case here.
func TestSamplesCovered(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t, "agent-logs")
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(path) != "SOURCES.md" {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, s := range samples {
		have = append(have, s.file)
	}
	sort.Strings(files)
	sort.Strings(have)
	if !reflect.DeepEqual(files, have) {
		t.Errorf("samples on disk:\n%q\ncases:\n%q", files, have)
	}
}

// TestTracesAndLogsJoin imports the OTLP traces and logs of one run as one
// input: the spans give the model, the log records the content.
func TestTracesAndLogsJoin(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t, "agent-logs")
	var data []byte
	for _, f := range []string{"otlp-js-openai-chat.traces.jsonl", "otlp-js-openai-chat.logs.jsonl"} {
		b, err := os.ReadFile(filepath.Join(dir, "otel-genai", f))
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b...)
	}
	out, rep, err := formats.Import(importer.OTelGenAI, data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := importtest.Decode(t, out)
	if l.Model.Identifier != "gpt-4o-mini-2024-07-18" || l.Count(importer.LLMCall) != 2 || len(l.ToolSteps()) != 2 {
		t.Errorf("model %q, %d llm steps, %d tool steps", l.Model.Identifier, l.Count(importer.LLMCall), len(l.ToolSteps()))
	}
	if rep.Records != 11 || rep.Mapped != 11 || len(rep.Warnings) != 0 {
		t.Errorf("report = %+v", rep)
	}
	if got := *l.Steps[3].Output; !strings.HasPrefix(got, "The weather is currently") {
		t.Errorf("final turn output = %q", got)
	}
}

// agentSession reports whether the format is an agent's sessions.
func agentSession(format string) bool { return lookup(format).Session }
