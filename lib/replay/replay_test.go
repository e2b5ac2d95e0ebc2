package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// packer builds packs in a fresh store, as ctx-pack would.
type packer struct {
	t testing.TB
	s *store.Store
}

func newPacker(t testing.TB) *packer {
	t.Helper()
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	return &packer{t: t, s: s}
}

func (p *packer) put(content string) digest.Digest {
	p.t.Helper()
	d, _, err := p.s.Put([]byte(content))
	if err != nil {
		p.t.Fatal(err)
	}
	return d
}

// step is a tool call recorded with output out; out "<none>" records no
// output.
type step struct {
	tool, params, out string
	det               bool
	typ               string
	err               *manifest.StepError // the recorded call failed
	meta              string
}

func (p *packer) pack(inputs map[string]string, steps []step, env manifest.Environment) *manifest.Manifest {
	p.t.Helper()
	m := &manifest.Manifest{
		Version:     manifest.Version,
		Created:     "2026-02-10T09:00:00Z",
		Model:       manifest.Model{Identifier: "test-model"},
		Environment: env,
	}
	for _, name := range sortedKeys(inputs) {
		m.Inputs = append(m.Inputs, manifest.File{Name: name, ContentRef: p.put(inputs[name]), Size: int64(len(inputs[name]))})
	}
	for i, st := range steps {
		ms := manifest.Step{Index: i, Type: manifest.ToolCall, Tool: st.tool, Deterministic: st.det}
		if st.typ != "" {
			ms.Type = st.typ
		}
		if st.params != "" {
			ms.Parameters = jsontext.Value(st.params)
		}
		if st.out != "<none>" {
			ms.OutputRef = p.put(st.out)
		}
		ms.Error = st.err
		if st.meta != "" {
			ms.Metadata = jsontext.Value(st.meta)
		}
		m.Steps = append(m.Steps, ms)
	}
	if _, _, err := manifest.Commit(p.s, m); err != nil {
		p.t.Fatal(err)
	}
	loaded, err := manifest.Load(p.s, m.Hash)
	if err != nil {
		p.t.Fatal(err)
	}
	return loaded
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

func hashOf(s string) string { return digest.Of([]byte(s)).String() }

// brief is a StepResult without its duration, for comparisons.
type brief struct {
	Status           Status
	Expected, Actual string
	Reason           string
}

func briefs(rep *Report) []brief {
	var out []brief
	for _, s := range rep.Steps {
		out = append(out, brief{s.Status, s.Expected, s.Actual, s.Reason})
	}
	return out
}

var here = manifest.Environment{OS: runtime.GOOS, Runtime: runtime.Version()}

func replay(t *testing.T, p *packer, m *manifest.Manifest, opt Options) *Report {
	t.Helper()
	if opt.TempDir == "" {
		opt.TempDir = t.TempDir()
	}
	rep, err := Run(context.Background(), p.s, m, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pack != m.Hash.String() {
		t.Errorf("report pack = %s, want %s", rep.Pack, m.Hash)
	}
	return rep
}

func TestReplayStatuses(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	inputs := map[string]string{"src/main.py": "print('hi')\n", "README.md": "# r\n"}
	main := inputs["src/main.py"]
	tests := []struct {
		name     string
		steps    []step
		fidelity Fidelity
		want     []brief
	}{
		{
			name: "all matched",
			steps: []step{
				{tool: "read_file", params: `{"path":"src/main.py"}`, out: main, det: true},
			},
			fidelity: Exact,
			want: []brief{
				{Matched, hashOf(main), hashOf(main), ""},
			},
		},
		{
			name: "deterministic divergence",
			steps: []step{
				{tool: "read_file", params: `{"path":"src/main.py"}`, out: main, det: true},
				{tool: "read_file", params: `{"path":"README.md"}`, out: "# old readme\n", det: true},
			},
			fidelity: Degraded,
			want: []brief{
				{Matched, hashOf(main), hashOf(main), ""},
				{Diverged, hashOf("# old readme\n"), hashOf("# r\n"), ""},
			},
		},
		{
			name: "non-deterministic divergence keeps exact",
			steps: []step{
				{tool: "read_file", params: `{"path":"README.md"}`, out: "whatever\n", det: false},
				{typ: manifest.LLMCall, out: "a model answer", det: false},
				{tool: "read_file", params: `{"path":"README.md"}`, out: "# r\n", det: true},
			},
			fidelity: Exact,
			want: []brief{
				{DivergedExpected, hashOf("whatever\n"), hashOf("# r\n"), ""},
				{Skipped, hashOf("a model answer"), "", "the llm_call step has no tool to run"},
				{Matched, hashOf("# r\n"), hashOf("# r\n"), ""},
			},
		},
		{
			name: "nothing compared is unverified",
			steps: []step{
				{tool: "read_file", params: `{"path":"README.md"}`, out: "whatever\n", det: false},
				{typ: manifest.LLMCall, out: "a model answer", det: false},
			},
			fidelity: Unverified,
			want: []brief{
				{DivergedExpected, hashOf("whatever\n"), hashOf("# r\n"), ""},
				{Skipped, hashOf("a model answer"), "", "the llm_call step has no tool to run"},
			},
		},
		{
			name: "missing tool on a deterministic step fails",
			steps: []step{
				{tool: "web_fetch", params: `{"url":"https://example.com"}`, out: "<html>", det: true},
				{tool: "read_file", params: `{"path":"README.md"}`, out: "# old\n", det: true},
			},
			fidelity: Lost,
			want: []brief{
				{Failed, hashOf("<html>"), "", `no executor for tool "web_fetch"; give one with --tool web_fetch=CMD or in your ctx config`},
				{Diverged, hashOf("# old\n"), hashOf("# r\n"), ""},
			},
		},
		{
			name: "missing tool on a non-deterministic step is skipped",
			steps: []step{
				{tool: "web_search", params: `{"q":"x"}`, out: "results", det: false},
			},
			fidelity: Unverified,
			want: []brief{
				{Skipped, hashOf("results"), "", `no executor for tool "web_search"; give one with --tool web_search=CMD or in your ctx config`},
			},
		},
		{
			name: "a recorded shell step never runs by itself",
			steps: []step{
				{tool: "Bash", params: `{"command":"touch pwned"}`, out: "", det: true},
			},
			fidelity: Lost,
			want: []brief{
				{Failed, hashOf(""), "", `tool "Bash" runs commands and ctx never runs them by itself; give one with --tool Bash=CMD or in your ctx config`},
			},
		},
		{
			name: "an executor error fails a non-deterministic step: never exact",
			steps: []step{
				{tool: "read_file", params: `{"path":"gone.txt"}`, out: "x", det: false},
			},
			fidelity: Degraded,
			want: []brief{
				{Failed, hashOf("x"), "", "read_file: gone.txt: no such file or directory"},
			},
		},
		{
			name: "a recorded error is not replayed",
			steps: []step{
				{tool: "read_file", params: `{"path":"nope.txt"}`, out: "File does not exist.", det: true, err: &manifest.StepError{}},
				{tool: "Glob", params: `{"pattern":"*"}`, out: "The user doesn't want to proceed", det: true, meta: `{"is_error":true}`},
				{tool: "read_file", params: `{"path":"README.md"}`, out: "# r\n", det: true},
			},
			fidelity: Exact,
			want: []brief{
				{Skipped, hashOf("File does not exist."), "", "the recorded call failed: an error is not replayed"},
				{Skipped, hashOf("The user doesn't want to proceed"), "", "the recorded call failed: an error is not replayed"},
				{Matched, hashOf("# r\n"), hashOf("# r\n"), ""},
			},
		},
		{
			name: "a path outside the working directory is skipped",
			steps: []step{
				{tool: "read_file", params: `{"path":"../secret.txt"}`, out: "TOP SECRET\n", det: true},
				{tool: "read_file", params: `{"path":"~/.agent/commands/x.md"}`, out: "x\n", det: true},
			},
			fidelity: Unverified,
			want: []brief{
				{Skipped, hashOf("TOP SECRET\n"), "", `read_file: path "../secret.txt" leads outside the working directory through ".."; only files inside the working directory are replayed`},
				{Skipped, hashOf("x\n"), "", `read_file: path "~/.agent/commands/x.md" is under a home directory (~), outside the recorded working directory; only files inside the working directory are replayed`},
			},
		},
		{
			name: "no recorded output: ran, skipped, actual reported",
			steps: []step{
				{tool: "read_file", params: `{"path":"README.md"}`, out: "<none>", det: true},
			},
			fidelity: Unverified,
			want: []brief{
				{Skipped, "", hashOf("# r\n"), "no output was recorded to compare with"},
			},
		},
		{
			name:     "no steps",
			fidelity: Unverified,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := p.pack(inputs, tt.steps, here)
			tmp := t.TempDir()
			// A file just outside the workspace, which must not be read.
			if err := os.WriteFile(filepath.Join(tmp, "secret.txt"), []byte("TOP SECRET\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			rep := replay(t, p, m, Options{TempDir: tmp})
			if rep.Fidelity != tt.fidelity {
				t.Errorf("fidelity = %s, want %s", rep.Fidelity, tt.fidelity)
			}
			if got := briefs(rep); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("steps:\n got %q\nwant %q", got, tt.want)
			}
			if len(rep.Drift) != 0 {
				t.Errorf("drift = %+v, want none", rep.Drift)
			}
			for i, s := range rep.Steps {
				if s.Index != i || s.Tool != tt.steps[i].tool || s.Deterministic != tt.steps[i].det {
					t.Errorf("step %d = %+v", i, s)
				}
			}
			// The workspace is gone, and nothing else was left in tmp.
			if _, err := os.Stat(rep.Workspace); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("workspace %s still exists: %v", rep.Workspace, err)
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 1 {
				t.Errorf("temp dir holds %d entries, want only secret.txt", len(ents))
			}
		})
	}
}

func TestFidelityExitCodes(t *testing.T) {
	t.Parallel()
	for f, want := range map[Fidelity]int{Exact: 0, Degraded: 1, Unverified: 1, Lost: 4} {
		if got := f.ExitCode(); got != want {
			t.Errorf("%s.ExitCode() = %d, want %d", f, got, want)
		}
	}
}

func TestMissingInput(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	m := p.pack(map[string]string{"a.txt": "aaa\n", "b/c.txt": "ccc\n"},
		[]step{{tool: "read_file", params: `{"path":"a.txt"}`, out: "aaa\n", det: true}}, here)
	// Lose one input's object, as when only part of a store was copied.
	if err := os.Remove(p.s.ObjectPath(m.Inputs[1].ContentRef)); err != nil {
		t.Fatal(err)
	}
	rep := replay(t, p, m, Options{})
	if rep.Fidelity != Lost {
		t.Errorf("fidelity = %s, want failed", rep.Fidelity)
	}
	want := []Drift{{Type: DriftMissingInput, Name: "b/c.txt", Expected: hashOf("ccc\n"),
		Reason: "object " + hashOf("ccc\n") + " is not in the store"}}
	if !reflect.DeepEqual(rep.Drift, want) {
		t.Errorf("drift:\n got %+v\nwant %+v", rep.Drift, want)
	}
	if rep.Steps[0].Status != Matched {
		t.Errorf("step 0 = %s, want matched", rep.Steps[0].Status)
	}
}

func TestEnvironmentAndVersionDrift(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	env := manifest.Environment{OS: "plan9", Runtime: "python3.12",
		ToolVersions: map[string]string{"read_file": "0.9", "fetch": "2.0", "never_used": "1"}}
	script := writeScript(t, "fetch.sh", "cat >/dev/null; printf page")
	m := p.pack(map[string]string{"a.txt": "a"}, []step{
		{tool: "read_file", params: `{"path":"a.txt"}`, out: "a", det: true},
		{tool: "fetch", params: `{}`, out: "page", det: true},
	}, env)
	rep := replay(t, p, m, Options{OS: "linux", Runtime: "go1.26.8",
		Tools: map[string]Executor{"fetch": &Command{Argv: []string{script}}}})
	want := []Drift{
		{Type: DriftOS, Expected: "plan9", Actual: "linux"},
		{Type: DriftRuntime, Expected: "python3.12", Actual: "go1.26.8"},
		{Type: DriftToolVersion, Tool: "fetch", Expected: "2.0", Reason: "the executor declares no version"},
		{Type: DriftToolVersion, Tool: "read_file", Expected: "0.9", Actual: BuiltinVersion},
	}
	if !reflect.DeepEqual(rep.Drift, want) {
		t.Errorf("drift:\n got %+v\nwant %+v", rep.Drift, want)
	}
	if rep.Fidelity != Exact {
		t.Errorf("fidelity = %s, want exact: drift alone does not lower it", rep.Fidelity)
	}
}

func TestStepsRange(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	var steps []step
	for range 10 {
		steps = append(steps, step{tool: "list_dir", params: `{}`, out: "a\n", det: true})
	}
	m := p.pack(map[string]string{"a": "x"}, steps, here)
	ranges, err := ParseSteps("3-5,8")
	if err != nil {
		t.Fatal(err)
	}
	var progress []int
	rep := replay(t, p, m, Options{Steps: ranges, Progress: func(pos, total int, st *manifest.Step) {
		if total != 4 {
			t.Errorf("progress total = %d, want 4", total)
		}
		progress = append(progress, st.Index)
	}})
	var got []int
	for _, s := range rep.Steps {
		got = append(got, s.Index)
	}
	if want := []int{3, 4, 5, 8}; !reflect.DeepEqual(got, want) || !reflect.DeepEqual(progress, want) {
		t.Errorf("replayed steps %v, progress %v, want %v", got, progress, want)
	}
	r, _ := ParseSteps("10")
	if _, err := Run(context.Background(), p.s, m, Options{Steps: r}); !errors.Is(err, ErrNoSteps) {
		t.Errorf("steps 10 of 10: err = %v, want ErrNoSteps", err)
	}
	empty := p.pack(nil, nil, here)
	r, _ = ParseSteps("0-")
	if _, err := Run(context.Background(), p.s, empty, Options{Steps: r}); err == nil || err.Error() != "selecting steps: the pack has no steps: no such step" {
		t.Errorf("steps of an empty pack: err = %v", err)
	}
}

func TestParseSteps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []Range
		err  string
	}{
		{"3", []Range{{3, 3}}, ""},
		{"3-7", []Range{{3, 7}}, ""},
		{"3-", []Range{{3, -1}}, ""},
		{"-7", []Range{{0, 7}}, ""},
		{"0,2-3, 9", []Range{{0, 0}, {2, 3}, {9, 9}}, ""},
		{"7-3", nil, `parsing steps "7-3": range 7-3 ends before it starts`},
		{"", nil, `parsing steps "": empty range`},
		{"-", nil, `parsing steps "-": empty range`},
		{"1,,2", nil, `parsing steps "1,,2": empty range`},
		{"a-3", nil, `parsing steps "a-3": "a" is not a step index`},
		{"+3", nil, `parsing steps "+3": "+3" is not a step index`},
		{"1-2-3", nil, `parsing steps "1-2-3": "2-3" is not a step index`},
	}
	for _, tt := range tests {
		got, err := ParseSteps(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseSteps(%q) error = %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSteps(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestKeepAndLive(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	inputs := map[string]string{"a.txt": "recorded a\n", "b.txt": "recorded b\n", "c.txt": "c\n"}
	m := p.pack(inputs, []step{
		{tool: "read_file", params: `{"path":"a.txt"}`, out: "recorded a\n", det: true},
		{tool: "read_file", params: `{"path":"b.txt"}`, out: "recorded b\n", det: true},
	}, here)

	// Hermetic, kept: the workspace holds exactly the inputs.
	rep := replay(t, p, m, Options{Keep: true})
	if rep.Fidelity != Exact {
		t.Errorf("hermetic fidelity = %s, want exact", rep.Fidelity)
	}
	for name, content := range inputs {
		b, err := os.ReadFile(filepath.Join(rep.Workspace, name))
		if err != nil || string(b) != content {
			t.Errorf("kept workspace %s = %q, %v", name, b, err)
		}
	}

	// Live: the world drifted. a.txt changed, c.txt is gone.
	live := t.TempDir()
	tree(t, live, map[string]string{"a.txt": "edited a\n", "b.txt": "recorded b\n"})
	rep = replay(t, p, m, Options{Live: live})
	if rep.Workspace != live {
		t.Errorf("live workspace = %s, want %s", rep.Workspace, live)
	}
	if rep.Fidelity != Lost {
		t.Errorf("live fidelity = %s, want failed (an input is missing)", rep.Fidelity)
	}
	want := []Drift{
		{Type: DriftInputChanged, Name: "a.txt", Expected: hashOf("recorded a\n"), Actual: hashOf("edited a\n")},
		{Type: DriftMissingInput, Name: "c.txt", Expected: hashOf("c\n"), Reason: "opening c.txt: no such file or directory"},
	}
	if !reflect.DeepEqual(rep.Drift, want) {
		t.Errorf("live drift:\n got %+v\nwant %+v", rep.Drift, want)
	}
	if got := briefs(rep); got[0].Status != Diverged || got[0].Actual != hashOf("edited a\n") || got[1].Status != Matched {
		t.Errorf("live steps = %+v", got)
	}
	if _, err := os.Stat(filepath.Join(live, "a.txt")); err != nil {
		t.Errorf("live tree was touched: %v", err)
	}

	// Live with every input in place: exact.
	tree(t, live, map[string]string{"a.txt": "recorded a\n", "c.txt": "c\n"})
	if rep := replay(t, p, m, Options{Live: live}); rep.Fidelity != Exact || len(rep.Drift) != 0 {
		t.Errorf("restored live tree: %s, drift %+v", rep.Fidelity, rep.Drift)
	}
}

// A crafted manifest (not made by ctx-pack) cannot write outside the
// workspace through an input name.
func TestMaterialiseRefusesBadNames(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	d := p.put("evil\n")
	tmp := t.TempDir()
	ws, drift, err := Materialise(p.s, []manifest.File{
		{Name: "../evil.txt", ContentRef: d, Size: 5},
		{Name: "/tmp/evil.txt", ContentRef: d, Size: 5},
		{Name: "ok.txt", ContentRef: d, Size: 5},
	}, tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Remove()
	if len(drift) != 2 || drift[0].Reason != `input name "../evil.txt" is not a clean relative path (no ".", "..", empty or trailing elements)` {
		t.Errorf("drift = %+v", drift)
	}
	if _, err := os.Stat(filepath.Join(tmp, "evil.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an input was written outside the workspace: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(ws.Dir, "ok.txt")); err != nil || string(b) != "evil\n" {
		t.Errorf("ok.txt = %q, %v", b, err)
	}
}

func TestCancelled(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	m := p.pack(nil, []step{{tool: "list_dir", out: "", det: true}}, here)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tmp := t.TempDir()
	if _, err := Run(ctx, p.s, m, Options{TempDir: tmp}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("a cancelled replay left %d entries in the temp dir", len(ents))
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	rep := &Report{
		Pack:     "sha256:" + strings.Repeat("ab", 32),
		Fidelity: Degraded,
		Steps: []StepResult{
			{Index: 0, Tool: "read_file", Deterministic: true, Status: Matched, Expected: hashOf("a"), Actual: hashOf("a"), DurationMS: 1},
			{Index: 1, Tool: "grep", Deterministic: true, Status: Diverged, Expected: hashOf("a"), Actual: hashOf("b"), DurationMS: 2},
			{Index: 2, Deterministic: false, Status: Skipped, Reason: "the llm_call step has no tool to run"},
		},
		Drift: []Drift{
			{Type: DriftToolVersion, Tool: "grep", Expected: "0.9", Actual: "1.0"},
			{Type: DriftMissingInput, Name: "x.txt", Expected: hashOf("x"), Reason: "gone"},
			{Type: DriftOS, Expected: "darwin", Actual: "linux"},
		},
	}
	want := `replay of sha256:` + strings.Repeat("ab", 32) + `: 1 of 3 steps verified; fidelity degraded

steps:
     0  read_file  matched            deterministic      1ms
     1  grep       diverged           deterministic      2ms
        expected ` + hashOf("a") + `
        got      ` + hashOf("b") + `
     2  -          skipped            non-deterministic  0ms
        the llm_call step has no tool to run

drift:
  tool grep: recorded version 0.9, replayed with 1.0
  input x.txt is missing (expected sha256:` + digest.Of([]byte("x")).Short() + `): gone
  os: recorded darwin, replayed on linux

3 steps: 1 matched, 1 diverged, 1 skipped
1 of 3 steps verified (executed and compared equal)
`
	if got := rep.Human(); got != want {
		t.Errorf("Text():\n%s\nwant:\n%s", got, want)
	}
	// In colour the count of verified steps still comes first, and an
	// exact replay that verified only some steps is not green.
	rep.Fidelity = Exact
	coloured := rep.Styled().Render(true)
	head, _, _ := strings.Cut(coloured, "\n")
	if wantHead := "replay of sha256:" + strings.Repeat("ab", 32) + ": 1 of 3 steps verified; fidelity \x1b[33mexact\x1b[m"; head != wantHead {
		t.Errorf("coloured header = %q, want %q", head, wantHead)
	}
	if !strings.Contains(coloured, "\x1b[31mdiverged         \x1b[m") {
		t.Errorf("coloured steps lack a red diverged: %q", coloured)
	}
}

// writeScript writes an executable shell script and returns its path.
func writeScript(t *testing.T, name, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts need a Unix")
	}
	p := filepath.Join(t.TempDir(), name)
	// The system's tools (cat, sed, sleep) even where the tests run with
	// only Go on PATH.
	if err := os.WriteFile(p, []byte("#!/bin/sh\nPATH=\"${PATH:+$PATH:}/usr/bin:/bin\"\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// EditChanges follows the edits from the pack's inputs alone: what each
// did, and nothing for an edit of a file it does not know.
func TestEditChanges(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	m := p.pack(map[string]string{"a.txt": "one\n"}, []step{
		{tool: "Edit", params: `{"file_path":"a.txt","old_string":"one","new_string":"two"}`, out: "ok"},
		{tool: "apply_patch", params: `"*** Begin Patch\n*** Add File: b.txt\n+b\n*** Delete File: a.txt\n*** End Patch"`, out: "ok"},
		{tool: "Edit", params: `{"file_path":"c.txt","old_string":"x","new_string":"y"}`, out: "ok"},
		{tool: "Write", params: `{"file_path":"/etc/x","content":"y"}`, out: "ok"},
		{tool: "Edit", params: `{"file_path":"a.txt","old_string":"","new_string":"again\n"}`, out: "ok"},
	}, here)
	got := EditChanges(p.s.Get, m)
	brief := func(cs []FileChange) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Change+" "+c.Name+" "+string(c.AfterText))
		}
		return strings.Join(out, ", ")
	}
	want := map[int]string{0: "updated a.txt two\n", 1: "created b.txt b\n, deleted a.txt ", 4: "created a.txt again\n"}
	if len(got) != len(want) {
		t.Errorf("EditChanges gave changes for %d steps, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if b := brief(got[i]); b != w {
			t.Errorf("step %d: %q, want %q", i, b, w)
		}
	}
}

// In a live tree edits are not applied: a later read of the file they
// changed that differs is skipped, not diverged.
func TestLiveEditsNotApplied(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("now\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newPacker(t)
	m := p.pack(nil, []step{
		{tool: "Write", params: `{"file_path":"a.txt","content":"then\n"}`, out: "File created successfully at: a.txt"},
		{tool: "read_file", params: `{"path":"a.txt"}`, out: "then\n", det: true},
	}, here)
	rep := replay(t, p, m, Options{Live: dir})
	if r := rep.Steps[0]; r.Status != Skipped || len(r.Changes) > 0 {
		t.Errorf("step 0: %+v", r)
	}
	if r := rep.Steps[1]; r.Status != Skipped || r.Reason != "a.txt is not known: step 0 changed it, and edits are not applied to a live tree" {
		t.Errorf("step 1: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "now\n" {
		t.Errorf("the live tree was changed: %q", b)
	}
}

// A step that diverged keeps what the replay produced in the store, to
// show it beside what was recorded; a step that matched adds nothing.
func TestActualKept(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	m := p.pack(map[string]string{"a.txt": "now\n"}, []step{
		{tool: "grep", params: `{"pattern":"now","path":"."}`, out: "a.txt:1:then\n", det: true},
		{tool: "read_file", params: `{"path":"a.txt"}`, out: "now\n", det: true},
	}, here)
	want := digest.Of([]byte("a.txt:1:now\n"))
	if _, err := p.s.Get(want); err == nil {
		t.Fatal("the store holds the output before the replay")
	}
	rep := replay(t, p, m, Options{})
	got := rep.Steps[0]
	if got.Status != Diverged || got.ActualRef != want.String() || got.Actual != got.ActualRef {
		t.Fatalf("step 0 = %+v", got)
	}
	if b, err := p.s.Get(want); err != nil || string(b) != "a.txt:1:now\n" {
		t.Errorf("the object is %q, %v", b, err)
	}
	if rep.Steps[1].Status != Matched || rep.Steps[1].ActualRef != "" {
		t.Errorf("step 1 = %+v", rep.Steps[1])
	}
}

// answerer is an EditAnswerer that says what it was given: the tool, and
// per change the path as the workspace shows it, whether the file was
// absent, and the content; it leaves unchanged an edit whose recorded
// answer is "failed".
type answerer struct{ got []string }

func (a *answerer) Unchanged(call *Call) (string, error) {
	rec, err := call.RecordedOutput()
	if string(rec) == "failed" {
		return "the recording says it failed", err
	}
	return "", err
}

func (a *answerer) Answer(e *AppliedEdit) ([]byte, error) {
	var b strings.Builder
	b.WriteString(e.Call.Tool + " " + e.Edit.Tool)
	for _, c := range e.Changes {
		name, _ := e.Name(c.Path)
		fmt.Fprintf(&b, " %s=%s(%s) absent=%t %q", c.Path, name, e.Shown(c.Path), e.Absent(c.Path), c.Content)
	}
	a.got = append(a.got, b.String())
	return e.Recorded, nil
}

// The replay applies each edit and asks the answerer of its tool
// (Options.Edits; a patch, whichever tool ran it, under "apply_patch")
// for the answer, which is compared with the recorded one; an edit the
// answerer says changed nothing is not applied, and one of a tool without
// an answerer is applied, its step skipped.
func TestEditAnswerers(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	patch := `*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch`
	m := p.pack(map[string]string{"a.txt": "one\n"}, []step{
		{tool: "Write", params: `{"file_path":"/w/new.txt","content":"n\n"}`, out: "as recorded"},
		{tool: "apply_patch", params: `"` + patch + `"`, out: "failed"},
		{tool: "shell", params: `{"command":["apply_patch","` + patch + `"]}`, out: "as recorded"},
		{tool: "write_file", params: `{"path":"b.txt","content":"b\n"}`, out: "Wrote b.txt"},
		{tool: "read_file", params: `{"path":"a.txt"}`, out: "two\n", det: true},
		{tool: "read_file", params: `{"path":"b.txt"}`, out: "b\n", det: true},
	}, here)
	m.Metadata = jsontext.Value(`{"session":{"cwd":"/w"}}`)
	if _, _, err := manifest.Commit(p.s, m); err != nil {
		t.Fatal(err)
	}
	a := &answerer{}
	rep := replay(t, p, m, Options{Edits: map[string]EditAnswerer{"Write": a, "apply_patch": a}})
	want := []brief{
		{Matched, hashOf("as recorded"), hashOf("as recorded"), ""},
		{Skipped, hashOf("failed"), "", "apply_patch: the recording says it failed"},
		{Matched, hashOf("as recorded"), hashOf("as recorded"), ""},
		{Skipped, hashOf("Wrote b.txt"), "", "write_file: its answer is the tool's own text, which is not rendered; the edit was applied"},
		{Matched, hashOf("two\n"), hashOf("two\n"), ""},
		{Matched, hashOf("b\n"), hashOf("b\n"), ""},
	}
	if got := briefs(rep); !reflect.DeepEqual(got, want) {
		t.Errorf("steps:\n got %q\nwant %q", got, want)
	}
	if len(rep.Steps[1].Changes) > 0 || len(rep.Steps[3].Changes) != 1 {
		t.Errorf("changes: %+v, %+v", rep.Steps[1].Changes, rep.Steps[3].Changes)
	}
	wantGot := []string{
		`Write Write /w/new.txt=new.txt(/w/new.txt) absent=true "n\n"`,
		`shell shell a.txt=a.txt(/w/a.txt) absent=false "two\n"`,
	}
	if !reflect.DeepEqual(a.got, wantGot) {
		t.Errorf("the answerer got:\n %q\nwant %q", a.got, wantGot)
	}
}
