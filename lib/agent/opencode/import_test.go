package opencode_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent/opencode"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/formatstest"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// TestOpenCode: the OpenCode export, counted by hand: 5 tool parts, 4 with
// a result recorded and 1 failed (its output so far kept), 3 model calls
// (2 steps, and the aborted message, failed), 2 user prompts and a
// synthetic one, 1 image, the step-finish tokens, and the file written
// then edited as an output (the edit of a file only read is no output).
func TestOpenCode(t *testing.T) {
	out, rep := formatstest.Fixture(t, opencode.Name, "export.json")
	importtest.CheckCounts(t, importtest.CountLog(out), importtest.Counts{Calls: 5, Results: 5, Errors: 1, Turns: 3, Users: 2, Images: 1,
		Usage: map[string]int64{"input_tokens": 7, "output_tokens": 412, "reasoning_tokens": 0, "cache_read_tokens": 24100, "cache_creation_tokens": 1830}})
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
	got, err := opencode.Storage(filepath.Join(root, "storage", "session", doc.Get("info.projectID").String(), sid+".json"))
	if err != nil || got == nil {
		t.Fatal(got, err)
	}
	want, _, err := formats.Import(opencode.Name, data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	log, _, err := formats.Import(opencode.Name, got, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The export has todos the storage keeps elsewhere.
	want = []byte(strings.Replace(string(want), `,"todos":[{"content":"Strip accents in slugify","id":"1","priority":"high","status":"completed"}]`, "", 1))
	if string(log) != string(want) {
		t.Errorf("storage and export differ:\n%s\n%s", log, want)
	}
	if d, err := opencode.Storage("testdata/opencode/export.json"); d != nil || err != nil {
		t.Errorf("a file out of storage: %v, %v", d != nil, err)
	}
}

// TestOpenCodeBashExit: a real OpenCode 1.18.33 export (its scratch
// paths renamed) of a command that exited 1: the tool part is
// "completed", its metadata.exit 1, and the call failed with that exit
// code. The session's last answer stays its last turn's output: no
// final.md is made up.
func TestOpenCodeBashExit(t *testing.T) {
	out, _ := formatstest.Fixture(t, opencode.Name, "bash-exit.json")
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
