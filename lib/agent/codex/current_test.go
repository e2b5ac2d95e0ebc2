package codex_test

import (
	"bufio"
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/formatstest"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// codexSource counts, in a rollout's own lines, what the pack must hold:
// the tool calls and their outputs, the token counts of the model turns
// and the models the turns were sent to.
type codexSource struct {
	calls, results int
	usage          map[string]int // last_token_usage summed, in Codex's names
}

func countCodex(t *testing.T, data []byte) codexSource {
	t.Helper()
	src := codexSource{usage: map[string]int{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		rec := gjson.ParseBytes(sc.Bytes())
		p := rec.Get("payload")
		switch typ := p.Get("type").String(); {
		case rec.Get("type").String() == "response_item" && strings.HasSuffix(typ, "_call"):
			src.calls++
		case rec.Get("type").String() == "response_item" && strings.HasSuffix(typ, "_output"):
			src.results++
		case typ == "token_count" && p.Get("info").IsObject():
			p.Get("info.last_token_usage").ForEach(func(k, v gjson.Result) bool {
				src.usage[k.String()] += int(v.Int())
				return true
			})
		}
	}
	return src
}

// TestCodexCurrent: a rollout of the shapes Codex 0.11x-0.14x writes
// (base_instructions, developer permissions, AGENTS.md and environment
// context items, unified exec with its header, write_stdin, a sandbox
// refusal, a failed apply_patch, a declined command, web search, a model
// switch, a compaction) keeps every call, result, failure and token count
// of its source, makes Codex's own context items harness prompts of their
// kind, and names the model each turn went to.
func TestCodexCurrent(t *testing.T) {
	t.Parallel()
	const file = "testdata/codex/current.jsonl"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := formats.Import(codex.Name, data, importer.Options{Name: file})
	if err != nil {
		t.Fatal(err)
	}
	importtest.Golden(t, "testdata/codex/current.golden.json", canon.Indent(out), *formatstest.Update)
	l := importtest.Decode(t, out)
	src := countCodex(t, data)

	tools, results, _, usage := importtest.Tally(t, l)
	if tools != src.calls {
		t.Errorf("%d tool steps, the source has %d calls", tools, src.calls)
	}
	// web_search_call carries no output in a rollout: every other call has
	// its result.
	if results != src.results {
		t.Errorf("%d tool steps with a result, the source has %d outputs", results, src.results)
	}
	if wantUsage := codexUsage(src.usage); !reflect.DeepEqual(usage, wantUsage) {
		t.Errorf("usage = %v\nwant    %v", usage, wantUsage)
	}

	// An image among a result's content items is an output part, its
	// bytes the data: URL's.
	images := 0
	for _, s := range l.Steps {
		for _, p := range s.OutputParts {
			if p.Type == "image" {
				images++
				if p.MediaType != "image/png" || p.ContentBase64 != "iVBORw0KGgo=" {
					t.Errorf("image part = %+v", p)
				}
			}
		}
	}
	if want := strings.Count(string(data), `"type":"input_image"`); images != want {
		t.Errorf("%d image parts, the source has %d", images, want)
	}

	// Failures, counted by hand in the source: each call's exit code, or
	// the first line of what Codex answered instead.
	type fail struct {
		code any
		msg  string
	}
	wantFail := map[string]fail{
		"call_1": {2.0, ""}, // unified exec: Process exited with code 2
		"call_3": {1.0, ""}, // write_stdin: the process exited 1
		"call_4": {6.0, "failed in sandbox LinuxSeccomp with execution error: sandbox error: sandbox denied exec error, exit code: 6, stdout: , stderr: curl: (6) Could not resolve host: proxy.golang.org"},
		"call_5": {nil, "apply_patch verification failed: Failed to find expected lines in /home/dev/app/main.go:"},
		"call_7": {nil, "exec command rejected by user"}, // declined: never ran
	}
	gotFail := map[string]fail{}
	for _, s := range l.Steps {
		if s.Error == nil {
			continue
		}
		e, _ := s.Error.(map[string]any)
		msg, _ := e["message"].(string)
		gotFail[s.Metadata["call_id"].(string)] = fail{e["exit_code"], msg}
	}
	if !reflect.DeepEqual(gotFail, wantFail) {
		t.Errorf("failures:\n got %v\nwant %v", gotFail, wantFail)
	}

	// Prompts by role, and the harness's kinds.
	var roles, kinds []string
	for i, p := range l.Prompts {
		roles = append(roles, p.Role)
		if p.Role == importer.HarnessRole {
			kinds = append(kinds, promptMeta(l, i)["harness"].(string))
		}
	}
	wantRoles := []string{"harness", "harness", "harness", "user", "harness", "harness", "harness", "user", "harness"}
	wantKinds := []string{"permissions", "agents-md", "environment-context", "shell-command", "interrupt", "environment-context", "compact-summary"}
	if !reflect.DeepEqual(roles, wantRoles) || !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("prompts %v of kinds %v\nwant    %v of kinds %v", roles, kinds, wantRoles, wantKinds)
	}
	if l.SystemPrompt != "You are Codex, a coding agent." {
		t.Errorf("system prompt = %q", l.SystemPrompt)
	}
	if !strings.HasPrefix(l.Prompts[1].Content, "# AGENTS.md instructions for /home/dev/app\n\n<INSTRUCTIONS>\n") || l.Prompts[7].Content != "Fix the typo yourself please." {
		t.Errorf("prompts not byte for byte: %q, %q", l.Prompts[1].Content, l.Prompts[7].Content)
	}

	// The model each turn went to: the turn_context before it.
	var models []string
	for _, s := range l.Steps {
		if s.Type == importer.LLMCall {
			m, _ := s.Metadata["model"].(string)
			models = append(models, m)
		}
	}
	wantModels := append(slicesRepeat("gpt-5.4", 8), "gpt-5.5", "gpt-5.5", "gpt-5.5")
	if !reflect.DeepEqual(models, wantModels) || l.Model.Identifier != "gpt-5.4" {
		t.Errorf("run model %q, turns %v\nwant turns %v", l.Model.Identifier, models, wantModels)
	}

	wantReasons := []string{
		`event_msg "agent_message" (repeats response items for display): 1`,
		`event_msg "user_message" (repeats response items for display): 1`,
	}
	if !reflect.DeepEqual(rep.Reasons, wantReasons) {
		t.Errorf("reasons:\n got %q\nwant %q", rep.Reasons, wantReasons)
	}
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// promptMeta returns metadata.prompts' entry for prompt i.
func promptMeta(l *importtest.Log, i int) map[string]any {
	ps, _ := l.Metadata["prompts"].([]any)
	for _, p := range ps {
		if m := p.(map[string]any); m["index"] == float64(i) {
			return m
		}
	}
	return map[string]any{}
}

// TestCodexContextKinds: Codex's context items are told by the markers
// Codex tells them by — opening and closing, case-insensitive, the whole
// trimmed text — and nothing else is.
func TestCodexContextKinds(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>":                                  "agents-md",
		"<user_instructions>\nx\n</user_instructions>":                                                           "user-instructions",
		"  <ENVIRONMENT_CONTEXT>\n<cwd>/p</cwd>\n</environment_context>\n":                                       "environment-context",
		"<permissions instructions>\nx\n</permissions instructions>":                                             "permissions",
		"<user_shell_command>\n<command>\nls\n</command>\n</user_shell_command>":                                 "shell-command",
		"<turn_aborted>\nx\n</turn_aborted>":                                                                     "interrupt",
		"<skill>\n<name>s</name>\n</skill>":                                                                      "skill",
		"<subagent_notification>\n{}\n</subagent_notification>":                                                  "subagent-notification",
		`<hook_prompt hook_run_id="h1">check</hook_prompt>`:                                                      "hook-prompt",
		"<skills_instructions>\n## Skills\n</skills_instructions>":                                               "skills",
		"<tools>\nDeferred tool namespaces:\n</tools>":                                                           "tools",
		"Warning: apply_patch was requested via exec_command. Use the apply_patch tool instead of exec_command.": "warning",
		"<environment_context>\n<cwd>/p</cwd>\n</environment_context>\nand fix it":                               "",
		"please read <environment_context></environment_context>":                                                "",
		"<hook_promptx>y</hook_prompt>":                                                                          "",
		"# AGENTS.md":                                                                                            "",
	} {
		if got, _ := codex.Context(text); got != want {
			t.Errorf("%q: kind %q, want %q", text, got, want)
		}
	}
}

// TestCodexShapes: the newest rollout shapes (0.14x): a tool search and
// its output, a namespaced MCP tool and its error, an older rollout's
// {"content", "success": false}, a command that failed without running
// (exec_command_end status "failed", no output item), a code-mode script
// that failed, the items Codex completes with no response item (a plan)
// and the turns a user rolled back, a message from another agent; thread
// state lines and display events are skipped with their reasons.
func TestCodexShapes(t *testing.T) {
	t.Parallel()
	const file = "testdata/codex/shapes.jsonl"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := formats.Import(codex.Name, data, importer.Options{Name: file})
	if err != nil {
		t.Fatal(err)
	}
	importtest.Golden(t, "testdata/codex/shapes.golden.json", canon.Indent(out), *formatstest.Update)
	l := importtest.Decode(t, out)
	src := countCodex(t, data)
	tools, results, errs, _ := importtest.Tally(t, l)
	// call_e1's output is only in its exec_command_end event.
	if tools != src.calls || results != src.results+1 || errs != 4 {
		t.Errorf("%d tool steps, %d results, %d errors; the source has %d calls, %d outputs and an exec_command_end, 4 failures",
			tools, results, errs, src.calls, src.results)
	}
	var names []string
	for _, s := range l.Steps {
		if s.Type == importer.ToolCall {
			names = append(names, s.Tool)
		}
	}
	if want := []string{"tool_search", "mcp__docs__search", "shell", "exec_command", "exec"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	// The MCP call's error is its mcp_tool_call_end event's Err.
	if e, _ := l.Steps[3].Error.(map[string]any); e["message"] != "timeout" || l.Steps[3].Metadata["result"].(map[string]any)["mcp_tool_call_end"] == nil {
		t.Errorf("the MCP call: error %v, metadata %v", l.Steps[3].Error, l.Steps[3].Metadata)
	}
	if e, _ := l.Steps[7].Error.(map[string]any); e["exit_code"] != nil || e["message"] != "execution error: Io(Os { code: 2 })" {
		t.Errorf("a command that did not run: error %v", l.Steps[7].Error)
	}
	var events []string
	for _, e := range l.Metadata["events"].([]any) {
		events = append(events, e.(map[string]any)["type"].(string))
	}
	if want := []string{"turn_started", "item_completed", "thread_rolled_back"}; !reflect.DeepEqual(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
	// A user_message event no response item repeats is the only record
	// of that prompt; one that repeats a response item is skipped.
	if p := l.Prompts[1]; p.Role != "user" || len(p.Parts) != 2 || p.Parts[0]["content"] != "Also check this screenshot." || p.Parts[1]["content_base64"] != "iVBORw0KGgo=" || promptMeta(l, 1)["from"] != "event_msg" {
		t.Errorf("the prompt only an event holds: %+v", p)
	}
	if p := l.Prompts[len(l.Prompts)-1]; p.Role != importer.HarnessRole || p.Content != "Stop after the lint step." || promptMeta(l, len(l.Prompts)-1)["harness"] != "agent-message" {
		t.Errorf("the other agent's message: %+v", p)
	}
	// So is an agent_message no assistant message item holds: a model
	// turn of its own, of the turn's model.
	if s := l.Steps[9]; s.Type != importer.LLMCall || s.Output == nil || *s.Output != "Checking the docs server first." || s.Metadata["model"] != "gpt-5.6" {
		t.Errorf("the answer only an event holds: %+v", s)
	}
	// The world_state line is kept: the hashes of what Codex built its
	// context items from are in no other line.
	if ws, _ := l.Metadata["world_states"].([]any); len(ws) != 1 || ws[0].(map[string]any)["settings"] == nil {
		t.Errorf("world_states %v, want the one line's payload", l.Metadata["world_states"])
	}
	// The world_state line is kept: the hashes of what Codex built its
	// context items from are in no other line.
	if ws, _ := l.Metadata["world_states"].([]any); len(ws) != 1 || ws[0].(map[string]any)["settings"] == nil {
		t.Errorf("world_states %v, want the one line's payload", l.Metadata["world_states"])
	}
	wantReasons := []string{
		`event_msg "agent_message" (repeats response items for display): 1`,
		`event_msg "patch_apply_end" (repeats response items for display): 1`,
		`event_msg "some_new_event" (an event type this importer does not map): 1`,
		`event_msg "user_message" (repeats response items for display): 1`,
	}
	if !reflect.DeepEqual(rep.Reasons, wantReasons) {
		t.Errorf("reasons:\n got %q\nwant %q", rep.Reasons, wantReasons)
	}
}

// codexUsage names Codex's last_token_usage counters as the log's step
// usage does.
func codexUsage(u map[string]int) map[string]int {
	return map[string]int{
		"input_tokens": u["input_tokens"], "output_tokens": u["output_tokens"],
		"cache_read_tokens": u["cached_input_tokens"], "reasoning_tokens": u["reasoning_output_tokens"],
		"total_tokens": u["total_tokens"],
	}
}
