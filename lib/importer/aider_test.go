package importer

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestAiderCommands: a line typed to aider that is a command (/add,
// /drop, /model, /run, "!") is the harness's prompt, of the kind Claude
// Code's commands are (agent.KindCommand, agent.KindShellInput); what
// the user asked the model is the user's.
func TestAiderCommands(t *testing.T) {
	t.Parallel()
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
	out, _, err := Import(Aider, []byte(history), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := gjson.ParseBytes(out)
	var got []string
	for i, p := range l.Get("prompts").Array() {
		got = append(got, p.Get("role").String()+":"+l.Get("metadata.prompts.#(index=="+itoa(i)+").harness").String()+":"+p.Get("content").String())
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
