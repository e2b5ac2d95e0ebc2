package codex_test

import (
	"bufio"
	"bytes"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// importClean imports the Codex rollout file, which must import with no
// skipped record and no warning but those given, and returns the log and
// the file's bytes.
func importClean(t *testing.T, file string, warnings ...string) (*importtest.Log, []byte) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := formats.Import(codex.Name, data, importer.Options{Name: file})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Warnings, warnings) || len(rep.Reasons) > 0 {
		t.Errorf("warnings %q, skipped %q: want the warnings %q only", rep.Warnings, rep.Reasons, warnings)
	}
	return importtest.Decode(t, out), data
}

// TestCodex0169: a rollout Codex 0.169 wrote (a patch, a read, an
// answer; long instruction texts shortened) imports with nothing lost:
// each model turn's usage is its response's token_usage_record, joined
// by the response id, the token_count after it adding only totals; the
// world_state line and the thread_settings_applied event are kept; the
// developer message of skills, permissions and tools is a harness
// prompt, not a user's; the system prompt is base_instructions.
func TestCodex0169(t *testing.T) {
	t.Parallel()
	const file = "testdata/codex/v0169.jsonl"
	l, data := importClean(t, file)

	// The token_usage_records, by response id, in order.
	var ids []string
	usage := map[string]map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		rec := gjson.ParseBytes(sc.Bytes())
		if rec.Get("type").String() != "token_usage_record" {
			continue
		}
		id := rec.Get("payload.response_id").String()
		ids = append(ids, id)
		usage[id] = codexUsage(map[string]int{
			"input_tokens": int(rec.Get("payload.usage.input_tokens").Int()), "output_tokens": int(rec.Get("payload.usage.output_tokens").Int()),
			"cached_input_tokens": int(rec.Get("payload.usage.cached_input_tokens").Int()), "reasoning_output_tokens": int(rec.Get("payload.usage.reasoning_output_tokens").Int()),
			"total_tokens": int(rec.Get("payload.usage.total_tokens").Int()),
		})
	}
	var got []string
	for _, s := range l.Steps {
		if s.Type != importer.LLMCall {
			continue
		}
		id, _ := s.Metadata["response_id"].(string)
		got = append(got, id)
		for k, v := range usage[id] {
			if s.Usage[k] != v {
				t.Errorf("step %d (%s): %s = %d, want %d", s.Index, id, k, s.Usage[k], v)
			}
		}
		if s.Metadata["token_usage_record"] == nil || s.Metadata["token_count"] == nil || s.Metadata["more_token_counts"] != nil {
			t.Errorf("step %d: token_usage_record %v, token_count %v, more_token_counts %v", s.Index,
				s.Metadata["token_usage_record"], s.Metadata["token_count"], s.Metadata["more_token_counts"])
		}
	}
	if strings.Join(got, " ") != strings.Join(ids, " ") {
		t.Errorf("the turns' response ids %q, want %q", got, ids)
	}
	if ws, _ := l.Metadata["world_states"].([]any); len(ws) != 1 {
		t.Errorf("world_states %v, want one", l.Metadata["world_states"])
	}
	settings := false
	for _, e := range l.Metadata["events"].([]any) {
		settings = settings || e.(map[string]any)["type"] == "thread_settings_applied"
	}
	if !settings {
		t.Errorf("no thread_settings_applied among the events %v", l.Metadata["events"])
	}
	if p := l.Prompts[0]; p.Role != importer.HarnessRole || !strings.HasPrefix(p.Content, "<skills_instructions>") || promptMeta(l, 0)["harness"] != "skills" || promptMeta(l, 0)["role"] != "developer" {
		t.Errorf("the developer message: %+v %v", p, promptMeta(l, 0))
	}
	if !strings.HasPrefix(l.SystemPrompt, "You are Codex") {
		t.Errorf("system prompt %q", l.SystemPrompt)
	}
}

// TestCodex0169MCP: the MCP tools Codex 0.169 called (namespace
// "mcp__calc", names "add" and "div") are the steps Codex names
// mcp__calc__add and mcp__calc__div, their outputs the text of their
// content items; the division by zero failed, as only its McpToolCall
// item says (isError, status "failed"), which is kept with the result.
func TestCodex0169MCP(t *testing.T) {
	t.Parallel()
	l, _ := importClean(t, "testdata/codex/v0169-mcp.jsonl")
	want := []struct {
		tool, ends string
		failed     bool
	}{{"mcp__calc__add", "\nOutput:\n5", false}, {"mcp__calc__div", "\nOutput:\ndivision by zero", true}}
	var calls int
	for _, s := range l.Steps {
		if s.Type != importer.ToolCall {
			continue
		}
		if calls >= len(want) {
			t.Fatalf("more tool calls than %d", len(want))
		}
		w := want[calls]
		calls++
		end, _ := s.Metadata["result"].(map[string]any)["item_completed"].(map[string]any)
		if s.Tool != w.tool || s.Output == nil || !strings.HasSuffix(*s.Output, w.ends) || s.Metadata["namespace"] != "mcp__calc" || (s.Error != nil) != w.failed || end["server"] != "calc" {
			t.Errorf("step %d: %s, output %v, error %v, metadata %v; want %+v", s.Index, s.Tool, s.Output, s.Error, s.Metadata, w)
		}
	}
	if calls != len(want) {
		t.Errorf("%d tool calls, want %d", calls, len(want))
	}
}

// TestCodex0169DeletedInput: the FileChange item Codex 0.169 completes
// for an apply_patch that deletes a file gives the content it held, an
// input then (so the delete replays); the file read whole and updated is
// an input and an output.
func TestCodex0169DeletedInput(t *testing.T) {
	t.Parallel()
	l, _ := importClean(t, "testdata/codex/v0169-patch.jsonl", "apply_patch deleted old.txt; a deleted file is not an output")
	inputs := map[string]string{}
	for _, in := range l.Inputs {
		inputs[in.Name] = in.Content
	}
	if want := map[string]string{"notes.txt": "one\ntwo\n", "old.txt": "bye\n"}; !reflect.DeepEqual(inputs, want) {
		t.Errorf("inputs %q, want %q", inputs, want)
	}
	if len(l.Outputs) != 1 || l.Outputs[0].Name != "notes.txt" || l.Outputs[0].Content != "one\nthree\n" {
		t.Errorf("outputs %+v, want notes.txt", l.Outputs)
	}
}

// TestCodexDeveloperMixed: a developer message whose context items
// follow text Codex is not known to write stays a system prompt, and the
// warning says so of a developer message (not of a user prompt).
func TestCodexDeveloperMixed(t *testing.T) {
	t.Parallel()
	data := []byte(`{"timestamp":"2026-11-01T10:00:00Z","type":"session_meta","payload":{"id":"s","cwd":"/p","cli_version":"0.169.0"}}
{"timestamp":"2026-11-01T10:00:00Z","type":"turn_context","payload":{"cwd":"/p","model":"gpt-5.5"}}
{"timestamp":"2026-11-01T10:00:01Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"Be brief."},{"type":"input_text","text":"<permissions instructions>\nx\n</permissions instructions>"}]}}
{"timestamp":"2026-11-01T10:00:02Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}
`)
	out, rep, err := formats.Import(codex.Name, data, importer.Options{Name: "r.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"line 3: payload: a developer message holds Codex's context (<permissions instructions>) after text that is no context item Codex is known to write; it is kept as a system prompt"}
	if !reflect.DeepEqual(rep.Warnings, want) {
		t.Errorf("warnings:\n got %q\nwant %q", rep.Warnings, want)
	}
	if l := importtest.Decode(t, out); l.SystemPrompt != "Be brief.\n<permissions instructions>\nx\n</permissions instructions>" || len(l.Prompts) != 1 || l.Prompts[0].Role != "user" {
		t.Errorf("system prompt %q, prompts %+v", l.SystemPrompt, l.Prompts)
	}
}
