package importer

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/internal/importtest"
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
		File: "anthropic/server-tools.json", Format: Anthropic, Model: "claude-sonnet-4-5-20250929",
		Prompts: []string{"What changed in Go 1.26? Then compute 2**100 in bash.", "Thanks. And 3**50?"},
		Steps: []importtest.Step{
			importtest.LLM(importtest.Ptr("Searching the release notes.\nGo 1.26 lets new take an expression.\n2**100 = 1267650600228229401496703205376.")),
			importtest.Tool("web_search", `{"query":"Go 1.26 release notes"}`, importtest.Ptr(`[{"type":"web_search_result","url":"https://go.dev/doc/go1.26","title":"Go 1.26 Release Notes","encrypted_content":"EqgfCioIARgBIiQ3","page_age":"February 10, 2026"},{"type":"web_search_result","url":"https://go.dev/blog/go1.26","title":"Go 1.26 is released","encrypted_content":"EpMCCioIARgBIiQ4","page_age":null}]`), false),
			importtest.Tool("web_fetch", `{"url":"https://go.dev/doc/go1.26"}`, importtest.Ptr(`{"type":"web_fetch_result","url":"https://go.dev/doc/go1.26","retrieved_at":"2026-03-01T09:00:02Z","content":{"type":"document","source":{"type":"text","media_type":"text/plain","data":"Go 1.26 Release Notes\nThe new(expr) form..."},"title":"Go 1.26 Release Notes"}}`), false),
			importtest.Tool("bash_code_execution", `{"command":"python3 -c 'print(2**100)'"}`, importtest.Ptr(`{"type":"bash_code_execution_result","stdout":"1267650600228229401496703205376\n","stderr":"","return_code":0,"content":[]}`), false),
			importtest.Tool("bash_code_execution", `{"command":"cat /tmp/notes.txt"}`, importtest.Ptr(`{"type":"bash_code_execution_result","stdout":"","stderr":"cat: /tmp/notes.txt: No such file or directory\n","return_code":1,"content":[]}`), true),
			importtest.Tool("web_search", `{"query":"Go 1.26 new expression"}`, importtest.Ptr(`{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}`), true),
			importtest.LLM(importtest.Ptr("3**50 = 717897987691852588770249.")),
			importtest.Tool("code_execution", `{"code":"print(3**50)"}`, importtest.Ptr(`{"type":"code_execution_result","stdout":"717897987691852588770249\n","stderr":"","return_code":0,"content":[]}`), false),
		},
		Outputs: map[string]string{FinalName: "3**50 = 717897987691852588770249."},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep Report) {
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
		File: "anthropic/server-tool-no-id.json", Format: Anthropic, Model: "claude-sonnet-4-5-20250929",
		Prompts: []string{"Latest Go release?", "Thanks."},
		Steps: []importtest.Step{
			importtest.LLM(importtest.Ptr("Go 1.26.")),
			importtest.Tool("web_search", `{"query":"latest Go release"}`, importtest.Ptr(`[{"type":"web_search_result","url":"https://go.dev/doc/devel/release","title":"Release History","encrypted_content":"Eq1","page_age":null}]`), false),
			importtest.LLM(importtest.Ptr("You're welcome.")),
		},
		Outputs: map[string]string{FinalName: "You're welcome."},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep Report) {
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
		File: "openai-chat/empty-ids.json", Format: OpenAIChat, Model: "gemini-2.5-flash", System: "Answer briefly.",
		Prompts: []string{"Weather in Paris and Rome?"},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("get_weather", `{"city":"Paris"}`, importtest.Ptr("18C, sunny"), false),
			importtest.Tool("get_weather", `{"city":"Rome"}`, importtest.Ptr("22C, clear"), false),
			importtest.LLM(importtest.Ptr("Paris: 18C and sunny. Rome: 22C and clear.")),
		},
		Outputs: map[string]string{FinalName: "Paris: 18C and sunny. Rome: 22C and clear."},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep Report) {
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
		File: "otel-genai/tool-join.json", Format: OTelGenAI, Model: "gpt-4o-2024-11-20",
		Prompts: []string{"Weather in Oslo?"},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("get_weather", `{"city":"Oslo"}`, importtest.Ptr("-3C, snow"), false),
			importtest.LLM(importtest.Ptr("Oslo: -3C with snow.")),
		},
		Outputs: map[string]string{FinalName: "Oslo: -3C with snow."},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep Report) {
			if l.Steps[1].Metadata["call_id"] != "call_7Qx" || l.Steps[1].Metadata["span_id"] != nil && l.Steps[1].Metadata["span_id"] != "0000000000000003" {
				t.Errorf("tool step metadata = %v", l.Steps[1].Metadata)
			}
		},
	},
	{
		// Inspect: the model that answered (output.model) wins over the one
		// requested; an older log without message ids still joins its
		// model events (timestamps, usage) by their output message, and a
		// generation the solver did not keep is counted as such.
		File: "inspect/old.json", Format: Inspect, Model: "gpt-4o-2024-08-06", System: "You are a shell assistant.",
		Prompts: []string{"What files are here?"},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("bash", `{"cmd":"ls"}`, importtest.Ptr("a.txt\n"), false),
			importtest.LLM(importtest.Ptr("There is one file: a.txt.")),
		},
		Outputs: map[string]string{FinalName: "There is one file: a.txt."},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep Report) {
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
		// OpenAI Chat Completions: an image given as a data: URL is a part.
		File: "openai-chat/image.json", Format: OpenAIChat, Model: "gpt-4o-2024-08-06",
		Prompts: []string{""},
		Steps:   []importtest.Step{importtest.LLM(importtest.Ptr("A single white pixel."))},
		Outputs: map[string]string{FinalName: "A single white pixel."},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep Report) {
			parts := l.Prompts[0].Parts
			if len(parts) != 2 || parts[1]["type"] != "image" || parts[1]["media_type"] != "image/png" || parts[1]["content_base64"] != importtest.OnePixelPNG {
				t.Errorf("prompt parts = %v", parts)
			}
			if !reflect.DeepEqual(l.Steps[0].Usage, map[string]int{"input_tokens": 93, "output_tokens": 6, "total_tokens": 99, "cache_read_tokens": 0}) {
				t.Errorf("usage = %v", l.Steps[0].Usage)
			}
		},
	},
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
	l := importtest.Decode(t, out)
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
"attachments":{"a1":"data:image/png;base64,` + importtest.OnePixelPNG + `"},
"messages":[{"role":"user","content":[{"type":"text","text":"Describe it"},{"type":"image","image":"attachment://a1","detail":"auto"}]},
{"role":"assistant","content":"A pixel."}]}]}`
	out, _, err := Import(Inspect, []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := importtest.Decode(t, out)
	parts := l.Prompts[0].Parts
	if len(parts) != 2 || parts[1]["type"] != "image" || parts[1]["content_base64"] != importtest.OnePixelPNG || parts[1]["media_type"] != "image/png" {
		t.Errorf("parts = %v", parts)
	}
	if bytes.Contains(out, []byte("attachment://")) || bytes.Count(out, []byte(importtest.OnePixelPNG)) != 1 {
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
	l := importtest.Decode(t, out)
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
		l := importtest.Decode(t, out)
		if len(l.Steps) != 1 || !reflect.DeepEqual(l.Steps[0].Error, map[string]any{"message": "Overloaded"}) {
			t.Errorf("%s: steps = %+v", tt.format, l.Steps)
		}
	}
}
