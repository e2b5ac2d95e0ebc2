package aider_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent/aider"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/formatstest"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// TestAiderCommands: a line typed to aider that is a command (/add,
// /drop, /model, /run, "!") is the harness's prompt, of the kind Claude
// Code's commands are (agent.KindCommand, agent.KindShellInput); what
// the user asked the model is the user's.
func TestAiderCommands(t *testing.T) {
	history := strings.Join([]string{
		"# aider chat started at 2025-05-04 17:02:36",
		"",
		"> Aider v0.82.2  ",
		"",
		"#### /add calc.py  ",
		"> Added calc.py to the chat  ",
		"",
		"#### /model sonnet  ",
		"> Main model: anthropic/claude-3-7-sonnet-20250219 with diff edit format  ",
		"",
		"#### /drop calc.py  ",
		"> Removed calc.py from the chat  ",
		"",
		"#### !ls  ",
		"",
		"#### why does divide fail?  ",
		"",
		"It is not.",
		"",
	}, "\n")
	out, _, err := formats.Import(aider.Name, []byte(history), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := gjson.ParseBytes(out)
	var got []string
	for i, p := range l.Get("prompts").Array() {
		got = append(got, p.Get("role").String()+":"+l.Get("metadata.prompts.#(index=="+strconv.Itoa(i)+").harness").String()+":"+p.Get("content").String())
	}
	want := []string{"harness:command:/add calc.py", "harness:command:/model sonnet", "harness:command:/drop calc.py",
		"harness:shell-input:!ls", "user::why does divide fail?"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("prompts = %q\nwant      %q", got, want)
	}
	// "!ls" still ran a shell step.
	if l.Get(`steps.#(tool=="shell").parameters.command`).String() != "ls" {
		t.Errorf("steps = %s", l.Get("steps").Raw)
	}
}

// TestAider: the Aider history, counted by hand: 7 user inputs (one
// of two lines), 5 answers; 5 SEARCH/REPLACE blocks (4 applied, with
// aider's "Applied edit" line as output, 1 that failed to match, without
// one), 1 whole file (applied: an output), a new file made by an empty
// SEARCH and edited (an output with both applied), 4 shell commands
// (three aider ran for the model, one the user ran with /run; a
// question of two lines read as one), whose output the history does not
// hold; an input of several lines with an empty one, an answer cut
// short by ^C (no edit); no usage, no times. Of the 10 prompts, 3 are
// commands to aider (/add, /run, /multiline-mode): the harness's.
func TestAider(t *testing.T) {
	out, rep := formatstest.Fixture(t, aider.Name, "history.md")
	importtest.CheckCounts(t, importtest.CountLog(out), importtest.Counts{Calls: 10, Results: 5, Errors: 1, Turns: 7, Users: 7, Usage: map[string]int64{}})
	l := gjson.ParseBytes(out)
	if l.Get("prompts.1.content").String() != "make divide() raise a ValueError on zero\nand say so in its docstring" {
		t.Errorf("prompt = %s", l.Get("prompts.1").Raw)
	}
	if l.Get("model.identifier").String() != "anthropic/claude-3-7-sonnet-20250219" || l.Get("created").Exists() {
		t.Errorf("model %s, created %s", l.Get("model").Raw, l.Get("created").Raw)
	}
	var tools []string
	for _, s := range l.Get("steps").Array() {
		if s.Get("type").String() == "tool_call" {
			tools = append(tools, s.Get("tool").String()+":"+s.Get("parameters.path").String()+s.Get("parameters.command").String())
		}
	}
	want := "edit:calc.py,shell:python -m pytest -q,shell:python -m pytest -q tests/test_calc.py,edit:tests/test_calc.py,edit:calc.py,write:hello.py," +
		"edit:NOTES.md,edit:NOTES.md,shell:python hello.py,shell:python -m pytest -q"
	if strings.Join(tools, ",") != want {
		t.Errorf("tool steps = %s", strings.Join(tools, ","))
	}
	if l.Get(`outputs.#(name=="hello.py").content`).String() != "print(\"hello\")\n" {
		t.Errorf("outputs = %s", l.Get("outputs").Raw)
	}
	if l.Get("prompts.8.content").String() != "Rewrite hello.py:\n\n- read the name from argv\n- default to \"world\"" {
		t.Errorf("prompt = %s", l.Get("prompts.8").Raw)
	}
	if l.Get(`outputs.#(name=="NOTES.md").content`).String() != "# Notes\n\n- divide() raises ValueError on zero\n- hello.py prints hello\n" {
		t.Errorf("outputs = %s", l.Get("outputs").Raw)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "|"), "4 tool call(s) have no result") ||
		!strings.Contains(strings.Join(rep.Warnings, "|"), "2 SEARCH/REPLACE edit(s) applied to files whose content the history does not hold") {
		t.Errorf("warnings = %q", rep.Warnings)
	}
}
