package copilot_test

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent/copilot"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/formatstest"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// copilotAutopilot is a Copilot CLI session in autopilot mode: a typed
// prompt, a turn with its assistant.usage, then the continuation the CLI
// sends by itself (empty content, only transformedContent) and a turn
// whose only count is its own outputTokens.
var copilotAutopilot = strings.Join([]string{
	`{"type":"session.start","data":{"sessionId":"s1","copilotVersion":"1.0.4","context":{"cwd":"/home/dev/shop"}},"id":"e1","timestamp":"2026-03-04T11:00:00.000Z"}`,
	`{"type":"user.message","data":{"content":"Fix the cart total.","transformedContent":"<current_datetime>2026-03-04T11:00:01Z</current_datetime>\n\nFix the cart total.","agentMode":"autopilot","attachments":[]},"id":"e2","timestamp":"2026-03-04T11:00:01.000Z"}`,
	`{"type":"assistant.message","data":{"messageId":"m1","content":"Looking at the cart.","outputTokens":40},"id":"e3","timestamp":"2026-03-04T11:00:02.000Z"}`,
	`{"type":"assistant.usage","data":{"model":"gpt-5","inputTokens":100,"outputTokens":40},"id":"e4","timestamp":"2026-03-04T11:00:02.100Z"}`,
	`{"type":"user.message","data":{"content":"","transformedContent":"You have not yet marked the task as complete. Continue working.","agentMode":"autopilot","isAutopilotContinuation":true,"attachments":[]},"id":"e5","timestamp":"2026-03-04T11:00:03.000Z"}`,
	`{"type":"assistant.message","data":{"messageId":"m2","content":"The total now sums price times quantity.","outputTokens":12},"id":"e6","timestamp":"2026-03-04T11:00:04.000Z"}`,
}, "\n") + "\n"

// TestCopilotAutopilot: the continuation is the harness's prompt (its
// text the one sent, its kind in metadata), not one the user typed, and
// a turn's outputTokens are its usage when no assistant.usage gives it.
func TestCopilotAutopilot(t *testing.T) {
	out, rep, err := formats.Import(copilot.Name, []byte(copilotAutopilot), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := gjson.ParseBytes(out)
	var roles []string
	for _, p := range l.Get("prompts").Array() {
		roles = append(roles, p.Get("role").String())
	}
	if strings.Join(roles, ",") != "user,harness" {
		t.Fatalf("prompt roles = %v", roles)
	}
	if got := l.Get("prompts.1.content").String(); got != "You have not yet marked the task as complete. Continue working." {
		t.Errorf("continuation text = %q", got)
	}
	if got := l.Get("metadata.prompts.1.harness").String(); got != "autopilot-continuation" {
		t.Errorf("continuation kind = %q (metadata.prompts: %s)", got, l.Get("metadata.prompts").Raw)
	}
	if l.Get("metadata.prompts.1.transformedContent").Exists() {
		t.Error("the continuation's text is kept twice")
	}
	if got := l.Get("prompts.0.content").String(); got != "Fix the cart total." {
		t.Errorf("typed prompt = %q", got)
	}
	steps := l.Get("steps").Array()
	if len(steps) != 2 {
		t.Fatalf("%d steps", len(steps))
	}
	if u := steps[0].Get("usage"); u.Get("input_tokens").Int() != 100 || u.Get("output_tokens").Int() != 40 {
		t.Errorf("first turn usage = %s", u.Raw)
	}
	if u := steps[1].Get("usage"); u.Get("output_tokens").Int() != 12 || u.Get("input_tokens").Exists() {
		t.Errorf("second turn usage = %s", u.Raw)
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w, "assistant.usage") {
			t.Errorf("warning: %s", w)
		}
	}
}

// TestCopilotCLI: the Copilot CLI fixture, counted by hand: 6 calls (one
// the subagent's), 6 results, 1 failure, 6 assistant.message events (2
// the subagent's), 1 user prompt with 1 image, the sums of the 4
// assistant.usage events, the one streaming delta skipped, and the file
// created then edited as an output.
func TestCopilotCLI(t *testing.T) {
	out, rep := formatstest.Fixture(t, copilot.Name, "session.jsonl")
	importtest.CheckCounts(t, importtest.CountLog(out), importtest.Counts{Calls: 6, Results: 6, Errors: 1, Turns: 6, Users: 1, Images: 1, SubagentSteps: 3,
		Usage: map[string]int64{"input_tokens": 14510, "output_tokens": 178, "cache_read_tokens": 12600, "cache_creation_tokens": 300, "reasoning_tokens": 0}})
	if rep.Skipped != 1 || !strings.Contains(strings.Join(rep.Reasons, ","), "streaming event") {
		t.Errorf("report = %+v", rep)
	}
	l := gjson.ParseBytes(out)
	if l.Get(`outputs.#(name=="src/total.js").content`).String() != "export const total = (items) =>\n  items.reduce((s, i) => s + i.price * i.qty, 0);\n" {
		t.Errorf("outputs = %s", l.Get("outputs").Raw)
	}
	if !strings.HasPrefix(l.Get("system_prompt").String(), "You are the GitHub Copilot CLI") {
		t.Errorf("system prompt = %s", l.Get("system_prompt").Raw)
	}
	if l.Get("model.identifier").String() != "claude-sonnet-4.5" {
		t.Errorf("model = %s", l.Get("model").Raw)
	}
	// Paths under the session's cwd are relative; the subagent's steps
	// hang off the task call.
	for _, s := range l.Get("steps").Array() {
		if s.Get("tool").String() == "view" && s.Get("parameters.path").String() != "src/cart.js" {
			t.Errorf("view parameters = %s", s.Get("parameters").Raw)
		}
		if s.Get("agent").String() == "toolu_03" && l.Get("steps").Array()[s.Get("parent_step").Int()].Get("tool").String() != "task" {
			t.Errorf("subagent step %s has parent %s", s.Get("index").Raw, s.Get("parent_step").Raw)
		}
	}
}
