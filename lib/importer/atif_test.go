package importer

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
)

// TestATIF imports the ATIF fixture and checks what it holds against the
// counts taken from the trajectory by hand: 6 tool calls (one in the
// embedded subagent), 6 results (one joined by its place, with no
// source_call_id), 1 failed call, 7 model turns, the token sums, prompts
// by role and the image.
func TestATIF(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/atif/harbor.json")
	if err != nil {
		t.Fatal(err)
	}
	if f, err := Detect("harbor.json", data); f != ATIF {
		t.Fatalf("Detect = %q, %v", f, err)
	}
	out, rep, err := Import(ATIF, data, Options{Name: "harbor.json"})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/atif/harbor.golden.json", canon.Indent(out))
	if _, err := execlog.Parse(out, execlog.Options{}); err != nil {
		t.Fatalf("ctx-pack would reject the log:\n%v", err)
	}
	if rep.Records != 11 || rep.Mapped != 11 {
		t.Errorf("report = %+v", rep)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], `steps[3].observation.results[0].content[0]: image "images/step_4_screenshot.png" is not in the trajectory`) {
		t.Errorf("warnings = %q", rep.Warnings)
	}
	l := gjson.ParseBytes(out)
	var calls, results, errors, turns, sub int
	usage := map[string]int64{}
	for _, s := range l.Get("steps").Array() {
		if s.Get("agent").String() == "traj-deps" {
			sub++
			if p := s.Get("parent_step").Int(); l.Get("steps").Array()[p].Get("tool").String() != "delegate" {
				t.Errorf("subagent step %s started by step %d", s.Get("index").Raw, p)
			}
		}
		switch s.Get("type").String() {
		case "tool_call":
			calls++
			if s.Get("output").Exists() || s.Get("output_parts").Exists() {
				results++
			}
			if s.Get("error").Exists() {
				errors++
				if s.Get("error.exit_code").Int() != 2 {
					t.Errorf("error = %s", s.Get("error").Raw)
				}
			}
		case "llm_call":
			turns++
			s.Get("usage").ForEach(func(k, v gjson.Result) bool {
				usage[k.Str] += v.Int()
				return true
			})
		}
	}
	if calls != 6 || results != 6 || errors != 1 || turns != 7 || sub != 3 {
		t.Errorf("%d calls, %d results, %d errors, %d turns, %d subagent steps", calls, results, errors, turns, sub)
	}
	want := map[string]int64{"input_tokens": 10632, "output_tokens": 186, "cache_read_tokens": 1024}
	for k, v := range want {
		if usage[k] != v {
			t.Errorf("usage %s = %d, want %d", k, usage[k], v)
		}
	}
	if l.Get("system_prompt").String() != "You are a careful engineer. Work in /app." {
		t.Errorf("system prompt = %s", l.Get("system_prompt").Raw)
	}
	var roles []string
	for _, p := range l.Get("prompts").Array() {
		roles = append(roles, p.Get("role").String())
	}
	if strings.Join(roles, ",") != "user,user" || l.Get("prompts.0.parts.1.type").String() != "image" {
		t.Errorf("prompts = %s", l.Get("prompts").Raw)
	}
	if l.Get("model.identifier").String() != "anthropic/claude-sonnet-4-5" || l.Get("created").String() != "2026-02-09T08:20:00Z" {
		t.Errorf("model %s, created %s", l.Get("model.identifier").Raw, l.Get("created").Raw)
	}
	if l.Get("metadata.atif.session_id").String() != "run-7f3a" || l.Get("steps.0.metadata.usage.cost_usd").Float() != 0.00312 {
		t.Errorf("metadata lost: %s", l.Get("metadata.atif").Raw)
	}
}

// TestATIFErrors: input that is no ATIF trajectory is an error naming
// where.
func TestATIFErrors(t *testing.T) {
	t.Parallel()
	for doc, want := range map[string]string{
		`{"schema_version":"v1","steps":[]}`:                                      `atif: schema_version: expected an ATIF v1 version`,
		`{"schema_version":"ATIF-v1.7","steps":{}}`:                               `atif: steps: expected an array of steps, got an object`,
		`{"schema_version":"ATIF-v1.7","steps":[{"source":"tool","message":""}]}`: `atif: steps[0].source: expected "system", "user" or "agent", got "tool"`,
		`{"schema_version":"ATIF-v1.7","steps":[{"source":"user","message":3}]}`:  `atif: steps[0].message: expected a string or an array of content parts, got a number`,
		`{"schema_version":"ATIF-v1.7","steps":[],"subagent_trajectories":[{}]}`:  `atif: subagent_trajectories[0].trajectory_id: an embedded subagent trajectory needs a trajectory_id`,
		`[{"schema_version":"ATIF-v1.7"}]`:                                        `atif: an ATIF trajectory is one JSON object`,
		`{"schema_version":"ATIF-v1.7","steps":[{"source":"agent","message":"","tool_calls":[{"tool_call_id":"c","function_name":"f","arguments":{}}],"observation":{"results":[{"source_call_id":"c","content":[{"type":"text"}]}]}}]}`: `atif: steps[0].observation.results[0].content[0].text: expected a string, got nothing`,
	} {
		_, _, err := Import(ATIF, []byte(doc), Options{})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error = %v, want %q", doc, err, want)
		}
	}
}

// nestedATIF is a trajectory whose subagent trajectories nest depth
// deep, each one agent step.
func nestedATIF(depth int) []byte {
	var b strings.Builder
	step := `"steps":[{"step_id":1,"source":"agent","message":"working"}]`
	for i := 0; i <= depth; i++ {
		if i == 0 {
			b.WriteString(`{"schema_version":"ATIF-v1.7","session_id":"s",` + step)
		} else {
			fmt.Fprintf(&b, `,"subagent_trajectories":[{"schema_version":"ATIF-v1.7","trajectory_id":"sub%d",%s`, i, step)
		}
	}
	for i := depth; i > 0; i-- {
		b.WriteString("}]")
	}
	b.WriteString("}")
	return []byte(b.String())
}

// TestATIFDepth: subagents nested up to MaxSubagentDepth deep import;
// deeper is an error at once (the import of 4,000 levels took seconds
// and hundreds of MiB, since each level's name and path hold the ones
// above it).
func TestATIFDepth(t *testing.T) {
	if _, _, err := Import(ATIF, nestedATIF(MaxSubagentDepth), Options{}); err != nil {
		t.Fatalf("%d levels: %v", MaxSubagentDepth, err)
	}
	for _, depth := range []int{MaxSubagentDepth + 1, 9000} {
		start := time.Now()
		_, _, err := Import(ATIF, nestedATIF(depth), Options{})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("nested more than %d deep", MaxSubagentDepth)) {
			t.Errorf("%d levels: err = %v", depth, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%d levels: refused after %v", depth, d)
		}
	}
}
