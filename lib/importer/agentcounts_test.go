package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
)

// logCounts are what a test counts in an imported log, to compare with
// the counts taken from the source by hand.
type logCounts struct {
	calls, results, errors, turns, users, images, subagentSteps int
	usage                                                       map[string]int64
}

func countLog(out []byte) logCounts {
	var c logCounts
	c.usage = map[string]int64{}
	l := gjson.ParseBytes(out)
	for _, s := range l.Get("steps").Array() {
		if s.Get("agent").String() != "" {
			c.subagentSteps++
		}
		for _, p := range s.Get("output_parts").Array() {
			if p.Get("type").String() == "image" {
				c.images++
			}
		}
		if s.Get("type").String() == "tool_call" {
			c.calls++
			if s.Get("output").Exists() || s.Get("output_parts").Exists() {
				c.results++
			}
			if s.Get("error").Exists() {
				c.errors++
			}
			continue
		}
		c.turns++
		s.Get("usage").ForEach(func(k, v gjson.Result) bool {
			c.usage[k.Str] += v.Int()
			return true
		})
	}
	for _, p := range l.Get("prompts").Array() {
		if p.Get("role").String() == "user" {
			c.users++
		}
		for _, part := range p.Get("parts").Array() {
			if part.Get("type").String() == "image" {
				c.images++
			}
		}
	}
	return c
}

// importFixture imports testdata/<format>/<file>, checks detection, the
// golden log and that ctx-pack accepts it, and returns the log.
func importFixture(t *testing.T, format, file string) ([]byte, Report) {
	t.Helper()
	path := filepath.Join("testdata", format, file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := Detect(path, data); f != format {
		t.Fatalf("Detect = %q, %v", f, err)
	}
	out, rep, err := Import(format, data, Options{Name: file})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, strings.TrimSuffix(path, filepath.Ext(path))+".golden.json", canon.Indent(out))
	if _, err := execlog.Parse(out, execlog.Options{}); err != nil {
		t.Fatalf("ctx-pack would reject the log:\n%v", err)
	}
	if rep.Mapped+rep.Skipped != rep.Records {
		t.Errorf("report = %+v", rep)
	}
	return out, rep
}

// checkCounts compares counts with those taken from the source.
func checkCounts(t *testing.T, got, want logCounts) {
	t.Helper()
	if got.calls != want.calls || got.results != want.results || got.errors != want.errors || got.turns != want.turns ||
		got.users != want.users || got.images != want.images || got.subagentSteps != want.subagentSteps {
		t.Errorf("%d calls, %d results, %d errors, %d turns, %d user prompts, %d images, %d subagent steps; want %d, %d, %d, %d, %d, %d, %d",
			got.calls, got.results, got.errors, got.turns, got.users, got.images, got.subagentSteps,
			want.calls, want.results, want.errors, want.turns, want.users, want.images, want.subagentSteps)
	}
	if len(got.usage) != len(want.usage) {
		t.Errorf("usage = %v, want %v", got.usage, want.usage)
	}
	for k, v := range want.usage {
		if got.usage[k] != v {
			t.Errorf("usage %s = %d, want %d", k, got.usage[k], v)
		}
	}
}

// TestCopilotCLI: the Copilot CLI fixture, counted by hand: 6 calls (one
// the subagent's), 6 results, 1 failure, 6 assistant.message events (2
// the subagent's), 1 user prompt with 1 image, the sums of the 4
// assistant.usage events, the one streaming delta skipped, and the file
// created then edited as an output.
func TestCopilotCLI(t *testing.T) {
	t.Parallel()
	out, rep := importFixture(t, CopilotCLI, "session.jsonl")
	checkCounts(t, countLog(out), logCounts{calls: 6, results: 6, errors: 1, turns: 6, users: 1, images: 1, subagentSteps: 3,
		usage: map[string]int64{"input_tokens": 14510, "output_tokens": 178, "cache_read_tokens": 12600, "cache_creation_tokens": 300, "reasoning_tokens": 0}})
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

// TestOpenCode: the OpenCode export, counted by hand: 5 tool parts, 4 with
// a result recorded and 1 failed (its output so far kept), 3 model calls
// (2 steps, and the aborted message, failed), 2 user prompts and a
// synthetic one, 1 image, the step-finish tokens, and the file written
// then edited as an output (the edit of a file only read is no output).
func TestOpenCode(t *testing.T) {
	t.Parallel()
	out, rep := importFixture(t, OpenCode, "export.json")
	checkCounts(t, countLog(out), logCounts{calls: 5, results: 5, errors: 1, turns: 3, users: 2, images: 1,
		usage: map[string]int64{"input_tokens": 7, "output_tokens": 412, "reasoning_tokens": 0, "cache_read_tokens": 24100, "cache_creation_tokens": 1830}})
	l := gjson.ParseBytes(out)
	if l.Get("prompts.1.role").String() != "harness" || l.Get("steps.2.parameters.command").String() != "bun test slug" ||
		l.Get("steps.1.parameters.filePath").String() != "src/slug.ts" {
		t.Errorf("prompts %s, steps %s", l.Get("prompts").Raw, l.Get("steps").Raw)
	}
	if l.Get(`outputs.#(name=="CHANGELOG.md").content`).String() != "# Changelog\n\n- slugify strips accents (NFD)\n" ||
		strings.Join(rep.Warnings, "|") != "1 edit(s) of files whose content the session does not show: they are steps, not outputs" {
		t.Errorf("outputs = %s, warnings %q", l.Get("outputs").Raw, rep.Warnings)
	}
	if last := l.Get("steps.7"); last.Get("error.message").String() != "MessageAbortedError: The operation was aborted." {
		t.Errorf("last step = %s", last.Raw)
	}
}

// TestOpenCodeStorage: a session of OpenCode's file storage reads as its
// export does.
func TestOpenCodeStorage(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/opencode/export.json")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	doc := gjson.ParseBytes(data)
	sid := doc.Get("info.id").String()
	write := func(path string, v gjson.Result) {
		p := filepath.Join(root, "storage", path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v.Raw), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("session/"+doc.Get("info.projectID").String()+"/"+sid+".json", doc.Get("info"))
	for _, m := range doc.Get("messages").Array() {
		mid := m.Get("info.id").String()
		write("message/"+sid+"/"+mid+".json", m.Get("info"))
		for _, p := range m.Get("parts").Array() {
			write("part/"+mid+"/"+p.Get("id").String()+".json", p)
		}
	}
	got, err := OpenCodeStorage(filepath.Join(root, "storage", "session", doc.Get("info.projectID").String(), sid+".json"))
	if err != nil || got == nil {
		t.Fatal(got, err)
	}
	want, _, err := Import(OpenCode, data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	log, _, err := Import(OpenCode, got, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The export has todos the storage keeps elsewhere.
	want = []byte(strings.Replace(string(want), `,"todos":[{"content":"Strip accents in slugify","id":"1","priority":"high","status":"completed"}]`, "", 1))
	if string(log) != string(want) {
		t.Errorf("storage and export differ:\n%s\n%s", log, want)
	}
	if d, err := OpenCodeStorage("testdata/opencode/export.json"); d != nil || err != nil {
		t.Errorf("a file out of storage: %v, %v", d != nil, err)
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
	t.Parallel()
	out, rep := importFixture(t, Aider, "history.md")
	checkCounts(t, countLog(out), logCounts{calls: 10, results: 5, errors: 1, turns: 7, users: 7, usage: map[string]int64{}})
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

// TestGeminiNoIDs: messages of an older session without ids are each
// their own (not one, as a shared empty id would make them).
func TestGeminiNoIDs(t *testing.T) {
	t.Parallel()
	doc := `{"sessionId":"s","projectHash":"h","startTime":"2026-02-23T00:07:11.272Z","messages":[` +
		`{"timestamp":"2026-02-23T00:07:12.000Z","type":"user","content":"a"},` +
		`{"timestamp":"2026-02-23T00:07:13.000Z","type":"gemini","content":"b","model":"gemini-2.5-pro"},` +
		`{"timestamp":"2026-02-23T00:07:14.000Z","type":"user","content":"c"}]}`
	out, rep, err := Import(GeminiCLI, []byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := gjson.ParseBytes(out)
	if l.Get("prompts.#").Int() != 2 || l.Get("steps.#").Int() != 1 || rep.Records != 3 {
		t.Errorf("report %+v, log %s", rep, out)
	}
}

// TestOpenCodeBashExit: a real OpenCode 1.18.33 export (its scratch
// paths renamed) of a command that exited 1: the tool part is
// "completed", its metadata.exit 1, and the call failed with that exit
// code. The session's last answer stays its last turn's output: no
// final.md is made up.
func TestOpenCodeBashExit(t *testing.T) {
	t.Parallel()
	out, _ := importFixture(t, OpenCode, "bash-exit.json")
	l := gjson.ParseBytes(out)
	bash := l.Get(`steps.#(tool=="bash")`)
	if bash.Get("error.exit_code").Raw != "1" || bash.Get("output").String() != "(no output)" {
		t.Errorf("bash step = %s", bash.Raw)
	}
	if o := l.Get("outputs"); o.Exists() {
		t.Errorf("outputs = %s, want none", o.Raw)
	}
	if cwd := l.Get("metadata.session.cwd").String(); cwd != "/home/dev/proj" {
		t.Errorf("metadata.session.cwd = %q", cwd)
	}
}
