package codex_test

import (
	"bufio"
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// TestCodexSessionGenerator checks the capture benchmark's Codex rollout
// (packgen.CodexSession) imports as what its lines hold, so that the
// benchmark measures the work a real rollout makes: every call and
// output, counted in the source, is a step with its result; each turn's
// four model responses are model steps with the token counts the
// rollout gives them; the failed test runs are failures; the file read
// and patched is an input and an output; nothing is lost or warned
// about, and what is skipped is what repeats response items.
func TestCodexSessionGenerator(t *testing.T) {
	t.Parallel()
	data := packgen.CodexSession(300 << 10)
	if !bytes.Equal(data, packgen.CodexSession(300<<10)) {
		t.Fatal("two rollouts of the same size differ")
	}
	out, rep, err := formats.Import(codex.Name, data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := importtest.Decode(t, out)

	// What the source holds, line by line.
	var (
		turns, reads, edits, tests, failed int
		firstRead, lastPatch               string
		summaries, answers                 int
	)
	src := countCodex(t, data)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	calls := map[string]string{}
	for sc.Scan() {
		p := gjson.GetBytes(sc.Bytes(), "payload")
		switch p.Get("type").String() {
		case "task_started":
			turns++
		case "function_call":
			cmd := gjson.Get(p.Get("arguments").String(), "cmd").String()
			calls[p.Get("call_id").String()] = cmd
			if strings.HasPrefix(cmd, "sed -n") {
				reads++
			} else {
				tests++
			}
		case "custom_tool_call":
			edits++
			lastPatch = p.Get("input").String()
		case "function_call_output":
			o := p.Get("output").String()
			if strings.HasPrefix(calls[p.Get("call_id").String()], "sed -n") && firstRead == "" {
				_, firstRead, _ = strings.Cut(o, "\nOutput:\n")
			}
			if strings.Contains(o, "\nProcess exited with code 1\n") {
				failed++
			}
		case "reasoning":
			summaries++
		case "message":
			if p.Get("role").String() == "assistant" {
				answers++
			}
		}
	}
	if turns < 10 || reads != turns || edits != turns || tests != turns || failed != turns/packgen.CodexFailEvery {
		t.Fatalf("the source has %d turns, %d reads, %d patches, %d test runs, %d failed", turns, reads, edits, tests, failed)
	}

	tools, results, errs, usage := importtest.Tally(t, l)
	if tools != src.calls || tools != 3*turns || results != src.results || errs != failed {
		t.Errorf("%d tool steps, %d results, %d errors; the source has %d calls, %d outputs, %d failed runs",
			tools, results, errs, src.calls, src.results, failed)
	}
	byTool := map[string]int{}
	for _, s := range l.Steps {
		if s.Type == importer.ToolCall {
			byTool[s.Tool]++
		}
	}
	if want := map[string]int{"exec_command": reads + tests, "apply_patch": edits}; !reflect.DeepEqual(byTool, want) {
		t.Errorf("tool steps %v, want %v", byTool, want)
	}
	// A model response per token count: the reasoning, commentary and
	// read; the reasoning and patch; the test run; the answer.
	models, withUsage := 0, 0
	for _, s := range l.Steps {
		if s.Type == importer.LLMCall {
			models++
			if len(s.Usage) > 0 {
				withUsage++
			}
		}
	}
	if models != 4*turns || withUsage != models || l.Count(importer.LLMCall)+tools != len(l.Steps) {
		t.Errorf("%d model steps, %d with usage, %d steps; want %d model steps, each with usage", models, withUsage, len(l.Steps), 4*turns)
	}
	if wantUsage := codexUsage(src.usage); !reflect.DeepEqual(usage, wantUsage) {
		t.Errorf("usage = %v\nwant    %v", usage, wantUsage)
	}

	// The user's prompts, after Codex's context items.
	var roles []string
	for _, p := range l.Prompts {
		roles = append(roles, p.Role)
	}
	if want := append([]string{importer.HarnessRole, importer.HarnessRole, importer.HarnessRole}, strings.Fields(strings.Repeat("user ", turns))...); !reflect.DeepEqual(roles, want) {
		t.Errorf("prompts of roles %v, want %v", roles, want)
	}

	// The file the turns read and patch: its first read is the input,
	// and the last patch is applied in the output.
	if len(l.Inputs) != 1 || l.Inputs[0].Name != packgen.CodexRoutes || l.Inputs[0].Content != firstRead {
		t.Errorf("inputs %+v, want %s as first read", l.Inputs, packgen.CodexRoutes)
	}
	var removed, added string
	for line := range strings.SplitSeq(lastPatch, "\n") {
		switch {
		case strings.HasPrefix(line, "-"):
			removed = line[1:]
		case strings.HasPrefix(line, "+"):
			added = line[1:]
		}
	}
	if len(l.Outputs) != 1 || l.Outputs[0].Name != packgen.CodexRoutes || !strings.Contains(l.Outputs[0].Content, "\n"+added+"\n") || strings.Contains(l.Outputs[0].Content, "\n"+removed+"\n") {
		t.Errorf("outputs %+v: want %s with the last patch (-%q +%q) applied", l.Outputs, packgen.CodexRoutes, removed, added)
	}

	if len(rep.Warnings) > 0 {
		t.Errorf("warnings: %q", rep.Warnings)
	}
	wantReasons := []string{
		`event_msg "agent_message" (repeats response items for display): ` + strconv.Itoa(answers),
		`event_msg "agent_reasoning" (repeats response items for display): ` + strconv.Itoa(turns),
		`event_msg "patch_apply_end" (repeats response items for display): ` + strconv.Itoa(edits),
		`event_msg "user_message" (repeats response items for display): ` + strconv.Itoa(turns),
	}
	if !reflect.DeepEqual(rep.Reasons, wantReasons) || summaries != 2*turns {
		t.Errorf("reasons:\n got %q\nwant %q", rep.Reasons, wantReasons)
	}
}
