package drift

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
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

// pack commits m and loads it back, as ctx-diff would.
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

func (f *fixture) step(i int, tool, params, output string) manifest.Step {
	return manifest.Step{
		Index: i, Type: manifest.ToolCall, Tool: tool,
		Parameters: jsontext.Value(params), OutputRef: f.put(output),
		Deterministic: true, Timestamp: fmt.Sprintf("2026-02-10T09:00:%02dZ", i%60),
	}
}

// base is a small complete manifest; each test changes one thing.
func (f *fixture) base() *manifest.Manifest {
	return &manifest.Manifest{
		Version: manifest.Version,
		Created: "2026-02-10T09:00:00Z",
		Model: manifest.Model{
			Identifier: "gpt-4o",
			Parameters: jsontext.Value(`{"seed":7,"temperature":0}`),
		},
		SystemPrompt: f.put("You are a careful engineer.\nAnswer briefly.\n"),
		Prompts:      []manifest.Prompt{{Role: "user", ContentRef: f.put("Fix the failing test.\n")}},
		Inputs: []manifest.File{
			{Name: "src/main.py", ContentRef: f.put("print('hi')\n"), Size: 12},
			{Name: "README", ContentRef: f.put("readme\n"), Size: 7},
		},
		Steps: []manifest.Step{
			f.step(0, "read_file", `{"path":"src/main.py"}`, "print('hi')\n"),
			f.step(1, "grep", `{"flags":["-n","-r"],"pattern":"hi"}`, "src/main.py:1:print('hi')\n"),
			f.step(2, "write_file", `{"content":"print('hello')\n","path":"src/main.py"}`, "ok"),
		},
		Outputs: []manifest.Output{{Name: "result.md", ContentRef: f.put("# Result\n\nFixed.\n"), Size: 17, Confidence: "high"}},
		Environment: manifest.Environment{
			OS: "linux", Runtime: "go1.26",
			ToolVersions: map[string]string{"grep": "3.11", "read_file": "1.0"},
		},
	}
}

func diff(t *testing.T, f *fixture, a, b *manifest.Manifest, opt Options) *Report {
	t.Helper()
	r, err := Diff(a, b, StoreObjects(f.s), opt)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Hash.IsZero() && !b.Hash.IsZero() {
		checkJSON(t, r)
	}
	return r
}

// brief renders an entry's identity and values in one line.
func brief(e Entry) string {
	s := e.Type + " " + e.Path + " " + e.Change
	if e.Tool != "" {
		s += " tool=" + e.Tool
	}
	if e.AStep != nil {
		s += fmt.Sprintf(" a_step=%d", *e.AStep)
	}
	if e.BStep != nil {
		s += fmt.Sprintf(" b_step=%d", *e.BStep)
	}
	if e.A != nil {
		s += " a=" + string(e.A)
	}
	if e.B != nil {
		s += " b=" + string(e.B)
	}
	if e.ASize != nil {
		s += fmt.Sprintf(" a_size=%d", *e.ASize)
	}
	if e.BSize != nil {
		s += fmt.Sprintf(" b_size=%d", *e.BSize)
	}
	if e.Binary {
		s += " binary"
	}
	return s
}

func briefs(r *Report) string {
	var lines []string
	for _, e := range r.Drift {
		lines = append(lines, brief(e))
	}
	return strings.Join(lines, "\n")
}

func TestDiffTypes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name   string
		change func(m *manifest.Manifest)
		want   string
	}{
		{"model identifier", func(m *manifest.Manifest) { m.Model.Identifier = "gpt-4.1" },
			`model_drift model.identifier changed a="gpt-4o" b="gpt-4.1"`},
		{"model parameters", func(m *manifest.Manifest) {
			m.Model.Parameters = jsontext.Value(`{"seed":8,"temperature":0,"top_p":0.9}`)
		}, "model_drift model.parameters.seed changed a=7 b=8\n" +
			"model_drift model.parameters.top_p added b=0.9"},
		{"system prompt", func(m *manifest.Manifest) {
			m.SystemPrompt = f.put("You are a careful engineer.\nAnswer at length.\n")
		}, "prompt_drift system_prompt changed " +
			`a="You are a careful engineer.\nAnswer briefly.\n" b="You are a careful engineer.\nAnswer at length.\n" a_size=44 b_size=46`},
		{"prompt role and added prompt", func(m *manifest.Manifest) {
			m.Prompts[0].Role = "developer"
			m.Prompts = append(m.Prompts, manifest.Prompt{Role: "user", ContentRef: f.put("And add a test.\n")})
		}, `prompt_drift prompts[0].role changed a="user" b="developer"` + "\n" +
			`prompt_drift prompts[1] added b="And add a test.\n" b_size=16`},
		{"inputs", func(m *manifest.Manifest) {
			m.Inputs[0].ContentRef, m.Inputs[0].Size = f.put("print('hi!')\n"), 13
			m.Inputs[1] = manifest.File{Name: "logo.png", ContentRef: f.put("\x89PNG\x00\x01"), Size: 6}
		}, `input_drift inputs["README"] removed a="readme\n" a_size=7` + "\n" +
			`input_drift inputs["logo.png"] added b_size=6 binary` + "\n" +
			`input_drift inputs["src/main.py"] changed a="print('hi')\n" b="print('hi!')\n" a_size=12 b_size=13`},
		{"tool", func(m *manifest.Manifest) { m.Steps[1].Tool = "ripgrep" },
			`tool_drift steps[1].tool changed tool=ripgrep a_step=1 b_step=1 a="grep" b="ripgrep"`},
		{"step type and determinism", func(m *manifest.Manifest) {
			m.Steps[2].Type = manifest.LLMCall
			m.Steps[2].Deterministic = false
		}, `tool_drift steps[2].type changed tool=write_file a_step=2 b_step=2 a="tool_call" b="llm_call"` + "\n" +
			`tool_drift steps[2].deterministic changed tool=write_file a_step=2 b_step=2 a=true b=false`},
		{"nested parameters", func(m *manifest.Manifest) {
			m.Steps[1].Parameters = jsontext.Value(`{"flags":["-n","-i","-w"],"path":"src"}`)
		}, `param_drift steps[1].parameters.flags[1] changed tool=grep a_step=1 b_step=1 a="-r" b="-i"` + "\n" +
			`param_drift steps[1].parameters.flags[2] added tool=grep a_step=1 b_step=1 b="-w"` + "\n" +
			`param_drift steps[1].parameters.path added tool=grep a_step=1 b_step=1 b="src"` + "\n" +
			`param_drift steps[1].parameters.pattern removed tool=grep a_step=1 b_step=1 a="hi"`},
		{"step output", func(m *manifest.Manifest) { m.Steps[0].OutputRef = f.put("print('hello')\n") },
			`tool_output_drift steps[0].output changed tool=read_file a_step=0 b_step=0 a="print('hi')\n" b="print('hello')\n" a_size=12 b_size=15`},
		{"outputs", func(m *manifest.Manifest) {
			m.Outputs[0].ContentRef = f.put("# Result\n\nNot fixed.\n")
			m.Outputs[0].Confidence = "low"
			m.Outputs = append(m.Outputs, manifest.Output{Name: "patch.diff", ContentRef: f.put("+x\n"), Size: 3})
		}, `output_drift outputs["patch.diff"] added b="+x\n" b_size=3` + "\n" +
			`output_drift outputs["result.md"] changed a="# Result\n\nFixed.\n" b="# Result\n\nNot fixed.\n" a_size=17 b_size=21` + "\n" +
			`output_drift outputs["result.md"].confidence changed a="high" b="low"`},
		{"environment", func(m *manifest.Manifest) {
			m.Environment.OS = "darwin"
			m.Environment.ToolVersions = map[string]string{"grep": "3.12", "write_file": "2.0"}
		}, `environment_drift environment.os changed a="linux" b="darwin"` + "\n" +
			`environment_drift environment.tool_versions.grep changed a="3.11" b="3.12"` + "\n" +
			`environment_drift environment.tool_versions.read_file removed a="1.0"` + "\n" +
			`environment_drift environment.tool_versions.write_file added b="2.0"`},
		{"bookkeeping only", func(m *manifest.Manifest) {
			m.Created = "2026-03-01T00:00:00Z"
			m.Steps[0].Timestamp = "2026-03-01T00:00:00Z"
		}, ""},
	}
	a := f.pack(f.base())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := f.base()
			tt.change(m)
			b := f.pack(m)
			if a.Hash == b.Hash {
				t.Fatal("the change did not change the pack")
			}
			r := diff(t, f, a, b, Options{})
			if got := briefs(r); got != tt.want {
				t.Errorf("drift:\n%s\nwant:\n%s", got, tt.want)
			}
			if r.Identical != (tt.want == "") {
				t.Errorf("identical = %v", r.Identical)
			}
			n := 0
			for _, c := range r.Summary {
				n += c
			}
			if n != len(r.Drift) {
				t.Errorf("summary %v counts %d entries, report has %d", r.Summary, n, len(r.Drift))
			}
		})
	}
}

func TestDiffIdentical(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.pack(f.base())
	b := f.pack(f.base())
	if a.Hash != b.Hash {
		t.Fatal("the same manifest gave two packs")
	}
	r := diff(t, f, a, b, Options{})
	got, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"a":"%s","b":"%s","drift":[],"identical":true,"summary":{}}`, a.Hash, a.Hash)
	if string(got) != want {
		t.Errorf("JSON = %s\nwant %s", got, want)
	}
	if h := human(r); h != "no differences\n" {
		t.Errorf("Human = %q", h)
	}
}

// TestDiffContentRefs checks the refs and the unified diff of a content
// entry, and that binary content is never diffed.
func TestDiffContentRefs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.base()
	b := f.base()
	b.Outputs[0].ContentRef = f.put("# Result\n\nNot fixed.\n")
	b.Steps[2].OutputRef = f.put("\x00\x01binary")
	ma, mb := f.pack(a), f.pack(b)
	r := diff(t, f, ma, mb, Options{})
	if len(r.Drift) != 2 {
		t.Fatalf("drift:\n%s", briefs(r))
	}
	out := r.Drift[1]
	if out.ARef != a.Outputs[0].ContentRef || out.BRef != b.Outputs[0].ContentRef {
		t.Errorf("output refs %s %s", out.ARef, out.BRef)
	}
	wantDiff := "--- a/outputs[\"result.md\"]\n+++ b/outputs[\"result.md\"]\n@@ -1,3 +1,3 @@\n # Result\n \n-Fixed.\n+Not fixed.\n"
	if out.Diff != wantDiff || out.Truncated {
		t.Errorf("diff %q, truncated %v\nwant %q", out.Diff, out.Truncated, wantDiff)
	}
	bin := r.Drift[0]
	if !bin.Binary || bin.Diff != "" || bin.B != nil || bin.Note == "" || *bin.BSize != 8 || bin.BRef != b.Steps[2].OutputRef {
		t.Errorf("binary entry: %+v", bin)
	}
}

func TestDiffLongValues(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	long := strings.Repeat("line\n", 100)
	a := f.base()
	a.Steps[2].Parameters = jsontext.Value(fmt.Sprintf(`{"content":%q}`, long))
	b := f.base()
	b.Steps[2].Parameters = jsontext.Value(fmt.Sprintf(`{"content":%q}`, long+"more\n"))
	r := diff(t, f, f.pack(a), f.pack(b), Options{})
	if len(r.Drift) != 1 {
		t.Fatalf("drift:\n%s", briefs(r))
	}
	e := r.Drift[0]
	if e.A != nil || e.B != nil || *e.ASize != int64(len(long)+len(`""`)+100) {
		t.Errorf("long values shown: %s", brief(e))
	}
	if !strings.HasSuffix(e.Diff, "@@ -98,3 +98,4 @@\n line\n line\n line\n+more\n") {
		t.Errorf("diff of long strings: %q", e.Diff)
	}
}

func TestDiffStepsIndex(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	five, seven := f.base(), f.base()
	for i := 3; i < 7; i++ {
		s := f.step(i, "read_file", fmt.Sprintf(`{"path":"f%d"}`, i), fmt.Sprint(i))
		if i < 5 {
			five.Steps = append(five.Steps, s)
		}
		seven.Steps = append(seven.Steps, s)
	}
	a, b := f.pack(five), f.pack(seven)
	r := diff(t, f, a, b, Options{})
	want := `tool_drift steps[5] added tool=read_file b_step=5 b={"parameters":{"path":"f5"},"tool":"read_file","type":"tool_call"}` + "\n" +
		`tool_drift steps[6] added tool=read_file b_step=6 b={"parameters":{"path":"f6"},"tool":"read_file","type":"tool_call"}`
	if got := briefs(r); got != want {
		t.Errorf("5 vs 7:\n%s\nwant\n%s", got, want)
	}
	r = diff(t, f, b, a, Options{})
	want = strings.NewReplacer("added", "removed", "b_step", "a_step", "b=", "a=").Replace(want)
	if got := briefs(r); got != want {
		t.Errorf("7 vs 5:\n%s\nwant\n%s", got, want)
	}
	if r.Drift[0].ARef != seven.Steps[5].OutputRef {
		t.Errorf("removed step's output ref %s", r.Drift[0].ARef)
	}
}

func TestDiffStepsLCS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.base()
	b := f.base()
	ins := f.step(1, "list_dir", `{"path":"src"}`, "main.py\n")
	b.Steps = append(b.Steps[:1], append([]manifest.Step{ins}, b.Steps[1:]...)...)
	for i := range b.Steps {
		b.Steps[i].Index = i
	}
	ma, mb := f.pack(a), f.pack(b)

	r := diff(t, f, ma, mb, Options{Align: AlignLCS})
	want := `tool_drift steps[1] added tool=list_dir b_step=1 b={"parameters":{"path":"src"},"tool":"list_dir","type":"tool_call"}`
	if got := briefs(r); got != want {
		t.Errorf("lcs:\n%s\nwant\n%s", got, want)
	}
	// By index the insertion shifts every later step.
	r = diff(t, f, ma, mb, Options{})
	if r.Summary[ToolDrift] != 3 || r.Summary[ParamDrift] == 0 || r.Summary[ToolOutputDrift] != 2 {
		t.Errorf("index alignment summary %v", r.Summary)
	}

	// A changed step between matches pairs with its counterpart.
	c := f.base()
	c.Steps = append(c.Steps[:1], append([]manifest.Step{ins}, c.Steps[1:]...)...)
	for i := range c.Steps {
		c.Steps[i].Index = i
	}
	c.Steps[3].Parameters = jsontext.Value(`{"content":"print('hello')\n","path":"src/app.py"}`)
	r = diff(t, f, ma, f.pack(c), Options{Align: AlignLCS})
	want += "\n" + `param_drift steps[3].parameters.path changed tool=write_file a_step=2 b_step=3 a="src/main.py" b="src/app.py"`
	if got := briefs(r); got != want {
		t.Errorf("lcs with a change:\n%s\nwant\n%s", got, want)
	}
	if h := human(r); !strings.Contains(h, `steps[3].parameters.path (write_file) [a: steps[2]]: changed "src/main.py" → "src/app.py"`) {
		t.Errorf("Human:\n%s", h)
	}

	// Next to the insertion, the changed call still pairs with its
	// counterpart (same tool), not with the inserted step.
	c.Steps[3].Parameters = a.Steps[2].Parameters
	c.Steps[2].Parameters = jsontext.Value(`{"flags":["-n","-r"],"pattern":"hello"}`)
	r = diff(t, f, ma, f.pack(c), Options{Align: AlignLCS})
	want = `tool_drift steps[1] added tool=list_dir b_step=1 b={"parameters":{"path":"src"},"tool":"list_dir","type":"tool_call"}` + "\n" +
		`param_drift steps[2].parameters.pattern changed tool=grep a_step=1 b_step=2 a="hi" b="hello"`
	if got := briefs(r); got != want {
		t.Errorf("lcs with an adjacent change:\n%s\nwant\n%s", got, want)
	}
}

func TestStepPairs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.base().Steps
	ins := f.step(1, "list_dir", `{"path":"src"}`, "main.py\n")
	b := append(append([]manifest.Step{a[0], ins}, a[1:]...), f.step(4, "grep", `{"pattern":"x"}`, ""))
	for _, c := range []struct {
		al   Alignment
		want string
	}{
		{AlignIndex, "[{0 0} {1 1} {2 2} {-1 3} {-1 4}]"},
		{AlignLCS, "[{0 0} {-1 1} {1 2} {2 3} {-1 4}]"},
	} {
		if got := fmt.Sprint(StepPairs(a, b, c.al)); got != c.want {
			t.Errorf("align %d: %s, want %s", c.al, got, c.want)
		}
	}
	if got := fmt.Sprint(StepPairs(b[:2], a[:1], AlignIndex)); got != "[{0 0} {1 -1}]" {
		t.Errorf("removed: %s", got)
	}
}

func TestDiffIgnore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.base()
	b := f.base()
	b.Steps[0].OutputRef = f.put("other\n")
	b.Steps[1].OutputRef = f.put("other 2\n")
	b.Model.Identifier = "o3"
	ma, mb := f.pack(a), f.pack(b)
	r := diff(t, f, ma, mb, Options{Ignore: []string{ToolOutputDrift}})
	if got := briefs(r); got != `model_drift model.identifier changed a="gpt-4o" b="o3"` {
		t.Errorf("drift:\n%s", got)
	}
	if r.Ignored[ToolOutputDrift] != 2 || len(r.Summary) != 1 {
		t.Errorf("summary %v ignored %v", r.Summary, r.Ignored)
	}
	r = diff(t, f, ma, mb, Options{Ignore: []string{ToolOutputDrift, ModelDrift}})
	if !r.Identical || human(r) != "no differences (1 model_drift, 2 tool_output_drift ignored)\n" {
		t.Errorf("all ignored: identical %v, %q", r.Identical, human(r))
	}
	if _, err := Diff(ma, mb, StoreObjects(f.s), Options{Ignore: []string{"vibes_drift"}}); err == nil {
		t.Error("unknown type accepted")
	}
}

// TestDiffIgnoreReadsNothing checks that ignored content is not read: the
// only differing objects are missing, yet the diff succeeds.
func TestDiffIgnoreReadsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.base()
	b := f.base()
	b.Steps[0].OutputRef = f.put("gone\n")
	ma, mb := f.pack(a), f.pack(b)
	p := f.s.ObjectPath(b.Steps[0].OutputRef)
	if err := os.Chmod(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := Diff(ma, mb, StoreObjects(f.s), Options{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing object: err = %v", err)
	}
	if _, err := Diff(ma, mb, StoreObjects(f.s), Options{Ignore: []string{ToolOutputDrift}}); err != nil {
		t.Errorf("ignored missing object: %v", err)
	}
}

func TestDiffCorruptObject(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.base()
	b := f.base()
	b.Outputs[0].ContentRef = f.put("changed\n")
	ma, mb := f.pack(a), f.pack(b)
	p := f.s.ObjectPath(b.Outputs[0].ContentRef)
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Diff(ma, mb, StoreObjects(f.s), Options{}); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("corrupt object: err = %v", err)
	}
}

// TestReportGolden locks the report's bytes and its human rendering for
// a pair with every kind of drift.
func TestReportGolden(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.base()
	b := f.base()
	b.Model.Parameters = jsontext.Value(`{"seed":7,"temperature":0.2}`)
	b.SystemPrompt = f.put("You are a careful engineer.\nAnswer at length.\n")
	b.Inputs[1].ContentRef = f.put("readme v2\n")
	b.Steps[0].OutputRef = f.put("print('hello')\n")
	b.Steps[1].Tool = "ripgrep"
	b.Steps[1].Parameters = jsontext.Value(`{"flags":["-n"],"pattern":"hi"}`)
	b.Steps = append(b.Steps, f.step(3, "run_tests", `{}`, "1 passed\n"))
	b.Outputs[0].ContentRef = f.put("# Result\n\nNot fixed.\n")
	b.Environment.Runtime = "go1.27"
	ma, mb := f.pack(a), f.pack(b)
	r := diff(t, f, ma, mb, Options{})
	got, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json", append(got, '\n'))
	golden(t, "report.txt", []byte(human(r)))
	for i := 0; i < 5; i++ {
		again, err := diff(t, f, ma, mb, Options{}).JSON()
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("run %d gave other bytes (%v)", i, err)
		}
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update to accept):\n%s", name, got)
	}
}

// TestReportJSONRefuses: a report entry that canonical JSON cannot carry
// is an error naming where it is, never written as it is.
func TestReportJSONRefuses(t *testing.T) {
	a, b := digest.Of([]byte("a")), digest.Of([]byte("b"))
	for _, c := range []struct {
		name string
		r    Report
		want string
	}{
		{"invalid UTF-8", Report{A: a, B: b, Drift: []Entry{{Type: "output_drift", Change: "changed", Path: "outputs[0]"}, {Type: "output_drift", Change: "changed", Path: "outputs[1]", Note: "a\xffb"}}},
			"encoding drift report: drift[1].note: invalid UTF-8 in a string"},
		{"value not canonical", Report{A: a, B: b, Drift: []Entry{{Type: "param_drift", Change: "changed", Path: "steps[0].parameters", A: jsontext.Value(`{"b":1,"a":2}`)}}},
			"encoding drift report: drift[0].a: value is not in canonical form"},
		{"hash missing", Report{B: b}, "encoding drift report: a: a pack's hash is missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := c.r.JSON(); err == nil || err.Error() != c.want {
				t.Fatalf("JSON: %v, want %q", err, c.want)
			}
		})
	}
}
