package importer

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"flag"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixture is one of this package's own edge-case inputs (testdata/).
type fixture = importtest.Case[Report]

var fixtures = []fixture{
	{
		File: "openai-chat/edge.json", Format: OpenAIChat, Model: "gpt-4.1-2025-04-14", System: "You are a file assistant.",
		Prompts: []string{"Compare a.txt and b.txt"},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("read_file", `{"path":"a.txt"}`, importtest.Ptr("alpha"), false),
			importtest.Tool("read_file", `{"path":"b.txt"}`, importtest.Ptr("Error: b.txt not found"), false),
			importtest.LLM(importtest.Ptr("b.txt is missing; searching for it.")),
			importtest.Tool("search", `"not json"`, nil, false),
		},
		Outputs:  map[string]string{FinalName: "b.txt is missing; searching for it."},
		Warnings: []string{"1 tool call(s) have no result"},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep Report) {
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
		File: "openai-responses/edge.jsonl", Format: OpenAIResponses, Model: "o4-mini-2025-04-16", System: "Answer with data.",
		Prompts: []string{"How big are the logs?"},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("du", `{"dir":"/var/log"}`, importtest.Ptr("12M"), false),
			importtest.Tool("du", `{"dir":"/tmp"}`, importtest.Ptr("du: cannot access '/tmp': Permission denied"), false),
			importtest.LLM(importtest.Ptr("/var/log holds 12M; /tmp could not be read.")),
			importtest.Tool("web_search", `{"type":"search","query":"du permission denied"}`, nil, false),
		},
		// The web search ran on OpenAI's side: no result is missing.
		Outputs: map[string]string{FinalName: "/var/log holds 12M; /tmp could not be read."},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep Report) {
			if importtest.Deref(l.Steps[0].Reasoning) != "Check both directories." {
				t.Errorf("metadata = %v", l.Steps[0].Metadata)
			}
			if !reflect.DeepEqual(l.Model.Parameters["reasoning"], map[string]any{"effort": "high"}) {
				t.Errorf("parameters = %v", l.Model.Parameters)
			}
		},
	},
	{
		File: "anthropic/edge.json", Format: Anthropic, Model: "claude-opus-4-1-20250805", System: "You manage a build.",
		Prompts: []string{"Build both targets", "Also check the docs."},
		Steps: []importtest.Step{
			importtest.LLM(importtest.Ptr("Building both.")),
			importtest.Tool("build", `{"target":"linux"}`, importtest.Ptr("ok: bin/linux"), false),
			importtest.Tool("build", `{"target":"darwin"}`, importtest.Ptr("linker error"), true),
			importtest.LLM(importtest.Ptr("linux built; darwin failed to link.")),
			importtest.Tool("check_docs", `{}`, nil, false),
		},
		Outputs:  map[string]string{FinalName: "linux built; darwin failed to link."},
		Warnings: []string{"1 tool call(s) have no result"},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep Report) {
			if importtest.Deref(l.Steps[3].Reasoning) != "darwin failed at link time." {
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
		File: "otel-genai/current.json", Format: OTelGenAI, Model: "gpt-4o-2024-11-20", System: "You run shell commands.",
		Prompts: []string{"What is in /srv?"},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("ls", `{"path":"/srv"}`, importtest.Ptr("www\nbackup"), false),
			importtest.Tool("df", `{"path":"/srv"}`, importtest.Ptr("df: timeout"), true),
			importtest.LLM(importtest.Ptr("/srv holds www and backup.")),
		},
		Outputs: map[string]string{FinalName: "/srv holds www and backup."},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep Report) {
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
		File: "otel-genai/legacy.jsonl", Format: OTelGenAI, Model: "gpt-3.5-turbo", System: "Be terse.",
		Prompts: []string{"Weather in Oslo?"},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("weather", `{"city":"Oslo"}`, importtest.Ptr("-3C, snow"), false),
			importtest.LLM(importtest.Ptr("Oslo: -3C and snowing.")),
		},
		Outputs: map[string]string{FinalName: "Oslo: -3C and snowing."},
	},
	{
		// Two samples: call ids repeat across samples without mixing;
		// attachments resolved; a tool error; a call with no result.
		File: "inspect/edge.json", Format: Inspect, Model: "mock", System: "You are an ops assistant.",
		Prompts: []string{"Find the config", "Find the config"},
		Steps: []importtest.Step{
			importtest.LLM(importtest.Ptr("Checking both.")),
			importtest.Tool("read_file", `{"path":"etc/app.conf"}`, importtest.Ptr("port=80"), false),
			importtest.Tool("bash", `{"cmd":"cat /etc/app.conf"}`, importtest.Ptr(""), true),
			importtest.LLM(importtest.Ptr("The port is 80.")),
			importtest.Tool("notify", `{"msg":"done"}`, nil, false),
			importtest.LLM(importtest.Ptr("Checking both.")),
			importtest.Tool("read_file", `{"path":"etc/app.conf"}`, importtest.Ptr("port=80"), false),
			importtest.Tool("bash", `{"cmd":"cat /etc/app.conf"}`, importtest.Ptr(""), true),
			importtest.LLM(importtest.Ptr("Port 80.")),
		},
		Outputs:  map[string]string{"samples/1_epoch_1/final.md": "The port is 80.", "samples/b_2_epoch_1/final.md": "Port 80."},
		Warnings: []string{"1 tool call(s) have no result"},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep Report) {
			if bytes.Contains(out, []byte("attachment://")) {
				t.Error("an attachment reference is left")
			}
			if l.Steps[0].Timestamp != "2026-03-01T11:00:01Z" || l.Steps[8].Metadata["sample_id"] != "b/2" {
				t.Errorf("steps = %+v / %+v", l.Steps[0], l.Steps[8])
			}
			if importtest.Deref(l.Steps[0].Reasoning) != "Look in two places." {
				t.Errorf("metadata = %v", l.Steps[0].Metadata)
			}
		},
	},
	{
		// create/update records merged by id; tool runs (without call ids)
		// joined to the calls of the model turn before them by name.
		File: "langsmith/edge.json", Format: LangSmith, Model: "gpt-4o-mini-2024-07-18", System: "You check services.",
		Prompts: []string{"Is the service up?"},
		Steps: []importtest.Step{
			importtest.LLM(nil),
			importtest.Tool("http_get", `{"url":"http://svc/health"}`, importtest.Ptr("200 OK"), false),
			importtest.Tool("dns_lookup", `{"host":"svc"}`, importtest.Ptr("NXDOMAIN"), true),
			importtest.LLM(importtest.Ptr("The service answers 200 OK, but its DNS name does not resolve.")),
		},
		Outputs: map[string]string{FinalName: "The service is up, but DNS fails."},
		Check: func(t *testing.T, l *importtest.Log, out []byte, rep Report) {
			if rep.Records != 10 || rep.Skipped != 1 {
				t.Errorf("report = %+v", rep)
			}
			if l.Environment.Runtime != "python 3.12.2" {
				t.Errorf("environment = %+v", l.Environment)
			}
		},
	},
}

// golden compares got with the file, or rewrites the file with -update.
func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	importtest.Golden(t, file, got, *update)
}

// TestFixtures checks each fixture's log (importtest.RunCases).
func TestFixtures(t *testing.T) { importtest.RunCases(t, fixtures, testImporter()) }

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
		if l := importtest.Decode(t, out); l.Steps[4].Tool != "search" || l.Steps[4].Deterministic != tt.want {
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
	b := newBuilder(lookup(Anthropic), Options{})
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
	l := importtest.Decode(t, out)
	if l.Model.Parameters["seed"] != "12345678901234567890" || l.Steps[0].Metadata["big"] != "1e400" {
		t.Errorf("parameters %v, metadata %v", l.Model.Parameters, l.Steps[0].Metadata)
	}
}

// TestSurrogatePair accepts a valid UTF-16 surrogate pair (a lone
// surrogate is rejected: TestUnrepresentable, lib/agent/claudecode).
func TestSurrogatePair(t *testing.T) {
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
