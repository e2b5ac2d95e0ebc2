package claudecode_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// recentCounts are, for this package's fixtures of the shapes the newest
// agent versions write, the numbers counted by hand in the source: tool
// calls, their results, failed calls, the sums of each token counter over
// the model turns (a message split over lines counted once), images and
// documents in tool results, steps of subagents, prompts by role, and the
// workspace's inputs and outputs.
var recentCounts = []struct {
	file                   string
	tools, results, errors int
	usage                  map[string]int
	media, subagent        int
	prompts                map[string]int
	inputs, outputs        int
}{
	// A Task subagent's turns only in progress records (2.1.3x).
	{file: "claude-code/progress.jsonl", tools: 4, results: 4, errors: 1,
		usage:    map[string]int{"input_tokens": 45, "output_tokens": 235, "cache_read_tokens": 24800, "cache_creation_tokens": 850},
		subagent: 6, prompts: map[string]int{"user": 1}, inputs: 2, outputs: 0},
	// A Windows session (cwd C:\Users\dev\proj) that reads, writes and
	// edits, one path with a lower-case drive letter, one with "/".
	{file: "claude-code/windows.jsonl", tools: 8, results: 8, errors: 1,
		usage:   map[string]int{"input_tokens": 47, "output_tokens": 190, "cache_read_tokens": 900, "cache_creation_tokens": 0},
		prompts: map[string]int{"user": 1}, inputs: 3, outputs: 3},
	// An MCP result of text + text + image (the image repeated in
	// toolUseResult), and one whose image is only in toolUseResult.
	{file: "claude-code/mcp-image.jsonl", tools: 2, results: 2,
		usage: map[string]int{"input_tokens": 18, "output_tokens": 95, "cache_read_tokens": 3000, "cache_creation_tokens": 30},
		media: 2, prompts: map[string]int{"user": 1}, outputs: 0},
	// A tool result a line before its call.
	{file: "claude-code/result-first.jsonl", tools: 2, results: 2,
		usage:   map[string]int{"input_tokens": 15, "output_tokens": 44, "cache_read_tokens": 3000, "cache_creation_tokens": 30},
		prompts: map[string]int{"user": 1}, inputs: 1, outputs: 0},
	// <synthetic> records (an API error, the note after an interrupt)
	// and a switch of model: two model turns, not four.
	{file: "claude-code/synthetic.jsonl", tools: 1, results: 1,
		usage:   map[string]int{"input_tokens": 12, "output_tokens": 26, "cache_read_tokens": 2000, "cache_creation_tokens": 20},
		prompts: map[string]int{"user": 2, "harness": 4}, outputs: 0},
}

// A <synthetic> assistant record is the harness's notice, of its kind,
// never a model turn; each model turn names the model that answered it.
func TestClaudeCodeSynthetic(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/claude-code/synthetic.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := formats.Import(claudecode.Name, data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := importtest.Decode(t, out)
	var kinds []any
	for _, p := range l.Metadata["prompts"].([]any) {
		if k, ok := p.(map[string]any)["harness"]; ok {
			kinds = append(kinds, k)
		}
	}
	if want := []any{"api-error", "command", "interrupt", "synthetic"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("harness kinds %v, want %v", kinds, want)
	}
	var models []any
	for _, s := range l.Steps {
		if s.Type == importer.LLMCall {
			models = append(models, s.Metadata["model"])
		}
	}
	if want := []any{"claude-opus-4-7", "claude-sonnet-4-6"}; !reflect.DeepEqual(models, want) {
		t.Errorf("models of the model turns %v, want %v", models, want)
	}
	// The last answer is the last model turn's output, not an output file.
	last := ""
	for _, s := range l.Steps {
		if s.Type == importer.LLMCall && s.Output != nil {
			last = *s.Output
		}
	}
	if l.Model.Identifier != "claude-opus-4-7" || len(l.Outputs) != 0 || last != "The tests pass." {
		t.Errorf("model %q, outputs %+v, last answer %q", l.Model.Identifier, l.Outputs, last)
	}
}

// Every image or document of a tool result is a part of its output; the
// copies in toolUseResult say which part they are, and none stays in
// metadata.
func TestClaudeCodeMediaNotInMetadata(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/claude-code/mcp-image.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := formats.Import(claudecode.Name, data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The base64 of the two images, as the source has them.
	images := []string{
		gjson.Get(strings.Split(string(data), "\n")[2], "toolUseResult.2.source.data").Str,
		gjson.Get(strings.Split(string(data), "\n")[4], "toolUseResult.content.1.data").Str,
	}
	l := importtest.Decode(t, out)
	meta := gjson.GetBytes(out, "steps.#.metadata").Raw
	for _, b64 := range images {
		if b64 == "" || strings.Contains(meta, b64) {
			t.Errorf("an image's base64 %.12q… is in metadata (or not in the fixture)", b64)
		}
	}
	types := func(i int) (ts []string) {
		for _, p := range l.Steps[i].OutputParts {
			ts = append(ts, p.Type+" "+p.MediaType)
		}
		return ts
	}
	if got, want := types(1), []string{"text ", "text ", "image image/jpeg"}; !reflect.DeepEqual(got, want) {
		t.Errorf("screenshot parts %q, want %q", got, want)
	}
	if got, want := types(3), []string{"text ", "image image/png"}; !reflect.DeepEqual(got, want) {
		t.Errorf("chart parts %q, want %q", got, want)
	}
	res := l.Steps[3].Metadata["result"].(map[string]any)["toolUseResult"].(map[string]any)["content"].([]any)[1].(map[string]any)
	if res["data_omitted"] != "the same as the step's output_parts[1]" {
		t.Errorf("the chart's toolUseResult image = %v", res)
	}
}

// TestRecentCounts: on each fixture, the pack has every call, result,
// failure, token, image, subagent step, prompt and file of the source.
func TestRecentCounts(t *testing.T) {
	t.Parallel()
	for _, want := range recentCounts {
		t.Run(want.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", want.file))
			if err != nil {
				t.Fatal(err)
			}
			format, err := formats.Detect(want.file, data)
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := formats.Import(format, data, importer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			l := importtest.Decode(t, out)
			tools, results, errs, usage := importtest.Tally(t, l)
			if tools != want.tools || results != want.results || errs != want.errors {
				t.Errorf("%d tool steps, %d results, %d errors; want %d, %d, %d", tools, results, errs, want.tools, want.results, want.errors)
			}
			if !reflect.DeepEqual(usage, want.usage) {
				t.Errorf("usage = %v\nwant    %v", usage, want.usage)
			}
			media, sub := 0, 0
			for _, s := range l.Steps {
				for _, p := range s.OutputParts {
					if p.Type != "text" {
						media++
					}
				}
				if s.Agent != "" {
					sub++
				}
			}
			if media != want.media || sub != want.subagent {
				t.Errorf("%d media parts, %d subagent steps; want %d, %d", media, sub, want.media, want.subagent)
			}
			prompts := map[string]int{}
			for _, p := range l.Prompts {
				prompts[p.Role]++
			}
			if !reflect.DeepEqual(prompts, want.prompts) {
				t.Errorf("prompts by role = %v, want %v", prompts, want.prompts)
			}
			if len(l.Inputs) != want.inputs || len(l.Outputs) != want.outputs {
				t.Errorf("%d inputs, %d outputs; want %d, %d", len(l.Inputs), len(l.Outputs), want.inputs, want.outputs)
			}
		})
	}
}

// A subagent's records may be both in the session's progress records and
// in its own transcript (subagents/agent-<id>.jsonl): read with both, each
// record is one step, once, with the transcript's records the progress
// records lack (here a text line of a turn) merged in.
func TestClaudeCodeProgressAndTranscript(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/claude-code/progress.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// The subagent's transcript, as Claude Code writes it: the records
	// the progress records carry, marked as the subagent's.
	var sub strings.Builder
	copies := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		r := gjson.Parse(line)
		if r.Get("data.type").String() != "agent_progress" {
			continue
		}
		copies++
		m := r.Get("data.message").Raw
		rec := `{"isSidechain":true,"agentId":"a5c9e21","sessionId":"s",` + m[1:]
		sub.WriteString(rec + "\n")
		if r.Get("data.message.uuid").String() == "s2" {
			// A line the progress records do not have.
			sub.WriteString(`{"isSidechain":true,"agentId":"a5c9e21","type":"assistant","uuid":"s2b","timestamp":"2026-02-12T16:02:50.100Z","message":{"model":"claude-haiku-4-5-20251001","id":"msg_sub1","role":"assistant","content":[{"type":"text","text":"Reading config.go."}]}}` + "\n")
		}
	}
	out, rep, err := formats.Import(claudecode.Name, data, importer.Options{Subagents: []importer.File{{Name: "s/subagents/agent-a5c9e21.jsonl", Data: []byte(sub.String())}}})
	if err != nil {
		t.Fatal(err)
	}
	l := importtest.Decode(t, out)
	tools, results, errs, _ := importtest.Tally(t, l)
	if tools != 4 || results != 4 || errs != 1 {
		t.Errorf("%d tool steps, %d results, %d errors; want 4, 4, 1", tools, results, errs)
	}
	var agents []string
	for _, s := range l.Steps {
		if s.Agent == "" {
			continue
		}
		agents = append(agents, s.Type+" "+s.Tool)
		if s.ParentStep == nil || *s.ParentStep != 1 {
			t.Errorf("steps[%d] has parent %v, want the Task step 1", s.Index, s.ParentStep)
		}
	}
	want := []string{"llm_call ", "tool_call Read", "llm_call ", "tool_call Grep", "tool_call Bash", "llm_call "}
	if !reflect.DeepEqual(agents, want) {
		t.Errorf("subagent steps %q, want %q", agents, want)
	}
	if importtest.Deref(l.Steps[2].Output) != "Reading config.go." {
		t.Errorf("the transcript's own line is not in its turn: %q", importtest.Deref(l.Steps[2].Output))
	}
	if !slices.Contains(rep.Reasons, ccReason("progress/agent_progress copy")+": 8") {
		t.Errorf("reasons = %q, want the 8 progress copies", rep.Reasons)
	}
	if len(l.Inputs) != 2 || l.Inputs[0].Name != "config.go" {
		t.Errorf("inputs = %+v", l.Inputs)
	}
	if copies != 8 {
		t.Fatalf("the fixture has %d agent_progress records, want 8", copies)
	}
}

// A subagent's steps read from progress records join the Task call their
// parentToolUseID names, even when the Task's result (which names the
// agent) is not in the transcript and the subagent's prompt is not the
// Task's word for word.
func TestClaudeCodeProgressWithoutTaskResult(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/claude-code/progress.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		switch gjson.Get(line, "uuid").String() {
		case "u2": // the Task's result
		case "p1": // the subagent's prompt
			kept = append(kept, strings.Replace(line, `"text":"Find where`, `"text":"Context: the repo is small.\nFind where`, 1))
		default:
			kept = append(kept, line)
		}
	}
	out, _, err := formats.Import(claudecode.Name, []byte(strings.Join(kept, "\n")), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range importtest.Decode(t, out).Steps {
		if s.Agent == "" {
			continue
		}
		n++
		if s.Agent != "a5c9e21" || s.ParentStep == nil || *s.ParentStep != 1 {
			t.Errorf("steps[%d]: agent %q, parent %v; want a5c9e21 under the Task step 1", s.Index, s.Agent, s.ParentStep)
		}
	}
	if n != 6 {
		t.Errorf("%d subagent steps, want 6", n)
	}
}

// A Read whose result has no toolUseResult (a subagent's progress
// records in 2.1.3x hold only the lines shown) makes no input, and
// stderr says which files.
func TestClaudeCodeReadWithoutToolUseResult(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/claude-code/progress.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if gjson.Get(line, "uuid").String() == "p3" { // the result of the subagent's Read
			line = strings.Replace(line, `,"toolUseResult":{"type":"text","file":{"filePath":"/home/dev/proj/config.go","content":"package config\n\nfunc Load() {}\n","numLines":3,"startLine":1,"totalLines":3}}`, "", 1)
			if strings.Contains(line, "toolUseResult") {
				t.Fatal("the fixture's Read result changed")
			}
		}
		kept = append(kept, line)
	}
	out, rep, err := formats.Import(claudecode.Name, []byte(strings.Join(kept, "\n")), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := importtest.Decode(t, out)
	if len(l.Inputs) != 1 || l.Inputs[0].Name != "main.go" {
		t.Errorf("inputs = %+v, want main.go (listed) only", l.Inputs)
	}
	if w := "1 file(s) read with no toolUseResult (only the lines shown are recorded, not the file) are no inputs: config.go"; !slices.Contains(rep.Warnings, w) {
		t.Errorf("warnings %q lack %q", rep.Warnings, w)
	}
}

// ccReason is why Claude Code's records of kind are skipped.
func ccReason(kind string) string {
	k, _ := importer.KnownKind(claudecode.Format.Kinds, kind)
	return k.Skip
}
