package codex_test

import (
	"reflect"
	"testing"

	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/formatstest"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// fixture is one of this package's own edge-case inputs (testdata/).
type fixture = importtest.Case[importer.Report]

// fixtures are this package's edge-case inputs.
var fixtures = []fixture{
	{
		File: "codex/edge.jsonl", Format: codex.Name, Model: "gpt-5-codex", System: "Be careful.",
		Prompts: []string{"Why does the build fail?"},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("shell", `{"command":["bash","-lc","make"],"workdir":"."}`, importtest.Ptr(`{"output":"make: *** [all] Error 2","metadata":{"exit_code":2}}`), true),
			importtest.Tool("read_file", `{"path":"config.yaml"}`, importtest.Ptr("port: 80\n"), false),
			importtest.LLM(importtest.Ptr("The Makefile target is wrong; I patched it.")),
			importtest.Tool("apply_patch", `"*** Begin Patch\n*** Update File: /home/dev/app/Makefile\n*** End Patch"`, nil, false),
		},
		Outputs:  map[string]string{importer.FinalName: "The Makefile target is wrong; I patched it."},
		Warnings: []string{"1 tool call(s) have no result"},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep importer.Report) {
			if l.Metadata["session"].(map[string]any)["cwd"] != "/home/dev/app" {
				t.Errorf("session = %v", l.Metadata["session"])
			}
			if l.Model.Parameters["reasoning_effort"] != "medium" || importtest.Deref(l.Steps[0].Reasoning) != "Look at the build and the config together." {
				t.Errorf("parameters %v, metadata %v", l.Model.Parameters, l.Steps[0].Metadata)
			}
			if rep.Skipped != 2 || rep.Mapped != 10 {
				t.Errorf("report = %+v", rep)
			}
			if !l.Steps[2].Deterministic || l.Steps[1].Deterministic {
				t.Error("read_file is deterministic, shell is not")
			}
		},
	},
	{
		// Codex: token_count events are the only record of usage (each
		// request's last_token_usage goes to its model turn; a repeated
		// event is not counted twice); commands that exit non-zero fail,
		// as exec_command_end or the output's exit code says; an
		// interrupted turn is kept.
		File: "codex/events.jsonl", Format: codex.Name, Model: "gpt-5-codex",
		Prompts: []string{"Run the tests and fix what fails", "Stop. Just explain the failure."},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("shell", `{"command":["bash","-lc","go test ./..."],"workdir":"."}`, importtest.Ptr(`{"output": "--- FAIL: TestParse\nFAIL\n", "metadata": {"exit_code": 1, "duration_seconds": 1.2}}`), true),
			importtest.LLM(nil),
			importtest.Tool("shell", `{"command":["bash","-lc","sed -n 1,5p parse_test.go"],"workdir":"."}`, importtest.Ptr("Exit code: 0\nWall time: 0.1 seconds\nOutput:\npackage parse\n"), false),
			importtest.LLM(nil),
			importtest.Tool("shell", `{"command":["bash","-lc","go vet ./..."],"workdir":"."}`, importtest.Ptr("Exit code: 2\nWall time: 0.4 seconds\nOutput:\n# parse\n./parse.go:9:2: unreachable code\n"), true),
			importtest.LLM(nil),
			importtest.Tool("apply_patch", `"*** Begin Patch\n*** Update File: parse.go\n@@\n-\treturn\n*** End Patch"`, nil, false),
			importtest.LLM(importtest.Ptr("TestParse fails because parse.go returns before reading the header.")),
		},
		Outputs:  map[string]string{importer.FinalName: "TestParse fails because parse.go returns before reading the header."},
		Warnings: []string{"1 tool call(s) have no result"},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep importer.Report) {
			var in, cached, outTok int
			for _, s := range l.Steps {
				in += s.Usage["input_tokens"]
				cached += s.Usage["cache_read_tokens"]
				outTok += s.Usage["output_tokens"]
			}
			if in != 27300 || cached != 24000 || outTok != 350 {
				t.Errorf("usage: %v input (%v cached), %v output; want 27300 (24000), 350", in, cached, outTok)
			}
			if r := importtest.Deref(l.Steps[8].Reasoning); r != `{"type":"reasoning","id":"rs_9","summary":[],"content":null,"encrypted_content":"gAAAAABoQ2sX"}` {
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
}

// TestFixtures checks each fixture's log (importtest.RunCases).
func TestFixtures(t *testing.T) { importtest.RunCases(t, fixtures, formatstest.Importer()) }
