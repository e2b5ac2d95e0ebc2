package importer

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"flag"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
	"github.com/tidwall/gjson"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// step is what a fixture test expects of one step.
type wantStep struct {
	typ, tool string
	params    string // JSON, or "" for none
	output    *string
	isError   bool
}

func llm(output *string) wantStep { return wantStep{typ: LLMCall, output: output} }

func tool(name, params string, output *string, isError bool) wantStep {
	return wantStep{typ: toolCall, tool: name, params: params, output: output, isError: isError}
}

// fixture is one of this package's own edge-case inputs (testdata/).
type fixture struct {
	file     string
	format   string
	model    string
	system   string
	prompts  []string
	steps    []wantStep
	outputs  map[string]string
	warnings []string
	check    func(t *testing.T, l *testLog, out []byte, rep Report)
}

var fixtures = []fixture{
	{
		// Multi-turn tool use; one message split over three lines with two
		// parallel calls answered out of order; a failing tool; a call
		// with no result; path parameters under cwd made relative, free
		// text (a command, an output) left as it is.
		file: "claude-code/edge.jsonl", format: ClaudeCode, model: "claude-sonnet-4-5",
		prompts: []string{"List the Go files, then read main.go and run the tests"},
		steps: []wantStep{
			llm(nil),
			tool("Glob", `{"pattern":"**/*.go","path":"."}`, ptr("/home/dev/proj/main.go\n/home/dev/proj/cmd/x.go\n/home/dev/proj2/other.go"), false),
			tool("Read", `{"file_path":"main.go"}`, ptr("package main\n"), false),
			llm(ptr("Running the tests in /home/dev/proj.")),
			tool("Bash", `{"command":"cd /home/dev/proj && go test ./..."}`, ptr("FAIL ./cmd"), true),
			llm(ptr("The cmd package fails; checking it.")),
			tool("Read", `{"file_path":"cmd/x.go"}`, nil, false),
		},
		outputs:  map[string]string{FinalName: "The cmd package fails; checking it."},
		warnings: []string{"1 tool call(s) have no result"},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if l.Metadata["session"].(map[string]any)["cwd"] != "/home/dev/proj" {
				t.Errorf("session = %v", l.Metadata["session"])
			}
			if rep.Records != 11 || rep.Mapped != 10 || rep.Skipped != 1 ||
				!reflect.DeepEqual(rep.Reasons, []string{`record type "progress" (hook and tool progress): 1`}) {
				t.Errorf("report = %+v", rep)
			}
			if deref(l.Steps[0].Reasoning) != "Two independent reads first." {
				t.Errorf("reasoning = %v", deref(l.Steps[0].Reasoning))
			}
			if !l.Steps[1].Deterministic || !l.Steps[2].Deterministic || l.Steps[4].Deterministic {
				t.Error("Glob and Read are deterministic, Bash is not")
			}
			res := l.Steps[2].Metadata["result"].(map[string]any)
			if res["toolUseResult"].(map[string]any)["file"].(map[string]any)["filePath"] != "/home/dev/proj/main.go" {
				t.Errorf("result metadata = %v", res)
			}
			if l.Created != "2026-01-05T10:00:00Z" || l.Environment.ToolVersions["claude-code"] != "2.0.1" {
				t.Errorf("created %q, environment %+v", l.Created, l.Environment)
			}
			if l.Metadata["summaries"] == nil || l.Metadata["session"].(map[string]any)["sessionId"] != "s1" {
				t.Errorf("metadata = %v", l.Metadata)
			}
		},
	},
	{
		file: "codex/edge.jsonl", format: Codex, model: "gpt-5-codex", system: "Be careful.",
		prompts: []string{"Why does the build fail?"},
		steps: []wantStep{
			llm(nil),
			tool("shell", `{"command":["bash","-lc","make"],"workdir":"."}`, ptr(`{"output":"make: *** [all] Error 2","metadata":{"exit_code":2}}`), true),
			tool("read_file", `{"path":"config.yaml"}`, ptr("port: 80\n"), false),
			llm(ptr("The Makefile target is wrong; I patched it.")),
			tool("apply_patch", `"*** Begin Patch\n*** Update File: /home/dev/app/Makefile\n*** End Patch"`, nil, false),
		},
		outputs:  map[string]string{FinalName: "The Makefile target is wrong; I patched it."},
		warnings: []string{"1 tool call(s) have no result"},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if l.Metadata["session"].(map[string]any)["cwd"] != "/home/dev/app" {
				t.Errorf("session = %v", l.Metadata["session"])
			}
			if l.Model.Parameters["reasoning_effort"] != "medium" || deref(l.Steps[0].Reasoning) != "Look at the build and the config together." {
				t.Errorf("parameters %v, metadata %v", l.Model.Parameters, l.Steps[0].Metadata)
			}
			if rep.Skipped != 2 || rep.Mapped != 10 {
				t.Errorf("report = %+v", rep)
			}
			if !l.Steps[2].Deterministic || l.Steps[1].Deterministic {
				t.Error("read_file is deterministic, shell is not")
			}
		},
	},
	{
		file: "openai-chat/edge.json", format: OpenAIChat, model: "gpt-4.1-2025-04-14", system: "You are a file assistant.",
		prompts: []string{"Compare a.txt and b.txt"},
		steps: []wantStep{
			llm(nil),
			tool("read_file", `{"path":"a.txt"}`, ptr("alpha"), false),
			tool("read_file", `{"path":"b.txt"}`, ptr("Error: b.txt not found"), false),
			llm(ptr("b.txt is missing; searching for it.")),
			tool("search", `"not json"`, nil, false),
		},
		outputs:  map[string]string{FinalName: "b.txt is missing; searching for it."},
		warnings: []string{"1 tool call(s) have no result"},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			want := map[string]any{"temperature": 0.0, "seed": 42.0, "system_fingerprint": "fp_1"}
			if !reflect.DeepEqual(l.Model.Parameters, want) {
				t.Errorf("parameters = %v", l.Model.Parameters)
			}
			if l.Steps[3].Timestamp != "2026-01-05T08:00:03Z" {
				t.Errorf("timestamp = %q", l.Steps[3].Timestamp)
			}
		},
	},
	{
		file: "openai-responses/edge.jsonl", format: OpenAIResponses, model: "o4-mini-2025-04-16", system: "Answer with data.",
		prompts: []string{"How big are the logs?"},
		steps: []wantStep{
			llm(nil),
			tool("du", `{"dir":"/var/log"}`, ptr("12M"), false),
			tool("du", `{"dir":"/tmp"}`, ptr("du: cannot access '/tmp': Permission denied"), false),
			llm(ptr("/var/log holds 12M; /tmp could not be read.")),
			tool("web_search", `{"type":"search","query":"du permission denied"}`, nil, false),
		},
		// The web search ran on OpenAI's side: no result is missing.
		outputs: map[string]string{FinalName: "/var/log holds 12M; /tmp could not be read."},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if deref(l.Steps[0].Reasoning) != "Check both directories." {
				t.Errorf("metadata = %v", l.Steps[0].Metadata)
			}
			if !reflect.DeepEqual(l.Model.Parameters["reasoning"], map[string]any{"effort": "high"}) {
				t.Errorf("parameters = %v", l.Model.Parameters)
			}
		},
	},
	{
		file: "anthropic/edge.json", format: Anthropic, model: "claude-opus-4-1-20250805", system: "You manage a build.",
		prompts: []string{"Build both targets", "Also check the docs."},
		steps: []wantStep{
			llm(ptr("Building both.")),
			tool("build", `{"target":"linux"}`, ptr("ok: bin/linux"), false),
			tool("build", `{"target":"darwin"}`, ptr("linker error"), true),
			llm(ptr("linux built; darwin failed to link.")),
			tool("check_docs", `{}`, nil, false),
		},
		outputs:  map[string]string{FinalName: "linux built; darwin failed to link."},
		warnings: []string{"1 tool call(s) have no result"},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if deref(l.Steps[3].Reasoning) != "darwin failed at link time." {
				t.Errorf("metadata = %v", l.Steps[3].Metadata)
			}
			if l.Model.Parameters["temperature"] != 0.2 || l.Model.Parameters["max_tokens"] != 1024.0 {
				t.Errorf("parameters = %v", l.Model.Parameters)
			}
		},
	},
	{
		// Current conventions as span attributes, execute_tool spans joined
		// by call id (one failing with status ERROR), an agent span and a
		// span that is not GenAI.
		file: "otel-genai/current.json", format: OTelGenAI, model: "gpt-4o-2024-11-20", system: "You run shell commands.",
		prompts: []string{"What is in /srv?"},
		steps: []wantStep{
			llm(nil),
			tool("ls", `{"path":"/srv"}`, ptr("www\nbackup"), false),
			tool("df", `{"path":"/srv"}`, ptr("df: timeout"), true),
			llm(ptr("/srv holds www and backup.")),
		},
		outputs: map[string]string{FinalName: "/srv holds www and backup."},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if !reflect.DeepEqual(rep.Reasons, []string{"span without a GenAI operation: 1"}) || rep.Mapped != 5 {
				t.Errorf("report = %+v", rep)
			}
			if l.Environment.OS != "linux" || l.Environment.Runtime != "CPython 3.12.1" || l.Environment.ToolVersions["opentelemetry-python"] != "1.38.0" {
				t.Errorf("environment = %+v", l.Environment)
			}
			if l.Model.Parameters["seed"] != 7.0 || l.Model.Parameters["temperature"] != 0.5 {
				t.Errorf("parameters = %v", l.Model.Parameters)
			}
			if l.Steps[1].Timestamp != "2026-01-07T15:33:21Z" || l.Steps[1].Metadata["result_timestamp"] != "2026-01-07T15:33:22.1Z" {
				t.Errorf("ls step = %+v", l.Steps[1])
			}
			agents := l.Metadata["agents"].([]any)
			if len(agents) != 1 || agents[0].(map[string]any)["attributes"].(map[string]any)["gen_ai.agent.name"] != "shell-bot" {
				t.Errorf("agents = %v", agents)
			}
		},
	},
	{
		// The older indexed gen_ai.prompt.N / gen_ai.completion.N attributes.
		file: "otel-genai/legacy.jsonl", format: OTelGenAI, model: "gpt-3.5-turbo", system: "Be terse.",
		prompts: []string{"Weather in Oslo?"},
		steps: []wantStep{
			llm(nil),
			tool("weather", `{"city":"Oslo"}`, ptr("-3C, snow"), false),
			llm(ptr("Oslo: -3C and snowing.")),
		},
		outputs: map[string]string{FinalName: "Oslo: -3C and snowing."},
	},
	{
		// Two samples: call ids repeat across samples without mixing;
		// attachments resolved; a tool error; a call with no result.
		file: "inspect/edge.json", format: Inspect, model: "mock", system: "You are an ops assistant.",
		prompts: []string{"Find the config", "Find the config"},
		steps: []wantStep{
			llm(ptr("Checking both.")),
			tool("read_file", `{"path":"etc/app.conf"}`, ptr("port=80"), false),
			tool("bash", `{"cmd":"cat /etc/app.conf"}`, ptr(""), true),
			llm(ptr("The port is 80.")),
			tool("notify", `{"msg":"done"}`, nil, false),
			llm(ptr("Checking both.")),
			tool("read_file", `{"path":"etc/app.conf"}`, ptr("port=80"), false),
			tool("bash", `{"cmd":"cat /etc/app.conf"}`, ptr(""), true),
			llm(ptr("Port 80.")),
		},
		outputs:  map[string]string{"samples/1_epoch_1/final.md": "The port is 80.", "samples/b_2_epoch_1/final.md": "Port 80."},
		warnings: []string{"1 tool call(s) have no result"},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if bytes.Contains(out, []byte("attachment://")) {
				t.Error("an attachment reference is left")
			}
			if l.Steps[0].Timestamp != "2026-03-01T11:00:01Z" || l.Steps[8].Metadata["sample_id"] != "b/2" {
				t.Errorf("steps = %+v / %+v", l.Steps[0], l.Steps[8])
			}
			if deref(l.Steps[0].Reasoning) != "Look in two places." {
				t.Errorf("metadata = %v", l.Steps[0].Metadata)
			}
		},
	},
	{
		// create/update records merged by id; tool runs (without call ids)
		// joined to the calls of the model turn before them by name.
		file: "langsmith/edge.json", format: LangSmith, model: "gpt-4o-mini-2024-07-18", system: "You check services.",
		prompts: []string{"Is the service up?"},
		steps: []wantStep{
			llm(nil),
			tool("http_get", `{"url":"http://svc/health"}`, ptr("200 OK"), false),
			tool("dns_lookup", `{"host":"svc"}`, ptr("NXDOMAIN"), true),
			llm(ptr("The service answers 200 OK, but its DNS name does not resolve.")),
		},
		outputs: map[string]string{FinalName: "The service is up, but DNS fails."},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if rep.Records != 10 || rep.Skipped != 1 {
				t.Errorf("report = %+v", rep)
			}
			if l.Environment.Runtime != "python 3.12.2" {
				t.Errorf("environment = %+v", l.Environment)
			}
		},
	},
}

func TestFixtures(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.file, func(t *testing.T) {
			path := filepath.Join("testdata", fx.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if f, err := Detect(path, data); f != fx.format {
				t.Errorf("Detect = %q, %v", f, err)
			}
			out, rep, err := Import(fx.format, data, Options{Name: path})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(path, filepath.Ext(path))+".golden.json", canon.Indent(out))
			if _, err := execlog.Parse(out, execlog.Options{}); err != nil {
				t.Errorf("ctx-pack would reject the log:\n%v", err)
			}
			if again, _, _ := Import(fx.format, data, Options{Name: path}); !bytes.Equal(again, out) {
				t.Error("a second import gave different bytes")
			}
			l := decode(t, out)
			if l.Model.Identifier != fx.model || l.SystemPrompt != fx.system {
				t.Errorf("model %q, system prompt %q", l.Model.Identifier, l.SystemPrompt)
			}
			var prompts []string
			for _, p := range l.Prompts {
				prompts = append(prompts, p.Content)
			}
			if !reflect.DeepEqual(prompts, fx.prompts) {
				t.Errorf("prompts = %q", prompts)
			}
			if len(l.Steps) != len(fx.steps) {
				t.Fatalf("%d steps, want %d:\n%s", len(l.Steps), len(fx.steps), canon.Indent(out))
			}
			for i, w := range fx.steps {
				s := l.Steps[i]
				if s.Type != w.typ || s.Tool != w.tool {
					t.Errorf("steps[%d] = %s %q, want %s %q", i, s.Type, s.Tool, w.typ, w.tool)
				}
				if w.params != "" && !reflect.DeepEqual(s.Parameters, params(t, w.params)) {
					t.Errorf("steps[%d].parameters = %v, want %s", i, s.Parameters, w.params)
				}
				if (s.Output == nil) != (w.output == nil) || s.Output != nil && *s.Output != *w.output {
					t.Errorf("steps[%d].output = %v, want %v", i, deref(s.Output), deref(w.output))
				}
				if (s.Error != nil) != w.isError {
					t.Errorf("steps[%d].error = %v, want it set: %v", i, s.Error, w.isError)
				}
			}
			outputs := map[string]string{}
			for _, o := range l.Outputs {
				outputs[o.Name] = o.Content
			}
			want := fx.outputs
			if answer, ok := want[FinalName]; ok && agentSession(fx.format) {
				// An agent session's last answer is no output file: it is
				// the output of its last model call.
				want = maps.Clone(want)
				delete(want, FinalName)
				if got := lastAnswer(l); got != answer {
					t.Errorf("last llm_call output = %q, want the answer %q", got, answer)
				}
			}
			if len(want) == 0 {
				want = map[string]string{}
			}
			if !reflect.DeepEqual(outputs, want) {
				t.Errorf("outputs = %q, want %q", outputs, want)
			}
			if !reflect.DeepEqual(rep.Warnings, fx.warnings) {
				t.Errorf("warnings = %q, want %q", rep.Warnings, fx.warnings)
			}
			if rep.Mapped+rep.Skipped != rep.Records {
				t.Errorf("report = %+v", rep)
			}
			tally(t, l) // no call id on two steps
			if fx.check != nil {
				fx.check(t, l, out, rep)
			}
		})
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// golden compares got with the file, or rewrites the file with -update.
func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	importtest.Golden(t, file, got, *update)
}

// TestEvalArchive packs the Inspect fixture into a .eval archive the way
// Inspect writes one and checks it imports to the same log.
func TestEvalArchive(t *testing.T) {
	data, err := os.ReadFile("testdata/inspect/edge.json")
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := Import(Inspect, data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := gjson.ParseBytes(data)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, body string) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	var header strings.Builder
	header.WriteString("{")
	for i, k := range []string{"version", "status", "eval", "plan", "results", "stats"} {
		if i > 0 {
			header.WriteString(",")
		}
		header.WriteString(`"` + k + `":` + doc.Get(k).Raw)
	}
	header.WriteString("}")
	add("header.json", header.String())
	// Written out of order: the importer sorts the sample names.
	add("samples/b_2_epoch_1.json", doc.Get("samples.1").Raw)
	add("samples/1_epoch_1.json", doc.Get("samples.0").Raw)
	add("summaries.json", "[]")
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if f, err := Detect("log.eval", buf.Bytes()); f != Inspect || err != nil {
		t.Errorf("Detect = %q, %v", f, err)
	}
	got, rep, err := Import(Inspect, buf.Bytes(), Options{Name: "log.eval"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the archive imports differently from the JSON log:\n%s\nwant\n%s", canon.Indent(got), canon.Indent(want))
	}
	if rep.Records != 21 {
		t.Errorf("report = %+v", rep)
	}
}

func TestMalformed(t *testing.T) {
	tests := []struct {
		file, format string
		want         string // the whole error message
	}{
		{"claude-code/malformed.jsonl", ClaudeCode, "claude-code: line 3: invalid JSON: unexpected end of JSON input (column 122)"},
		{"claude-code/badmessage.jsonl", ClaudeCode, "claude-code: line 2: message: expected an object, got a string"},
		{"codex/malformed.jsonl", Codex, "codex: line 2: payload: expected an item object, got a string"},
		{"openai-chat/malformed.json", OpenAIChat, "openai-chat: [1].request.messages: expected an array of messages, got an object"},
		{"openai-responses/malformed.jsonl", OpenAIResponses, "openai-responses: line 2: response.output: expected an array, got an object"},
		{"anthropic/malformed.json", Anthropic, "anthropic: request.messages[0].content: expected a string or an array of content parts, got a number"},
		{"otel-genai/malformed.json", OTelGenAI, "otel-genai: resourceSpans[0].scopeSpans[0].spans[1].attributes[0]: attribute has no key"},
		{"inspect/malformed.json", Inspect, "inspect: samples[1].messages[2].tool_calls: expected an array, got an object"},
		{"langsmith/malformed.json", LangSmith, "langsmith: post[1]: run has neither id nor dotted_order"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := Import(tt.format, data, Options{})
			if err == nil {
				t.Fatalf("no error; imported:\n%s", out)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q\nwant    %q", err, tt.want)
			}
			var ie *Error
			if !errors.As(err, &ie) || ie.ExitCode() != 1 {
				t.Errorf("error %T is not an *Error with exit code 1", err)
			}
		})
	}
}

// TestMalformedDocuments covers input that is not JSON at all, in every
// format: the error names the line (and column).
func TestMalformedDocuments(t *testing.T) {
	for _, f := range Formats() {
		for _, in := range []string{"{\"a\":\n  [1, 2,\n  }", "not json"} {
			_, _, err := Import(f, []byte(in), Options{})
			var ie *Error
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "line ") {
				t.Errorf("%s: Import(%q) error = %v, want one naming the line", f, in, err)
			}
		}
	}
}

// TestDeterministicOption marks an extra tool deterministic.
func TestDeterministicOption(t *testing.T) {
	data, err := os.ReadFile("testdata/openai-chat/edge.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		extra []string
		want  bool
	}{{nil, false}, {[]string{"search"}, true}} {
		out, _, err := Import(OpenAIChat, data, Options{Deterministic: tt.extra})
		if err != nil {
			t.Fatal(err)
		}
		if l := decode(t, out); l.Steps[4].Tool != "search" || l.Steps[4].Deterministic != tt.want {
			t.Errorf("Deterministic %q: step %+v", tt.extra, l.Steps[4])
		}
	}
}

// TestRelativePaths: only whole path values under the working directory
// become relative.
func TestRelativePaths(t *testing.T) {
	roots := []string{"/home/dev/proj"}
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"/home/dev/proj", ".", true},
		{"/home/dev/proj/", ".", true},
		{"/home/dev/proj/a/b.go", "a/b.go", true},
		{"/home/dev/proj//x", "x", true},
		{"/home/dev/proj2/x", "/home/dev/proj2/x", false},
		{"/home/dev/proj.bak/x", "/home/dev/proj.bak/x", false},
		{"/x/home/dev/proj/a", "/x/home/dev/proj/a", false},
		{"cd /home/dev/proj", "cd /home/dev/proj", false},
		{"file:///home/dev/proj/a", "file:///home/dev/proj/a", false},
	}
	for _, tt := range tests {
		if got, ok := relPath(tt.in, roots); got != tt.want || ok != tt.ok {
			t.Errorf("relPath(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if got, _ := relPath(`C:\src\app\main.go`, []string{`C:\src\app`}); got != "main.go" {
		t.Errorf("windows path: %q", got)
	}
	for k, want := range map[string]bool{"file_path": true, "path": true, "notebook_path": true, "filePath": true, "workdir": true, "cwd": true, "paths": true,
		"command": false, "content": false, "pattern": false, "url": false, "old_string": false} {
		if pathKey(k) != want {
			t.Errorf("pathKey(%q) = %v", k, !want)
		}
	}
	b := newBuilder(lookup(ClaudeCode), Options{})
	b.Root("/home/dev/proj")
	in := `{"file_path":"/home/dev/proj/a.go","command":"cat /home/dev/proj/a.go","edits":[{"old_string":"/home/dev/proj"}],"paths":["/home/dev/proj/x","/etc/y"],"n":12345678901234567890}`
	want := `{"file_path":"a.go","command":"cat /home/dev/proj/a.go","edits":[{"old_string":"/home/dev/proj"}],"paths":["x","/etc/y"],"n":12345678901234567890}`
	if got := b.relativeParams([]byte(in)); string(got) != want {
		t.Errorf("relativeParams:\n got %s\nwant %s", got, want)
	}
}

// TestBigNumbers keeps integers beyond 2^53 as strings rather than
// rounding them.
func TestBigNumbers(t *testing.T) {
	in := `{"request":{"model":"m","seed":12345678901234567890,"messages":[{"role":"user","content":"x"}]},"response":{"object":"chat.completion","created":1700000000,"choices":[{"message":{"role":"assistant","content":"y"}}],"big":1e400}}`
	out, _, err := Import(OpenAIChat, []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := decode(t, out)
	if l.Model.Parameters["seed"] != "12345678901234567890" || l.Steps[0].Metadata["big"] != "1e400" {
		t.Errorf("parameters %v, metadata %v", l.Model.Parameters, l.Steps[0].Metadata)
	}
}

// TestEscapedPaths makes path parameters relative however the input
// escapes them, and leaves free text as it is.
func TestEscapedPaths(t *testing.T) {
	in := `{"type":"user","uuid":"u1","sessionId":"s","cwd":"\/home\/dev\/proj","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"see \u002fhome/dev/proj/b.go"}}
{"type":"assistant","uuid":"u2","sessionId":"s","cwd":"/home/dev/proj","message":{"id":"m","model":"x","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"\/home\/dev\/proj\/a.go"}}]}}`
	out, _, err := Import(ClaudeCode, []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := decode(t, out)
	if !reflect.DeepEqual(l.Steps[1].Parameters, map[string]any{"file_path": "a.go"}) || l.Prompts[0].Content != "see /home/dev/proj/b.go" {
		t.Errorf("parameters %v, prompt %q", l.Steps[1].Parameters, l.Prompts[0].Content)
	}
	if l.Metadata["session"].(map[string]any)["cwd"] != "/home/dev/proj" {
		t.Errorf("the working directory is not kept: %v", l.Metadata["session"])
	}
}

// TestUnrepresentable rejects text canonical JSON cannot carry (a lone
// UTF-16 surrogate) instead of changing it, naming the line.
func TestUnrepresentable(t *testing.T) {
	in := `{"type":"user","uuid":"b","sessionId":"s","message":{"role":"user","content":"ok"}}
{"type":"user","uuid":"b","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x\udc00y"}]}}`
	_, _, err := Import(ClaudeCode, []byte(in), Options{Name: "s.jsonl"})
	var ie *Error
	if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "claude-code: line 2: invalid text at byte") {
		t.Errorf("error = %v", err)
	}
	if _, _, err := Import(OpenAIChat, []byte(`{"model":"m","messages":[{"role":"user","content":"\ud83d\ude00"}]}`), Options{}); err != nil {
		t.Errorf("a valid surrogate pair was rejected: %v", err)
	}
}

// TestEvalArchiveBounds: the members of a .eval archive are bounded all
// together, checked on the declared size before inflating and on what
// inflating gives (a declaration can lie).
func TestEvalArchiveBounds(t *testing.T) {
	data, err := os.ReadFile("testdata/inspect/edge.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := gjson.ParseBytes(data)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"header.json":            `{"version":2,"status":"success","eval":` + doc.Get("eval").Raw + `}`,
		"samples/1_epoch_1.json": doc.Get("samples.0").Raw,
		"samples/2_epoch_1.json": doc.Get("samples.1").Raw,
	} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	archive := buf.Bytes()
	if _, _, err := Import(Inspect, archive, Options{Name: "x.eval"}); err != nil {
		t.Fatal(err)
	}
	defer func(old int64) { evalLimit = old }(evalLimit)
	// Every member fits alone, not all of them together.
	evalLimit = int64(len(doc.Get("samples.0").Raw)) + 200
	_, _, err = Import(Inspect, archive, Options{Name: "x.eval"})
	var ie *Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "the archive's members inflate to more than") {
		t.Errorf("error = %v", err)
	}
	// Members that declare less than they hold are stopped while
	// inflating (archive/zip refuses to read past the declared size, and
	// the importer's reader is bounded as well).
	lying := bytes.Clone(archive)
	n := 0
	for i := bytes.Index(lying, []byte("PK\x01\x02")); i >= 0; {
		// A central directory entry: the uncompressed size is at 24.
		copy(lying[i+24:i+28], []byte{1, 0, 0, 0})
		n++
		j := bytes.Index(lying[i+4:], []byte("PK\x01\x02"))
		if j < 0 {
			break
		}
		i += 4 + j
	}
	if n != 3 {
		t.Fatalf("%d central directory entries", n)
	}
	evalLimit = 1 << 20
	_, _, err = Import(Inspect, lying, Options{Name: "x.eval"})
	if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "inspect: header.json: reading the archive member") {
		t.Errorf("error = %v", err)
	}
}

// lastAnswer is the output of the last llm_call step of the main agent
// that has one.
func lastAnswer(l *testLog) string {
	for i := len(l.Steps) - 1; i >= 0; i-- {
		if s := l.Steps[i]; s.Type == LLMCall && s.Agent == "" && s.Output != nil && strings.TrimSpace(*s.Output) != "" {
			return *s.Output
		}
	}
	return ""
}

// TestEvalBomb: a .eval member that inflates to far more than its
// archive could hold of JSON is refused by its declared size, before it
// is inflated (a size that lies is stopped while inflating, as
// TestEvalArchiveBounds shows): the members of an archive may inflate to
// evalRatio times its size (at least evalFloor), not to a whole
// evalLimit (1 GiB, long to inflate).
func TestEvalBomb(t *testing.T) {
	header := []byte(`{"version":2,"status":"success","eval":{"model":"m","task":"t"}}`)
	build := func(t *testing.T, sample func(zw *zip.Writer) error) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, err := zw.Create("header.json")
		if err == nil {
			_, err = w.Write(header)
		}
		if err == nil {
			err = sample(zw)
		}
		if err == nil {
			err = zw.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	declared := build(t, func(zw *zip.Writer) error {
		// Declares 512 MiB; holds garbage, never inflated.
		w, err := zw.CreateRaw(&zip.FileHeader{Name: "samples/1_epoch_1.json", Method: zip.Deflate,
			UncompressedSize64: 512 << 20, CompressedSize64: 4})
		if err == nil {
			_, err = w.Write([]byte("junk"))
		}
		return err
	})
	honest := build(t, func(zw *zip.Writer) error {
		zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestCompression) })
		w, err := zw.Create("samples/1_epoch_1.json")
		if err != nil {
			return err
		}
		w.Write([]byte(`{"id":1,"messages":[],"x":"`))
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for range 80 {
			w.Write(chunk)
		}
		_, err = w.Write([]byte(`"}`))
		return err
	})
	for name, archive := range map[string][]byte{"declared": declared, "honest": honest} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, _, err := Import(Inspect, archive, Options{Name: "x.eval"})
			var ie *Error
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "the archive's members inflate to more than 64 MiB") {
				t.Errorf("error = %v", err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("refused after %v", d)
			}
		})
	}
	if got := evalBudget(100 << 20); got != evalLimit {
		t.Errorf("budget of a 100 MiB archive: %d, want the 1 GiB limit", got)
	}
	if got := evalBudget(2 << 20); got != 200<<20 {
		t.Errorf("budget of a 2 MiB archive: %d, want 100 times it", got)
	}
}
