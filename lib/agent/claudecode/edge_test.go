package claudecode_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

func init() { fixtures = append(fixtures, edgeFixtures...) }

// edgeFixtures are Claude Code transcripts of edge cases.
var edgeFixtures = []fixture{
	{
		// Multi-turn tool use; one message split over three lines with two
		// parallel calls answered out of order; a failing tool; a call
		// with no result; path parameters under cwd made relative, free
		// text (a command, an output) left as it is.
		File: "claude-code/edge.jsonl", Format: claudecode.Name, Model: "claude-sonnet-4-5",
		Prompts: []string{"List the Go files, then read main.go and run the tests"},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("Glob", `{"pattern":"**/*.go","path":"."}`, importtest.Ptr("/home/dev/proj/main.go\n/home/dev/proj/cmd/x.go\n/home/dev/proj2/other.go"), false),
			importtest.Tool("Read", `{"file_path":"main.go"}`, importtest.Ptr("package main\n"), false),
			importtest.LLM(importtest.Ptr("Running the tests in /home/dev/proj.")),
			importtest.Tool("Bash", `{"command":"cd /home/dev/proj && go test ./..."}`, importtest.Ptr("FAIL ./cmd"), true),
			importtest.LLM(importtest.Ptr("The cmd package fails; checking it.")),
			importtest.Tool("Read", `{"file_path":"cmd/x.go"}`, nil, false),
		},
		Outputs:  map[string]string{importer.FinalName: "The cmd package fails; checking it."},
		Warnings: []string{"1 tool call(s) have no result"},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep importer.Report) {
			if l.Metadata["session"].(map[string]any)["cwd"] != "/home/dev/proj" {
				t.Errorf("session = %v", l.Metadata["session"])
			}
			if rep.Records != 11 || rep.Mapped != 10 || rep.Skipped != 1 ||
				!reflect.DeepEqual(rep.Reasons, []string{`record type "progress" (hook and tool progress): 1`}) {
				t.Errorf("report = %+v", rep)
			}
			if importtest.Deref(l.Steps[0].Reasoning) != "Two independent reads first." {
				t.Errorf("reasoning = %v", importtest.Deref(l.Steps[0].Reasoning))
			}
			if !l.Steps[1].Deterministic || !l.Steps[2].Deterministic || l.Steps[4].Deterministic {
				t.Error("Glob and Read are deterministic, Bash is not")
			}
			res := l.Steps[2].Metadata["result"].(map[string]any)
			if res["toolUseResult"].(map[string]any)["file"].(map[string]any)["filePath"] != "/home/dev/proj/main.go" {
				t.Errorf("result metadata = %v", res)
			}
			if l.Created != "2026-01-05T10:00:00Z" || l.Environment.ToolVersions["claude-code"] != "2.0.1" {
				t.Errorf("created %q, environment %+v", l.Created, l.Environment)
			}
			if l.Metadata["summaries"] == nil || l.Metadata["session"].(map[string]any)["sessionId"] != "s1" {
				t.Errorf("metadata = %v", l.Metadata)
			}
		},
	},
	{
		// Claude Code: a Task call's subagent writes its records into the
		// session with isSidechain. Its steps name their agent and the
		// Task step; its prompt is the Task's, not the user's. Path
		// parameters are made relative; text (a pasted file:// URL) is
		// not rewritten.
		File: "claude-code/subagent.jsonl", Format: claudecode.Name, Model: "claude-sonnet-4-5-20250929",
		Prompts: []string{"Find where the config is parsed. I pasted file:///home/dev/proj/app.js and /home/dev/proj/README.md for reference."},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("Task", `{"description":"Find config parsing","prompt":"Search the repo for where config.yaml is parsed and report the file.","subagent_type":"general-purpose"}`, importtest.Ptr("config.yaml is parsed in internal/config/load.go."), false),
			importtest.LLM(nil),
			importtest.Tool("Grep", `{"pattern":"config.yaml","path":"."}`, importtest.Ptr("Found 1 file\n/home/dev/proj/internal/config/load.go"), false),
			importtest.LLM(importtest.Ptr("config.yaml is parsed in internal/config/load.go.")),
			importtest.LLM(nil),
			importtest.Tool("Bash", `{"command":"go test ./internal/config","description":"Run the loader tests"}`, importtest.Ptr("FAIL\tproj/internal/config [build failed]"), true),
			importtest.LLM(importtest.Ptr("The loader is in internal/config/load.go; its tests do not build.")),
		},
		Outputs: map[string]string{importer.FinalName: "The loader is in internal/config/load.go; its tests do not build."},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep importer.Report) {
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
			if r, _ := importtest.Deref(l.Steps[5].Reasoning).(string); r != "Check that the tests of the loader pass." {
				t.Errorf("reasoning = %q", r)
			}
		},
	},
	{
		// Images and PDFs are parts: a pasted image in the prompt, a
		// screenshot tool's image beside its text, a PDF the Read tool
		// returns. Their base64 is content, not metadata.
		File: "claude-code/images.jsonl", Format: claudecode.Name, Model: "claude-opus-4-6",
		Prompts: []string{""},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("mcp__browser__screenshot", `{"url":"http://localhost:4000"}`, nil, false),
			importtest.LLM(nil),
			importtest.Tool("Read", `{"file_path":"docs/style.pdf"}`, nil, false),
			importtest.LLM(importtest.Ptr("The header image is scaled to 1px; the style guide asks for 64px.")),
		},
		Outputs: map[string]string{importer.FinalName: "The header image is scaled to 1px; the style guide asks for 64px."},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep importer.Report) {
			parts := l.Prompts[0].Parts
			if len(parts) != 2 || parts[0]["content"] != "Why does the header look like this?" || parts[1]["type"] != "image" || parts[1]["media_type"] != "image/png" || parts[1]["content_base64"] != importtest.OnePixelPNG {
				t.Errorf("prompt parts = %v", parts)
			}
			shot := l.Steps[1].OutputParts
			if len(shot) != 2 || shot[0].Content != "Screenshot of http://localhost:4000" || shot[1].Type != "image" || shot[1].ContentBase64 != importtest.OnePixelPNG {
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
			if r := importtest.Deref(l.Steps[4].Reasoning); r != `{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}` {
				t.Errorf("reasoning = %v", r)
			}
		},
	},
}

// TestEscapedPaths makes path parameters relative however the input
// escapes them, and leaves free text as it is.
func TestEscapedPaths(t *testing.T) {
	in := `{"type":"user","uuid":"u1","sessionId":"s","cwd":"\/home\/dev\/proj","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"see \u002fhome/dev/proj/b.go"}}
{"type":"assistant","uuid":"u2","sessionId":"s","cwd":"/home/dev/proj","message":{"id":"m","model":"x","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"\/home\/dev\/proj\/a.go"}}]}}`
	out, _, err := formats.Import(claudecode.Name, []byte(in), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := importtest.Decode(t, out)
	if !reflect.DeepEqual(l.Steps[1].Parameters, map[string]any{"file_path": "a.go"}) || l.Prompts[0].Content != "see /home/dev/proj/b.go" {
		t.Errorf("parameters %v, prompt %q", l.Steps[1].Parameters, l.Prompts[0].Content)
	}
	if l.Metadata["session"].(map[string]any)["cwd"] != "/home/dev/proj" {
		t.Errorf("the working directory is not kept: %v", l.Metadata["session"])
	}
}

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
	out, _, err := formats.Import(claudecode.Name, []byte(in), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := importtest.Decode(t, out)
	if len(l.Prompts) != 1 || len(l.Steps) != 4 {
		t.Fatalf("prompts %v, %d steps", l.Prompts, len(l.Steps))
	}
	if s := l.Steps[3]; s.Agent != "b2" || s.ParentStep == nil || *s.ParentStep != 2 {
		t.Errorf("subagent step: agent %q, parent_step %v", s.Agent, s.ParentStep)
	}
}

// TestUnrepresentable rejects text canonical JSON cannot carry (a lone
// UTF-16 surrogate) instead of changing it, naming the line.
func TestUnrepresentable(t *testing.T) {
	in := `{"type":"user","uuid":"b","sessionId":"s","message":{"role":"user","content":"ok"}}
{"type":"user","uuid":"b","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x\udc00y"}]}}`
	_, _, err := formats.Import(claudecode.Name, []byte(in), importer.Options{Name: "s.jsonl"})
	var ie *importer.Error
	if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "claude-code: line 2: invalid text at byte") {
		t.Errorf("error = %v", err)
	}
}
