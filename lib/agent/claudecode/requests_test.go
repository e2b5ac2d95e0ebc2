package claudecode_test

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

// Claude Code 2.1.3xx writes the requests it sends beside the conversation:
// their settings are the steps' parameters and the model's, the system
// prompt comes from the shape sent, and the rest (the messages sent by
// hash, the shapes, the cost, how to rebuild each request) is metadata:
// nothing is lost.
func TestClaudeCodeRequests(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"type":"user","uuid":"u1","sessionId":"s","cwd":"/p","version":"2.1.328","message":{"role":"user","content":"hi"}}`,
		`{"type":"attachment","uuid":"p1","parentUuid":"u1","sessionId":"s","attachment":{"type":"prompt_snapshot","systemPrompt":["\nBe brief.","Be kind."],"reminderFold":false}}`,
		`{"type":"atis-latch","atis":"","sessionId":"s"}`,
		`{"type":"api-request-shape","sessionId":"s","shapeHash":"sh1","shape":{"system":[{"type":"text","text":"You are a Claude agent."},{"type":"text","text":"\nBe brief.\n\nBe kind."}],"tools":[{"name":"Bash","input_schema":{"type":"object"}}]}}`,
		`{"type":"api-request-blob","sessionId":"s","hash":"b1","message":{"role":"system","content":[{"type":"text","text":"# Environment\nlinux"}]}}`,
		`{"type":"api-request","sessionId":"s","id":"r1","timestamp":"2026-11-01T10:00:00Z","shapeHash":"sh1","params":{"model":"claude-x","max_tokens":128000,"thinking":{"type":"adaptive"},"output_config":{"effort":"medium"}},"keep":0,"tail":["b1"]}`,
		`{"type":"tools-used","tools":["Bash"],"sessionId":"s"}`,
		`{"type":"assistant","uuid":"a1","sessionId":"s","requestRef":"r1","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"false"}}]}}`,
		`{"type":"user","uuid":"u2","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 1\nfailed"}]}}`,
		`{"type":"api-request","sessionId":"s","id":"r2","shapeHash":"sh1","params":{"model":"claude-x","max_tokens":64000},"base":"r1","keep":2,"tail":["c2","c3"]}`,
		`{"type":"assistant","uuid":"a2","sessionId":"s","requestRef":"r2","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"text","text":"done"}]}}`,
		`{"type":"api-request","sessionId":"s","id":"r3","params":{"model":"claude-x"},"base":"r2","keep":3,"tail":[]}`,
		`{"type":"cost-state","sessionId":"s","totalCostUSD":0.25,"modelUsage":{"claude-x":{"inputTokens":250,"costUSD":0.25}}}`,
	}, "\n") + "\n"
	out, rep, err := formats.Import(claudecode.Name, []byte(in), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := gjson.ParseBytes(out)
	for _, w := range rep.Warnings {
		if strings.Contains(w, "lost") {
			t.Errorf("warning: %s", w)
		}
	}
	if rep.Skipped != 2 || strings.Join(rep.Reasons, "\n") != strings.Join([]string{
		`record type "atis-latch" (an empty latch, holding nothing else): 1`,
		`record type "tools-used" (the names of the tools a turn called, which its tool calls say): 1`,
	}, "\n") {
		t.Errorf("skipped %d: %q", rep.Skipped, rep.Reasons)
	}
	if got := l.Get("system_prompt").String(); got != "You are a Claude agent.\nBe brief.\n\nBe kind." {
		t.Errorf("system prompt %q", got)
	}
	if got := l.Get("model.parameters").Raw; got != `{"max_tokens":128000,"output_config":{"effort":"medium"},"thinking":{"type":"adaptive"}}` {
		t.Errorf("model parameters %s", got)
	}
	if n := l.Get("steps.#").Int(); n != 3 {
		t.Fatalf("%d steps", n)
	}
	first, call, last := l.Get("steps.0"), l.Get("steps.1"), l.Get("steps.2")
	if got := first.Get("parameters").Raw; got != `{"max_tokens":128000,"model":"claude-x","output_config":{"effort":"medium"},"thinking":{"type":"adaptive"}}` {
		t.Errorf("step 0 parameters %s", got)
	}
	if got := first.Get("metadata.request").Raw; got != `{"id":"r1","keep":0,"shapeHash":"sh1","tail":["b1"],"timestamp":"2026-11-01T10:00:00Z"}` {
		t.Errorf("step 0 request %s", got)
	}
	if got := last.Get("metadata.request").Raw; got != `{"base":"r1","id":"r2","keep":2,"shapeHash":"sh1","tail":["c2","c3"]}` || last.Get("parameters").Raw != `{"max_tokens":64000,"model":"claude-x"}` {
		t.Errorf("step 2 request %s, parameters %s", got, last.Get("parameters").Raw)
	}
	if got := call.Get("error").Raw; got != `{"exit_code":1}` {
		t.Errorf("the failed command's error %s", got)
	}
	meta := l.Get("metadata")
	for path, want := range map[string]string{
		"request_blobs.b1.content.0.text":  "# Environment\nlinux",
		"request_shapes.sh1.tools.0.name":  "Bash",
		"requests.0.id":                    "r3", // answered by no turn
		"cost.totalCostUSD":                "0.25",
		"cost.modelUsage.claude-x.costUSD": "0.25",
		"prompt_snapshot.reminderFold":     "false",
	} {
		if got := meta.Get(path).String(); got != want {
			t.Errorf("metadata.%s = %q, want %q", path, got, want)
		}
	}
	if meta.Get("prompt_snapshot.system_prompts").Exists() {
		t.Errorf("the snapshot's system prompt, the shape's, is kept twice: %s", meta.Get("prompt_snapshot"))
	}
}

// Without a shape, the prompt_snapshot says the system prompt: its prefix
// (cliPrefix, said once), then its sections joined by a blank line.
func TestClaudeCodePromptSnapshot(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}`,
		`{"type":"attachment","uuid":"p1","sessionId":"s","attachment":{"type":"prompt_snapshot","systemPrompt":["\nBe brief.","Be kind."]}}`,
		`{"type":"assistant","uuid":"a1","sessionId":"s","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hello"}]}}`,
		`{"type":"attachment","uuid":"p2","sessionId":"s","attachment":{"type":"prompt_snapshot","cliPrefix":"You are a Claude agent.","systemPrompt":["\nBe brief.","Be kind."],"tools":[{"name":"Bash"}]}}`,
		`{"type":"attachment","uuid":"p3","sessionId":"s","attachment":{"type":"prompt_snapshot","cliPrefix":"You are a Claude agent.","systemPrompt":["\nBe terse."]}}`,
	}, "\n") + "\n"
	out, _, err := formats.Import(claudecode.Name, []byte(in), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := gjson.ParseBytes(out)
	if got := l.Get("system_prompt").String(); got != "You are a Claude agent.\nBe brief.\n\nBe kind." {
		t.Errorf("system prompt %q", got)
	}
	meta := l.Get("metadata")
	if got := meta.Get("prompt_snapshot.system_prompts").Raw; got != `["You are a Claude agent.\nBe terse."]` {
		t.Errorf("the other system prompts %s", got)
	}
	if got := meta.Get("prompt_snapshot.tools.0.name").String(); got != "Bash" {
		t.Errorf("the tools, which no shape holds: %s", meta.Get("prompt_snapshot"))
	}
}

// A subagent's Read whose record has no toolUseResult (its transcript in
// 2.1.32x) is read from the lines its answer shows: the whole file when
// it asked for all of it, the lines seen when it asked for some.
func TestClaudeCodeReadShownLines(t *testing.T) {
	t.Parallel()
	main := `{"type":"user","uuid":"u1","sessionId":"s","cwd":"/p","message":{"role":"user","content":"look"}}` + "\n" +
		`{"type":"assistant","uuid":"a1","sessionId":"s","cwd":"/p","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Agent","input":{"description":"look","prompt":"read it"}}]}}` + "\n" +
		`{"type":"user","uuid":"u2","sessionId":"s","cwd":"/p","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"done"}]},"toolUseResult":{"agentId":"ab12"}}` + "\n"
	sub := strings.Join([]string{
		`{"type":"user","uuid":"x1","isSidechain":true,"agentId":"ab12","sessionId":"s","cwd":"/p","message":{"role":"user","content":"read it"}}`,
		`{"type":"assistant","uuid":"x2","isSidechain":true,"agentId":"ab12","sessionId":"s","cwd":"/p","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"r1","name":"Read","input":{"file_path":"/p/config.ini"}},{"type":"tool_use","id":"r2","name":"Read","input":{"file_path":"/p/long.txt","offset":2,"limit":2}}]}}`,
		`{"type":"user","uuid":"x3","isSidechain":true,"agentId":"ab12","sessionId":"s","cwd":"/p","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"r1","content":"1\t[main]\n2\tname = demo\n3\t"}]}}`,
		`{"type":"user","uuid":"x4","isSidechain":true,"agentId":"ab12","sessionId":"s","cwd":"/p","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"r2","content":"2\tb\n3\tc"}]}}`,
		`{"type":"assistant","uuid":"x5","isSidechain":true,"agentId":"ab12","sessionId":"s","cwd":"/p","message":{"id":"m3","role":"assistant","model":"claude-x","content":[{"type":"text","text":"done"}]}}`,
	}, "\n") + "\n"
	out, rep, err := formats.Import(claudecode.Name, []byte(main), importer.Options{Subagents: []importer.File{{Name: "s/subagents/agent-ab12.jsonl", Data: []byte(sub)}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w, "no toolUseResult") {
			t.Errorf("warning: %s", w)
		}
	}
	l := gjson.ParseBytes(out)
	if got := l.Get(`inputs.#(name=="config.ini").content`).String(); got != "[main]\nname = demo\n" {
		t.Errorf("config.ini = %q, inputs %s", got, l.Get("inputs"))
	}
	long := l.Get(`inputs.#(name=="long.txt")`)
	if long.Get("seen").String() != "partial" || long.Get("lines").Raw != "[[2,3]]" || long.Get("content").String() != "b\nc\n" {
		t.Errorf("long.txt = %s", long.Raw)
	}
}
