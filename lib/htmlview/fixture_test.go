package htmlview

import (
	"bytes"
	"flag"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/blame"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/drift"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/store"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixture builds packs in a fresh store the way ctx-pack does: content
// with store.Put, then manifest.Commit.
type fixture struct {
	t testing.TB
	s *store.Store
}

func newFixture(t testing.TB) *fixture {
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t, s}
}

func (f *fixture) put(content string) digest.Digest {
	d, _, err := f.s.Put([]byte(content))
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

func (f *fixture) pack(m *manifest.Manifest) *manifest.Manifest {
	d, _, err := manifest.Commit(f.s, m)
	if err != nil {
		f.t.Fatal(err)
	}
	got, err := manifest.Load(f.s, d)
	if err != nil {
		f.t.Fatal(err)
	}
	return got
}

func (f *fixture) step(i int, typ, tool, params, output string, det bool, ts string) manifest.Step {
	s := manifest.Step{Index: i, Type: typ, Tool: tool, Parameters: jsontext.Value(params), Deterministic: det, Timestamp: ts}
	if output != "" {
		s.OutputRef = f.put(output)
	}
	return s
}

// tinyPNG is a 4×4 PNG, encoded the same way every time.
func tinyPNG(t testing.TB) string {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for y := 0; y < 4; y++ {
		for x := 0; x < 4; x++ {
			img.Set(x, y, color.NRGBA{uint8(60 * x), uint8(60 * y), 200, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sample is a small pack with every kind of content a page shows: text
// of one and several lines, JSON parameters short and long, an image, a
// binary object, one over the inline limit, an empty output, a step with
// no output, and metadata.
func (f *fixture) sample() *manifest.Manifest {
	big := bytes.Repeat([]byte("0123456789abcdef\n"), (DefaultMaxInline/17)+10)
	long := `{"content":"` + strings.Repeat("line of new content\\n", 12) + `","path":"src/report.py"}`
	m := &manifest.Manifest{
		Version:      manifest.Version,
		Created:      "2026-02-10T09:00:00Z",
		Model:        manifest.Model{Identifier: "gpt-4o", Parameters: jsontext.Value(`{"seed":7,"temperature":0}`)},
		SystemPrompt: f.put("You are a careful refactoring assistant.\nRead before you write.\n"),
		Prompts: []manifest.Prompt{
			{Role: "user", ContentRef: f.put("Rename `calc` to `total` and summarise the change.")},
		},
		Inputs: []manifest.File{
			{Name: "src/main.py", ContentRef: f.put("def calc(xs):\n    return sum(xs)\n"), Size: 33},
			{Name: "docs/logo.png", ContentRef: f.put(tinyPNG(f.t)), Size: int64(len(tinyPNG(f.t)))},
			{Name: "data.bin", ContentRef: f.put("\x00\x01\x02binary"), Size: 9},
			{Name: "big.txt", ContentRef: f.put(string(big)), Size: int64(len(big))},
		},
		Steps: []manifest.Step{
			f.step(0, manifest.ToolCall, "read_file", `{"path":"src/main.py"}`, "def calc(xs):\n    return sum(xs)\n", true, "2026-02-10T09:00:01Z"),
			f.step(1, manifest.LLMCall, "gpt-4o", `{"max_tokens":512}`, "I will rename calc to total.", false, "2026-02-10T09:00:03.250Z"),
			f.step(2, manifest.ToolCall, "write_file", long, "", true, "2026-02-10T09:01:10Z"),
			f.step(3, manifest.ToolCall, "run_tests", `{}`, "", false, ""),
			f.step(4, manifest.ToolCall, "Task", `{"description":"find callers","subagent_type":"explore"}`, "Two callers, both in src/main.py.", false, "2026-02-10T09:01:12Z"),
			f.step(5, manifest.ToolCall, "Read", `{"file_path":"src/missing.py"}`, "File does not exist.", true, "2026-02-10T09:01:13Z"),
			f.step(6, manifest.LLMCall, "gpt-4o", `{"max_tokens":512}`, "", false, "2026-02-10T09:01:20Z"),
		},
		Outputs: []manifest.Output{
			{Name: "src/main.py", ContentRef: f.put("def total(xs):\n    return sum(xs)\n"), Size: 34, Confidence: "high", Notes: "Mechanical rename."},
			{Name: "empty.txt", ContentRef: f.put(""), Size: 0},
		},
		Environment: manifest.Environment{OS: "linux", Runtime: "python3.12", ToolVersions: map[string]string{"grep": "3.11", "read_file": "1.0"}},
		Metadata:    jsontext.Value(`{"session":"demo"}`),
	}
	// The facts the extended schema records: subagents, errors, usage,
	// reasoning, multimodal parts, partly seen inputs.
	four, one, in, out := 4, int64(1), int64(1200), int64(85)
	m.Steps[5].Agent, m.Steps[5].ParentStep = "explore-1", &four
	m.Steps[5].Error = &manifest.StepError{Message: "file not found", ExitCode: &one}
	m.Steps[6].ReasoningRef = f.put("The user wants callers listed.\nI should grep first.\n")
	m.Steps[6].Usage = &manifest.Usage{InputTokens: &in, OutputTokens: &out}
	m.Steps[6].OutputParts = []manifest.Part{
		{Type: manifest.PartText, ContentRef: f.put("Here is the chart:"), Size: 18},
		{Type: manifest.PartImage, MediaType: "image/png", ContentRef: f.put(tinyPNG(f.t)), Size: int64(len(tinyPNG(f.t)))},
	}
	m.Prompts = append(m.Prompts, manifest.Prompt{Role: "user", Parts: []manifest.Part{
		{Type: manifest.PartText, ContentRef: f.put("What does this logo show?"), Size: 25},
		{Type: manifest.PartImage, MediaType: "image/svg+xml", ContentRef: f.put(`<svg onload="alert(1)"/>`), Size: 24},
	}})
	m.Inputs = append(m.Inputs,
		manifest.File{Name: "src/util.py", MediaType: "text/x-python", Seen: manifest.SeenPartial, Lines: [][2]int64{{3, 5}, {9, 9}}, TotalLines: 20,
			ContentRef: f.put("def a():\n    pass\n\nx = 1\n"), Size: 24},
		manifest.File{Name: "src/helper.py", Seen: manifest.SeenName})
	return m
}

// variant is sample changed as a second run would be: another prompt,
// temperature and runtime, a step inserted, an output changed and one
// added.
func (f *fixture) variant(parent digest.Digest) *manifest.Manifest {
	m := f.sample()
	m.Parent = parent
	m.Model.Parameters = jsontext.Value(`{"seed":7,"temperature":0.2}`)
	m.Prompts[0].ContentRef = f.put("Rename `calc` to `total` and list every call site.")
	m.Environment.Runtime = "python3.13"
	ins := f.step(1, manifest.ToolCall, "grep", `{"path":".","pattern":"calc"}`, "src/main.py:1:def calc(xs):\n", true, "2026-02-10T09:00:02Z")
	m.Steps = append(m.Steps[:1], append([]manifest.Step{ins}, m.Steps[1:]...)...)
	for i := range m.Steps {
		m.Steps[i].Index = i
	}
	m.Steps[2].OutputRef = f.put("I will rename calc to total in both places.")
	m.Outputs[0].ContentRef = f.put("def total(xs):\n    return sum(xs)\n\nprint(total([1, 2]))\n")
	m.Outputs[0].Size = 56
	m.Outputs = append(m.Outputs, manifest.Output{Name: "summary.md", ContentRef: f.put("Renamed calc.\n"), Size: 14})
	return m
}

// replayReport is a replay of sample with every status.
func replayReport(m *manifest.Manifest) *replay.Report {
	return &replay.Report{
		Pack:     m.Hash.String(),
		Fidelity: replay.Degraded,
		Summary:  replay.Summary{Steps: 3, Verified: 1, Matched: 1, Diverged: 1, Skipped: 1},
		Steps: []replay.StepResult{
			{Index: 0, Tool: "read_file", Deterministic: true, Status: replay.Matched, Expected: m.Steps[0].OutputRef.String(), Actual: m.Steps[0].OutputRef.String(), DurationMS: 1},
			{Index: 1, Tool: "gpt-4o", Status: replay.Skipped, Reason: "no executor for tool \"gpt-4o\""},
			{Index: 2, Tool: "write_file", Deterministic: true, Status: replay.Diverged, Expected: "sha256:" + fmt.Sprintf("%064x", 1), Actual: "sha256:" + fmt.Sprintf("%064x", 2), DurationMS: 3,
				Changes: []replay.FileChange{{Name: "src/calc.py", Change: replay.Updated, Before: "sha256:" + fmt.Sprintf("%064x", 3), After: "sha256:" + fmt.Sprintf("%064x", 4),
					BeforeText: []byte("def add(a, b):\n    return a + b\n"), AfterText: []byte("def add(a, b):\n    \u202ereturn b + a\n")}}},
		},
		Outputs: []replay.OutputResult{{Name: "src/calc.py", Status: replay.Diverged, Expected: "sha256:" + fmt.Sprintf("%064x", 4)}},
		Drift: []replay.Drift{
			{Type: replay.DriftToolVersion, Tool: "grep", Expected: "3.11", Actual: "3.8"},
			{Type: replay.DriftRuntime, Expected: "python3.12", Actual: "go1.26"},
		},
	}
}

// pages renders the three sample pages.
func pages(t testing.TB) map[string][]byte {
	f := newFixture(t)
	a := f.pack(f.sample())
	b := f.pack(f.variant(a.Hash))
	out := map[string][]byte{}
	var err error
	if out["pack"], err = Pack(a, f.s, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := drift.Diff(a, b, drift.StoreObjects(f.s), drift.Options{Align: drift.AlignLCS})
	if err != nil {
		t.Fatal(err)
	}
	if out["diff"], err = Diff(a, b, r, drift.AlignLCS, Options{}); err != nil {
		t.Fatal(err)
	}
	if out["replay"], err = Replay(a, replayReport(a), f.s, Options{}); err != nil {
		t.Fatal(err)
	}
	if out["blame"], err = Blame(blameFiles()); err != nil {
		t.Fatal(err)
	}
	return out
}

// blameFiles is a blamed file whose lines and origins carry markup and
// characters that act on a display.
func blameFiles() []BlameFile {
	prompt := 1
	o1 := &blame.Origin{Pack: "sha256:" + strings.Repeat("ab", 32), Step: 3, Tool: "Write", Session: "s-1", Model: "claude-sonnet-4-5", Prompt: &prompt, Timestamp: "2026-03-02T09:00:10Z"}
	o2 := &blame.Origin{Pack: "sha256:" + strings.Repeat("cd", 32), Step: 7, Tool: "Edit<b>", Session: "s-2\u202e", Model: "gpt-5.4</td>", Timestamp: "2026-03-03T14:00:15Z"}
	return []BlameFile{{
		Path: "src/inv\u202eentory.js",
		Text: []string{"// by a person", "export function f() {", "  return '<script>alert(1)</script>';", "  return 2;", "}"},
		Lines: []blame.Line{
			{By: blame.ByUnknown},
			{By: blame.ByAgent, Origin: o1},
			{By: blame.ByAgent, Origin: o2, Moved: true},
			{By: blame.ByMixed, Origin: o1},
			{By: blame.ByAgent, Origin: o1, Reindented: true},
		},
	}}
}

// Golden files hold a page's structure and escaping, not its style
// sheet: unstyled replaces the one style element and the CSP's hash of it
// with fixed markers, so a change to view.css rewrites no golden. A page
// whose style element is not exactly view.css, or whose CSP is not CSP,
// keeps them and differs from its golden; checkPage checks the hash.
const (
	styleMarker = "<style>/* view.css */</style>"
	cspMarker   = `content="CSP"`
)

func unstyled(page []byte) []byte {
	page = bytes.Replace(page, []byte("<style>"+css+"</style>"), []byte(styleMarker), 1)
	return bytes.Replace(page, []byte(`content="`+html.EscapeString(CSP)+`"`), []byte(cspMarker), 1)
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	got = unstyled(got)
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it); got:\n%s", name, got)
	}
}
