package formats_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

// FuzzImport feeds arbitrary bytes to every importer (and to Detect): none
// may panic, and whatever an importer accepts must come out as canonical
// JSON that ctx-pack accepts.
func FuzzImport(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		format := formats.Formats()[int(which)%len(formats.Formats())]
		formats.Detect("", data)
		out, rep, err := formats.Import(format, data, importer.Options{})
		if err != nil {
			return
		}
		if c, err := canon.Canonicalize(out); err != nil || !bytes.Equal(c, out) {
			t.Fatalf("%s: output is not canonical (%v):\n%s", format, err, out)
		}
		if _, err := execlog.Parse(out, execlog.Options{}); err != nil {
			t.Fatalf("%s: ctx-pack would reject the output: %v\n%s", format, err, out)
		}
		if rep.Mapped+rep.Skipped != rep.Records {
			t.Fatalf("%s: report %+v does not add up", format, rep)
		}
		// No call is two steps (call ids repeat only across importer.Inspect
		// samples and importer.ATIF steps), and a subagent's parent is an earlier
		// step.
		steps := gjson.GetBytes(out, "steps").Array()
		seen := map[string]bool{}
		for i, st := range steps {
			if id := st.Get("metadata.call_id").String(); id != "" && format != importer.Inspect && format != importer.ATIF {
				if seen[id] {
					t.Fatalf("%s: call %q is two steps:\n%s", format, id, out)
				}
				seen[id] = true
			}
			if p := st.Get("parent_step"); p.Exists() && (p.Int() >= int64(i) || st.Get("agent").String() == "") {
				t.Fatalf("%s: steps[%d]: parent_step %s without agent or not earlier", format, i, p.Raw)
			}
		}
	})
}

// addSeeds adds the importers' fuzz seeds: every small fixture of a
// format (sharedtest.FixtureDirs), with the index of its format, and inputs of the shapes the
// fixtures lack.
func addSeeds(f *testing.F) {
	var seeds []string
	for _, d := range sharedtest.FixtureDirs("..", formats.Formats()) {
		files, _ := filepath.Glob(filepath.Join(d, "*"))
		seeds = append(seeds, files...)
	}
	sort.Strings(seeds)
	for _, s := range seeds {
		if filepath.Ext(s) == ".json" && bytes.Contains([]byte(s), []byte(".golden.")) {
			continue
		}
		if data, err := os.ReadFile(s); err == nil && len(data) < 16<<10 {
			for i, name := range formats.Formats() {
				if filepath.Base(filepath.Dir(s)) == name {
					f.Add(data, uint8(i))
				}
			}
		}
	}
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"/p/x"}}]},"cwd":"/p"}`), formatIndex(claudecode.Name))
	f.Add([]byte(`{"timestamp":"x","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[1]}}`), formatIndex(codex.Name))
	// The extended fields: server tools answering in the model's message,
	// calls with empty ids renamed later, token_count and exit codes,
	// subagent records, images, a cut-short last line.
	f.Add([]byte(`{"request":{"messages":[{"role":"user","content":"q"}]},"response":{"type":"message","content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{}},{"type":"web_search_tool_result","tool_use_id":"s","content":{"type":"web_search_tool_result_error","error_code":"x"}}],"usage":{"input_tokens":1,"output_tokens":2}}}`), formatIndex(importer.Anthropic))
	f.Add([]byte(`[{"request":{"messages":[{"role":"user","content":"q"}]},"response":{"object":"chat.completion","choices":[{"message":{"role":"assistant","tool_calls":[{"id":"","function":{"name":"f","arguments":"{}"}}]}}]}},{"request":{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c0","function":{"name":"f","arguments":"{ }"}}]},{"role":"tool","tool_call_id":"c0","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}]}}]`), formatIndex(importer.OpenAIChat))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}}
{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":3,"cached_input_tokens":-1}}}}
{"type":"event_msg","payload":{"type":"exec_command_end","call_id":"c","exit_code":2}}
{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}
{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"Exit code: 2\n"}}
{"type":"response_item","pay`), formatIndex(codex.Name))
	f.Add([]byte(`{"type":"assistant","uuid":"a","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Task","input":{"prompt":"p"}}]}}
{"type":"user","uuid":"b","isSidechain":true,"message":{"role":"user","content":"p"}}
{"type":"assistant","uuid":"c","parentUuid":"b","isSidechain":true,"message":{"id":"n","role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"}]}}
{"type":"user","uuid":"d","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}]}}`), formatIndex(claudecode.Name))
	// Claude Code's own records: a notification, a reminder before the
	// user's text (split), one after it (kept), a compaction summary.
	f.Add([]byte(`{"type":"user","uuid":"a","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>x</task-notification>"}}
{"type":"user","uuid":"b","isSidechain":true,"message":{"role":"user","content":[{"type":"text","text":"<system-reminder>r</system-reminder>"},{"type":"text","text":"typed"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}}
{"type":"user","uuid":"c","message":{"role":"user","content":[{"type":"text","text":" <system-reminder>r</system-reminder>"},"typed",{"type":"text","text":"<bash-input>ls</bash-input>"}]}}
{"type":"user","uuid":"d","isCompactSummary":true,"message":{"role":"user","content":"<command-name"}}`), formatIndex(claudecode.Name))
	// A subagent's records in progress records, one of them odd; a
	// <synthetic> notice; a result before its call; an MCP image only
	// in toolUseResult; a Windows working directory.
	f.Add([]byte(`{"type":"assistant","uuid":"a","cwd":"C:\\p","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Task","input":{"prompt":"p"}}]}}
{"type":"progress","uuid":"p1","parentToolUseID":"t","data":{"type":"agent_progress","agentId":"x","message":{"type":"user","uuid":"s1","message":{"role":"user","content":"p"}}}}
{"type":"progress","uuid":"p2","parentToolUseID":"t","data":{"type":"agent_progress","agentId":"x","message":{"type":"assistant","uuid":"s2","message":"odd"}}}
{"type":"progress","uuid":"p3","parentToolUseID":"t","data":{"type":"agent_progress","agentId":"x","message":{"type":"user","uuid":"s3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"r","content":"x"}]},"toolUseResult":{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}}}}
{"type":"progress","uuid":"p4","parentToolUseID":"t","data":{"type":"agent_progress","agentId":"x","message":{"type":"assistant","uuid":"s4","message":{"id":"n","role":"assistant","model":"h","content":[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"c:/p/a.txt"}}]}}}}
{"type":"assistant","uuid":"b","isApiErrorMessage":true,"message":{"id":"e","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error: 529"}]}}`), formatIndex(claudecode.Name))
}

// formatIndex is the seed byte FuzzImport reads as format f.
func formatIndex(f string) uint8 {
	return uint8(slices.Index(formats.Formats(), f))
}
