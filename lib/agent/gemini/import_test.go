package gemini_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent/gemini"
	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/formatstest"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// TestGeminiCLI imports the four forms Gemini CLI writes and checks them
// against counts taken from each file by hand: tool calls, results,
// failed calls, model turns, prompts by role, images and token sums.
func TestGeminiCLI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file                                 string
		calls, results, errors, turns, users int
		images                               int
		usage                                map[string]int64
		warnings                             []string
	}{
		// make test's "Exit Code: 2" is a failure too.
		{"session.jsonl", 2, 2, 2, 2, 2, 1, map[string]int64{"input_tokens": 10520, "output_tokens": 84, "cache_read_tokens": 9216, "reasoning_tokens": 210, "total_tokens": 10814},
			[]string{"line 9: $rewindTo undid 1 message(s); they are not in the log"}},
		{"legacy.json", 1, 1, 0, 2, 1, 0, map[string]int64{"input_tokens": 1830, "output_tokens": 23, "cache_read_tokens": 0, "reasoning_tokens": 0, "total_tokens": 1853}, nil},
		{"stream.jsonl", 2, 2, 1, 3, 1, 0, map[string]int64{}, nil},
		// Real runs of Gemini CLI 0.61.0 (its scratch paths renamed): a
		// session resumed for a second prompt, and the headless
		// transcript of that second prompt, whose replace has no output.
		{"resume.jsonl", 3, 3, 1, 5, 2, 0, map[string]int64{"input_tokens": 1000, "output_tokens": 90, "cache_read_tokens": 0, "reasoning_tokens": 0, "total_tokens": 1090}, nil},
		{"stream-run.jsonl", 2, 1, 1, 3, 1, 0, map[string]int64{}, []string{"1 file write(s) outside the session's working directory (or with none recorded): they are steps, not outputs"}},
		// The context Gemini CLI sends first is the harness's prompt.
		{"checkpoint.json", 2, 2, 1, 4, 1, 0, map[string]int64{}, []string{"the input does not name the model; identifier set to \"unknown\""}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata/gemini-cli", tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if f, err := formats.Detect(path, data); f != gemini.Name {
				t.Fatalf("Detect = %q, %v", f, err)
			}
			out, rep, err := formats.Import(gemini.Name, data, importer.Options{Name: tc.file})
			if err != nil {
				t.Fatal(err)
			}
			importtest.Golden(t, strings.TrimSuffix(path, filepath.Ext(path))+".golden.json", canon.Indent(out), *formatstest.Update)
			if _, err := execlog.Parse(out, execlog.Options{}); err != nil {
				t.Fatalf("ctx-pack would reject the log:\n%v", err)
			}
			if strings.Join(rep.Warnings, "|") != strings.Join(tc.warnings, "|") {
				t.Errorf("warnings = %q", rep.Warnings)
			}
			l := gjson.ParseBytes(out)
			var calls, results, errors, turns, users, images int
			usage := map[string]int64{}
			for _, s := range l.Get("steps").Array() {
				if s.Get("type").String() == "tool_call" {
					calls++
					if s.Get("output").Exists() || s.Get("output_parts").Exists() {
						results++
					}
					if s.Get("error").Exists() {
						errors++
					}
					continue
				}
				turns++
				s.Get("usage").ForEach(func(k, v gjson.Result) bool {
					usage[k.Str] += v.Int()
					return true
				})
			}
			for _, p := range l.Get("prompts").Array() {
				if p.Get("role").String() == "user" {
					users++
				}
				for _, part := range p.Get("parts").Array() {
					if part.Get("type").String() == "image" {
						images++
					}
				}
			}
			if calls != tc.calls || results != tc.results || errors != tc.errors || turns != tc.turns || users != tc.users || images != tc.images {
				t.Errorf("%d calls, %d results, %d errors, %d turns, %d user prompts, %d images", calls, results, errors, turns, users, images)
			}
			if len(usage) != len(tc.usage) {
				t.Errorf("usage = %v", usage)
			}
			for k, v := range tc.usage {
				if usage[k] != v {
					t.Errorf("usage %s = %d, want %d", k, usage[k], v)
				}
			}
		})
	}
}

// TestGeminiCLIResumed checks a session Gemini CLI resumed (--resume
// rewrites the conversation with $set): every message once, the first
// prompt's call and usage too; the session context a harness prompt,
// byte for byte, that names the working directory; the results Gemini
// CLI repeats in user messages no prompts; the failed command's exit
// code; the files written outputs, and no final.md.
func TestGeminiCLIResumed(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/gemini-cli/resume.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := formats.Import(gemini.Name, data, importer.Options{Name: "resume.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	l := gjson.ParseBytes(out)
	// The session context, as the first $set of the messages (line 2)
	// holds it.
	context := gjson.Get(strings.Split(string(data), "\n")[1], "$set.messages.0.content.0.text")
	var roles []string
	for _, p := range l.Get("prompts").Array() {
		roles = append(roles, p.Get("role").String())
		if p.Get("content").String() == "" {
			t.Errorf("an empty %s prompt", p.Get("role"))
		}
	}
	if first := l.Get("prompts.0.content").String(); strings.Join(roles, " ") != "harness user user" || first != context.Str || context.Str == "" {
		t.Errorf("prompts %q; the first %.40q, want the session context", roles, first)
	}
	if g := l.Get("metadata.prompts.0.harness").String(); g != "session-context" {
		t.Errorf("harness kind %q", g)
	}
	if cwd := l.Get("metadata.session.cwd").String(); cwd != "/home/dev/proj" {
		t.Errorf("metadata.session.cwd %q", cwd)
	}
	var tools []string
	for _, s := range l.Get("steps").Array() {
		if s.Get("type").String() == "tool_call" {
			tools = append(tools, s.Get("tool").String()+" "+s.Get("parameters.file_path").String())
		}
		if s.Get("tool").String() == "run_shell_command" && s.Get("error.exit_code").Raw != "1" {
			t.Errorf("run_shell_command false: error %s, want exit code 1", s.Get("error").Raw)
		}
	}
	if strings.Join(tools, ", ") != "write_file a.txt, run_shell_command , replace a.txt" {
		t.Errorf("tool calls %q", tools)
	}
	if o := l.Get("outputs").Raw; o != `[{"content":"final\n","name":"a.txt"}]` {
		t.Errorf("outputs %s, want a.txt only", o)
	}
}

// TestGeminiStreamDetected: the headless transcript is told by any of
// its events, not only by the init event first (an importer.Anthropic message,
// whose content is a list of blocks, is still importer.Anthropic's).
func TestGeminiStreamDetected(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/gemini-cli/stream-run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i := range 4 {
		in := strings.Join(lines[i:], "")
		if f, err := formats.Detect("", []byte(in)); f != gemini.Name {
			t.Errorf("from line %d: Detect = %q, %v", i+1, f, err)
		}
	}
	if f, _ := formats.Detect("", []byte(`{"type":"message","id":"msg_1","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}]}`)); f != importer.Anthropic {
		t.Errorf("an importer.Anthropic message: Detect = %q", f)
	}
}

// TestGeminiNoIDs: messages of an older session without ids are each
// their own (not one, as a shared empty id would make them).
func TestGeminiNoIDs(t *testing.T) {
	doc := `{"sessionId":"s","projectHash":"h","startTime":"2026-02-23T00:07:11.272Z","messages":[` +
		`{"timestamp":"2026-02-23T00:07:12.000Z","type":"user","content":"a"},` +
		`{"timestamp":"2026-02-23T00:07:13.000Z","type":"gemini","content":"b","model":"gemini-2.5-pro"},` +
		`{"timestamp":"2026-02-23T00:07:14.000Z","type":"user","content":"c"}]}`
	out, rep, err := formats.Import(gemini.Name, []byte(doc), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := gjson.ParseBytes(out)
	if l.Get("prompts.#").Int() != 2 || l.Get("steps.#").Int() != 1 || rep.Records != 3 {
		t.Errorf("report %+v, log %s", rep, out)
	}
}
