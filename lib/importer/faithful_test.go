package importer

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The fixtures of this file each cover a way a real agent's log was
// imported unfaithfully: a result dropped, a call doubled, a fact lost,
// structure flattened or text rewritten.
func init() { fixtures = append(fixtures, faithful...) }

var faithful = []fixture{
	{
		// Anthropic server tools answer within the model's own message:
		// every server_tool_use gets its web_search_tool_result,
		// web_fetch_tool_result, bash_code_execution_tool_result or
		// code_execution_tool_result; an *_error content or a non-zero
		// return_code is a failure. The second request repeats the first
		// turn, which is not added again.
		file: "anthropic/server-tools.json", format: Anthropic, model: "claude-sonnet-4-5-20250929",
		prompts: []string{"What changed in Go 1.26? Then compute 2**100 in bash.", "Thanks. And 3**50?"},
		steps: []wantStep{
			llm(ptr("Searching the release notes.\nGo 1.26 lets new take an expression.\n2**100 = 1267650600228229401496703205376.")),
			tool("web_search", `{"query":"Go 1.26 release notes"}`, ptr(`[{"type":"web_search_result","url":"https://go.dev/doc/go1.26","title":"Go 1.26 Release Notes","encrypted_content":"EqgfCioIARgBIiQ3","page_age":"February 10, 2026"},{"type":"web_search_result","url":"https://go.dev/blog/go1.26","title":"Go 1.26 is released","encrypted_content":"EpMCCioIARgBIiQ4","page_age":null}]`), false),
			tool("web_fetch", `{"url":"https://go.dev/doc/go1.26"}`, ptr(`{"type":"web_fetch_result","url":"https://go.dev/doc/go1.26","retrieved_at":"2026-03-01T09:00:02Z","content":{"type":"document","source":{"type":"text","media_type":"text/plain","data":"Go 1.26 Release Notes\nThe new(expr) form..."},"title":"Go 1.26 Release Notes"}}`), false),
			tool("bash_code_execution", `{"command":"python3 -c 'print(2**100)'"}`, ptr(`{"type":"bash_code_execution_result","stdout":"1267650600228229401496703205376\n","stderr":"","return_code":0,"content":[]}`), false),
			tool("bash_code_execution", `{"command":"cat /tmp/notes.txt"}`, ptr(`{"type":"bash_code_execution_result","stdout":"","stderr":"cat: /tmp/notes.txt: No such file or directory\n","return_code":1,"content":[]}`), true),
			tool("web_search", `{"query":"Go 1.26 new expression"}`, ptr(`{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}`), true),
			llm(ptr("3**50 = 717897987691852588770249.")),
			tool("code_execution", `{"code":"print(3**50)"}`, ptr(`{"type":"code_execution_result","stdout":"717897987691852588770249\n","stderr":"","return_code":0,"content":[]}`), false),
		},
		outputs: map[string]string{FinalName: "3**50 = 717897987691852588770249."},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if got := l.Steps[4].Error; !reflect.DeepEqual(got, map[string]any{"exit_code": 1.0}) {
				t.Errorf("steps[4].error = %v", got)
			}
			if got := l.Steps[5].Error; !reflect.DeepEqual(got, map[string]any{"message": "max_uses_exceeded"}) {
				t.Errorf("steps[5].error = %v", got)
			}
			want := map[string]int{"input_tokens": 2110, "output_tokens": 412, "cache_read_tokens": 0, "cache_creation_tokens": 0}
			if !reflect.DeepEqual(l.Steps[0].Usage, want) {
				t.Errorf("usage = %v", l.Steps[0].Usage)
			}
			if u := l.Steps[0].Metadata["usage"]; !reflect.DeepEqual(u, map[string]any{"server_tool_use": map[string]any{"web_search_requests": 2.0, "web_fetch_requests": 1.0}}) {
				t.Errorf("other counters = %v", u)
			}
			if !reflect.DeepEqual(rep.Warnings, []string(nil)) {
				t.Errorf("warnings = %q", rep.Warnings)
			}
		},
	},
	{
		// A server_tool_use recorded without its id, answered in the same
		// message by a result naming srvtoolu_01: the result is the
		// call's, which takes its id, and the next request's copy of the
		// turn (with the id) is the same turn, not a second one.
		file: "anthropic/server-tool-no-id.json", format: Anthropic, model: "claude-sonnet-4-5-20250929",
		prompts: []string{"Latest Go release?", "Thanks."},
		steps: []wantStep{
			llm(ptr("Go 1.26.")),
			tool("web_search", `{"query":"latest Go release"}`, ptr(`[{"type":"web_search_result","url":"https://go.dev/doc/devel/release","title":"Release History","encrypted_content":"Eq1","page_age":null}]`), false),
			llm(ptr("You're welcome.")),
		},
		outputs: map[string]string{FinalName: "You're welcome."},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if got := l.Steps[1].Metadata["call_id"]; got != "srvtoolu_01" {
				t.Errorf("steps[1] call_id = %v, want srvtoolu_01", got)
			}
		},
	},
	{
		// An OpenAI-compatible endpoint (Gemini's) sends tool calls with
		// "id": ""; the client names them call_0 and call_1 in the next
		// request and reformats their arguments. The copies are the same
		// calls: nothing is doubled and the results join.
		file: "openai-chat/empty-ids.json", format: OpenAIChat, model: "gemini-2.5-flash", system: "Answer briefly.",
		prompts: []string{"Weather in Paris and Rome?"},
		steps: []wantStep{
			llm(nil),
			tool("get_weather", `{"city":"Paris"}`, ptr("18C, sunny"), false),
			tool("get_weather", `{"city":"Rome"}`, ptr("22C, clear"), false),
			llm(ptr("Paris: 18C and sunny. Rome: 22C and clear.")),
		},
		outputs: map[string]string{FinalName: "Paris: 18C and sunny. Rome: 22C and clear."},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if l.Steps[1].Metadata["call_id"] != "call_0" || l.Steps[2].Metadata["call_id"] != "call_1" {
				t.Errorf("call ids = %v, %v", l.Steps[1].Metadata["call_id"], l.Steps[2].Metadata["call_id"])
			}
		},
	},
	{
		// OTel GenAI: the model span lists the call in
		// gen_ai.output.messages without an id; the execute_tool span
		// names it by gen_ai.tool.call.id, and the next model span repeats
		// it with that id. One call, with its result.
		file: "otel-genai/tool-join.json", format: OTelGenAI, model: "gpt-4o-2024-11-20",
		prompts: []string{"Weather in Oslo?"},
		steps: []wantStep{
			llm(nil),
			tool("get_weather", `{"city":"Oslo"}`, ptr("-3C, snow"), false),
			llm(ptr("Oslo: -3C with snow.")),
		},
		outputs: map[string]string{FinalName: "Oslo: -3C with snow."},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if l.Steps[1].Metadata["call_id"] != "call_7Qx" || l.Steps[1].Metadata["span_id"] != nil && l.Steps[1].Metadata["span_id"] != "0000000000000003" {
				t.Errorf("tool step metadata = %v", l.Steps[1].Metadata)
			}
		},
	},
	{
		// Codex: token_count events are the only record of usage (each
		// request's last_token_usage goes to its model turn; a repeated
		// event is not counted twice); commands that exit non-zero fail,
		// as exec_command_end or the output's exit code says; an
		// interrupted turn is kept.
		file: "codex/events.jsonl", format: Codex, model: "gpt-5-codex",
		prompts: []string{"Run the tests and fix what fails", "Stop. Just explain the failure."},
		steps: []wantStep{
			llm(nil),
			tool("shell", `{"command":["bash","-lc","go test ./..."],"workdir":"."}`, ptr(`{"output": "--- FAIL: TestParse\nFAIL\n", "metadata": {"exit_code": 1, "duration_seconds": 1.2}}`), true),
			llm(nil),
			tool("shell", `{"command":["bash","-lc","sed -n 1,5p parse_test.go"],"workdir":"."}`, ptr("Exit code: 0\nWall time: 0.1 seconds\nOutput:\npackage parse\n"), false),
			llm(nil),
			tool("shell", `{"command":["bash","-lc","go vet ./..."],"workdir":"."}`, ptr("Exit code: 2\nWall time: 0.4 seconds\nOutput:\n# parse\n./parse.go:9:2: unreachable code\n"), true),
			llm(nil),
			tool("apply_patch", `"*** Begin Patch\n*** Update File: parse.go\n@@\n-\treturn\n*** End Patch"`, nil, false),
			llm(ptr("TestParse fails because parse.go returns before reading the header.")),
		},
		outputs:  map[string]string{FinalName: "TestParse fails because parse.go returns before reading the header."},
		warnings: []string{"1 tool call(s) have no result"},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			var in, cached, outTok int
			for _, s := range l.Steps {
				in += s.Usage["input_tokens"]
				cached += s.Usage["cache_read_tokens"]
				outTok += s.Usage["output_tokens"]
			}
			if in != 27300 || cached != 24000 || outTok != 350 {
				t.Errorf("usage: %v input (%v cached), %v output; want 27300 (24000), 350", in, cached, outTok)
			}
			if r := deref(l.Steps[8].Reasoning); r != `{"type":"reasoning","id":"rs_9","summary":[],"content":null,"encrypted_content":"gAAAAABoQ2sX"}` {
				t.Errorf("encrypted reasoning = %v", r)
			}
			if ab, _ := l.Steps[6].Metadata["turn_aborted"].(map[string]any); ab["reason"] != "interrupted" {
				t.Errorf("turn metadata = %v", l.Steps[6].Metadata)
			}
			ok := l.Steps[3].Metadata["result"].(map[string]any)["exit_code"]
			if !reflect.DeepEqual(l.Steps[1].Error, map[string]any{"exit_code": 1.0}) || ok != 0.0 || !reflect.DeepEqual(l.Steps[5].Error, map[string]any{"exit_code": 2.0}) {
				t.Errorf("errors %v, %v (exit code %v), %v", l.Steps[1].Error, l.Steps[3].Error, ok, l.Steps[5].Error)
			}
			want := []string{
				`event_msg "agent_message" (repeats response items for display): 1`,
				`event_msg "token_count" repeating the one before: 1`,
				`event_msg "user_message" (repeats response items for display): 1`,
			}
			if !reflect.DeepEqual(rep.Reasons, want) {
				t.Errorf("reasons = %q", rep.Reasons)
			}
			if rl := l.Metadata["rate_limits"].([]any); len(rl) != 1 {
				t.Errorf("rate limits = %v", rl)
			}
		},
	},
	{
		// Inspect: the model that answered (output.model) wins over the one
		// requested; an older log without message ids still joins its
		// model events (timestamps, usage) by their output message, and a
		// generation the solver did not keep is counted as such.
		file: "inspect/old.json", format: Inspect, model: "gpt-4o-2024-08-06", system: "You are a shell assistant.",
		prompts: []string{"What files are here?"},
		steps: []wantStep{
			llm(nil),
			tool("bash", `{"cmd":"ls"}`, ptr("a.txt\n"), false),
			llm(ptr("There is one file: a.txt.")),
		},
		outputs: map[string]string{FinalName: "There is one file: a.txt."},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if l.Steps[0].Timestamp != "2024-09-01T12:00:01Z" || l.Steps[2].Timestamp != "2024-09-01T12:00:04Z" {
				t.Errorf("timestamps %q, %q", l.Steps[0].Timestamp, l.Steps[2].Timestamp)
			}
			if u0, u2 := l.Steps[0].Usage, l.Steps[2].Usage; !reflect.DeepEqual(u0, map[string]int{"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}) || u2["output_tokens"] != 10 {
				t.Errorf("usage %v, %v", u0, u2)
			}
			want := []string{`event "model" whose output is not among the messages: 1`, `event "sample_init" (timeline detail): 1`}
			if !reflect.DeepEqual(rep.Reasons, want) {
				t.Errorf("reasons = %q", rep.Reasons)
			}
			if l.Metadata["eval"].(map[string]any)["model"] != "openai/gpt-4o" {
				t.Errorf("the requested model is lost: %v", l.Metadata["eval"])
			}
		},
	},
	{
		// Claude Code: a Task call's subagent writes its records into the
		// session with isSidechain. Its steps name their agent and the
		// Task step; its prompt is the Task's, not the user's. Path
		// parameters are made relative; text (a pasted file:// URL) is
		// not rewritten.
		file: "claude-code/subagent.jsonl", format: ClaudeCode, model: "claude-sonnet-4-5-20250929",
		prompts: []string{"Find where the config is parsed. I pasted file:///home/dev/proj/app.js and /home/dev/proj/README.md for reference."},
		steps: []wantStep{
			llm(nil),
			tool("Task", `{"description":"Find config parsing","prompt":"Search the repo for where config.yaml is parsed and report the file.","subagent_type":"general-purpose"}`, ptr("config.yaml is parsed in internal/config/load.go."), false),
			llm(nil),
			tool("Grep", `{"pattern":"config.yaml","path":"."}`, ptr("Found 1 file\n/home/dev/proj/internal/config/load.go"), false),
			llm(ptr("config.yaml is parsed in internal/config/load.go.")),
			llm(nil),
			tool("Bash", `{"command":"go test ./internal/config","description":"Run the loader tests"}`, ptr("FAIL\tproj/internal/config [build failed]"), true),
			llm(ptr("The loader is in internal/config/load.go; its tests do not build.")),
		},
		outputs: map[string]string{FinalName: "The loader is in internal/config/load.go; its tests do not build."},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			for i, s := range l.Steps {
				if i >= 2 && i <= 4 {
					if s.Agent != "toolu_task" || s.ParentStep == nil || *s.ParentStep != 1 {
						t.Errorf("steps[%d]: agent %q, parent_step %v; want toolu_task, 1", i, s.Agent, s.ParentStep)
					}
				} else if s.Agent != "" || s.ParentStep != nil {
					t.Errorf("steps[%d]: agent %q, parent_step %v; want the main agent", i, s.Agent, s.ParentStep)
				}
			}
			p, _ := l.Steps[2].Metadata["agent_prompts"].([]any)
			if len(p) != 1 || p[0].(map[string]any)["content"] != "Search the repo for where config.yaml is parsed and report the file." {
				t.Errorf("agent prompts = %v", p)
			}
			if r, _ := deref(l.Steps[5].Reasoning).(string); r != "Check that the tests of the loader pass." {
				t.Errorf("reasoning = %q", r)
			}
		},
	},
	{
		// Images and PDFs are parts: a pasted image in the prompt, a
		// screenshot tool's image beside its text, a PDF the Read tool
		// returns. Their base64 is content, not metadata.
		file: "claude-code/images.jsonl", format: ClaudeCode, model: "claude-opus-4-6",
		prompts: []string{""},
		steps: []wantStep{
			llm(nil),
			tool("mcp__browser__screenshot", `{"url":"http://localhost:4000"}`, nil, false),
			llm(nil),
			tool("Read", `{"file_path":"docs/style.pdf"}`, nil, false),
			llm(ptr("The header image is scaled to 1px; the style guide asks for 64px.")),
		},
		outputs: map[string]string{FinalName: "The header image is scaled to 1px; the style guide asks for 64px."},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			parts := l.Prompts[0].Parts
			if len(parts) != 2 || parts[0]["content"] != "Why does the header look like this?" || parts[1]["type"] != "image" || parts[1]["media_type"] != "image/png" || parts[1]["content_base64"] != onePixelPNG {
				t.Errorf("prompt parts = %v", parts)
			}
			shot := l.Steps[1].OutputParts
			if len(shot) != 2 || shot[0].Content != "Screenshot of http://localhost:4000" || shot[1].Type != "image" || shot[1].ContentBase64 != onePixelPNG {
				t.Errorf("screenshot parts = %+v", shot)
			}
			pdf := l.Steps[3].OutputParts
			if len(pdf) != 1 || pdf[0].Type != "document" || pdf[0].MediaType != "application/pdf" {
				t.Errorf("PDF parts = %+v", pdf)
			}
			if bytes.Contains([]byte(fmt.Sprint(l.Metadata, l.Steps[1].Metadata, l.Steps[3].Metadata)), []byte("iVBOR")) {
				t.Error("base64 content in metadata")
			}
			if f := l.Steps[1].Metadata["result"].(map[string]any)["toolUseResult"].(map[string]any)["file"]; !reflect.DeepEqual(f, map[string]any{
				"type": "image/png", "originalSize": 70.0, "base64_omitted": "the same as the step's output_parts[1]"}) {
				t.Errorf("toolUseResult.file = %v", f)
			}
			// Redacted thinking is reasoning, as the block's JSON text.
			if r := deref(l.Steps[4].Reasoning); r != `{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}` {
				t.Errorf("reasoning = %v", r)
			}
		},
	},
	{
		// OpenAI Chat Completions: an image given as a data: URL is a part.
		file: "openai-chat/image.json", format: OpenAIChat, model: "gpt-4o-2024-08-06",
		prompts: []string{""},
		steps:   []wantStep{llm(ptr("A single white pixel."))},
		outputs: map[string]string{FinalName: "A single white pixel."},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			parts := l.Prompts[0].Parts
			if len(parts) != 2 || parts[1]["type"] != "image" || parts[1]["media_type"] != "image/png" || parts[1]["content_base64"] != onePixelPNG {
				t.Errorf("prompt parts = %v", parts)
			}
			if !reflect.DeepEqual(l.Steps[0].Usage, map[string]int{"input_tokens": 93, "output_tokens": 6, "total_tokens": 99, "cache_read_tokens": 0}) {
				t.Errorf("usage = %v", l.Steps[0].Usage)
			}
		},
	},
}

const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// TestSubagentByAgentID: newer transcripts name the subagent (agentId on
// its records and in the Task result's toolUseResult); that joins it to
// its Task call even when its first prompt is not the Task's.
func TestSubagentByAgentID(t *testing.T) {
	t.Parallel()
	in := `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"Review the diff"}}
{"type":"assistant","uuid":"u2","sessionId":"s","message":{"id":"m1","model":"claude-opus-4-6","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"prompt":"Review it","subagent_type":"reviewer"}},{"type":"tool_use","id":"toolu_2","name":"Task","input":{"prompt":"Review it","subagent_type":"reviewer"}}]}}
{"type":"user","uuid":"s1","isSidechain":true,"agentId":"b2","sessionId":"s","message":{"role":"user","content":"Review it (context: second)"}}
{"type":"assistant","uuid":"s2","parentUuid":"s1","isSidechain":true,"agentId":"b2","sessionId":"s","message":{"id":"m2","model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"LGTM"}]}}
{"type":"user","uuid":"u3","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"LGTM"}]},"toolUseResult":{"agentId":"b2","status":"completed"}}
{"type":"user","uuid":"u4","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"no subagent record"}]}}
`
	out, _, err := Import(ClaudeCode, []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := decode(t, out)
	if len(l.Prompts) != 1 || len(l.Steps) != 4 {
		t.Fatalf("prompts %v, %d steps", l.Prompts, len(l.Steps))
	}
	if s := l.Steps[3]; s.Agent != "b2" || s.ParentStep == nil || *s.ParentStep != 2 {
		t.Errorf("subagent step: agent %q, parent_step %v", s.Agent, s.ParentStep)
	}
}

// TestOTelToolErrorType: a span's error.type (the semantic conventions'
// mark of a failed operation) is its step's error, as is an error status
// with its message; for tool calls and model calls alike.
func TestOTelToolErrorType(t *testing.T) {
	t.Parallel()
	in := `[{"name":"execute_tool fetch","context":{"span_id":"0x01"},"start_time":"2026-01-07T10:00:00Z","attributes":{"gen_ai.operation.name":"execute_tool","gen_ai.tool.name":"fetch","gen_ai.tool.call.id":"c1","error.type":"timeout"}},
{"name":"execute_tool ls","context":{"span_id":"0x02"},"start_time":"2026-01-07T10:00:01Z","status":{"status_code":"ERROR","description":"no such directory"},"attributes":{"gen_ai.operation.name":"execute_tool","gen_ai.tool.name":"ls","gen_ai.tool.call.id":"c2"}},
{"name":"chat m","context":{"span_id":"0x03"},"start_time":"2026-01-07T10:00:02Z","status":{"status_code":"ERROR"},"attributes":{"gen_ai.operation.name":"chat","gen_ai.request.model":"m","error.type":"429"}}]`
	out, _, err := Import(OTelGenAI, []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := decode(t, out)
	if len(l.Steps) != 3 || !reflect.DeepEqual(l.Steps[0].Error, map[string]any{"message": "timeout"}) || !reflect.DeepEqual(l.Steps[1].Error, map[string]any{"message": "no such directory"}) ||
		!reflect.DeepEqual(l.Steps[2].Error, map[string]any{"message": "429"}) {
		t.Errorf("steps = %+v", l.Steps)
	}
}

// TestInspectImageAttachment: an Inspect image given as attachment://
// (the sample's attachments hold the data: URL) is a part, not text or
// metadata.
func TestInspectImageAttachment(t *testing.T) {
	t.Parallel()
	in := `{"version":2,"status":"success","eval":{"model":"mockllm/model"},"samples":[{"id":1,"epoch":1,
"attachments":{"a1":"data:image/png;base64,` + onePixelPNG + `"},
"messages":[{"role":"user","content":[{"type":"text","text":"Describe it"},{"type":"image","image":"attachment://a1","detail":"auto"}]},
{"role":"assistant","content":"A pixel."}]}]}`
	out, _, err := Import(Inspect, []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := decode(t, out)
	parts := l.Prompts[0].Parts
	if len(parts) != 2 || parts[1]["type"] != "image" || parts[1]["content_base64"] != onePixelPNG || parts[1]["media_type"] != "image/png" {
		t.Errorf("parts = %v", parts)
	}
	if bytes.Contains(out, []byte("attachment://")) || bytes.Count(out, []byte(onePixelPNG)) != 1 {
		t.Errorf("the image is not exactly once, as a part:\n%s", out)
	}
}

// TestInvalidBase64Part: an image whose base64 does not decode is no part
// (ctx-pack would refuse the log); it stays in metadata, with a warning.
func TestInvalidBase64Part(t *testing.T) {
	t.Parallel()
	in := `{"request":{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"data:image/png;base64,%%%"}}]}]},"response":{"object":"chat.completion","model":"m","choices":[{"message":{"role":"assistant","content":"?"}}]}}`
	out, rep, err := Import(OpenAIChat, []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := decode(t, out)
	if l.Prompts[0].Parts != nil || l.Prompts[0].Content != "see" || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "base64 is not valid") {
		t.Errorf("prompt %+v, warnings %q", l.Prompts[0], rep.Warnings)
	}
	if !bytes.Contains(out, []byte("base64,%%%")) {
		t.Error("the image reference is lost")
	}
}

// TestResponseErrors: a response reporting an error is a failed model
// call, in the three exchange APIs.
func TestResponseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ format, in string }{
		{Anthropic, `{"request":{"model":"m","messages":[{"role":"user","content":"hi"}]},"response":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}}`},
		{OpenAIChat, `{"request":{"model":"m","messages":[{"role":"user","content":"hi"}]},"response":{"object":"chat.completion","choices":[],"error":{"message":"Overloaded","type":"server_error"}}}`},
		{OpenAIResponses, `{"request":{"model":"m","input":"hi"},"response":{"object":"response","status":"failed","output":[],"created_at":1,"error":{"code":"server_error","message":"Overloaded"}}}`},
	}
	for _, tt := range tests {
		out, _, err := Import(tt.format, []byte(tt.in), Options{})
		if err != nil {
			t.Errorf("%s: %v", tt.format, err)
			continue
		}
		l := decode(t, out)
		if len(l.Steps) != 1 || !reflect.DeepEqual(l.Steps[0].Error, map[string]any{"message": "Overloaded"}) {
			t.Errorf("%s: steps = %+v", tt.format, l.Steps)
		}
	}
}
