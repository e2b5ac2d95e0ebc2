// Package agenttest runs the real agents — the pinned versions of
// scripts/agents.txt, installed by scripts/agents-install.sh — against
// scenario packs, and checks that what each agent recorded is what the
// scenario says happened.
//
// A scenario is an execution log of the agent's own shape (its tool
// names, its tools' answers), its llm_call steps being the model's turns.
// Run packs it, re-runs it with the agent in the loop (lib/rerun: the
// pack answers as the model), requires fidelity exact (every request
// the agent made matched the recording, every file it wrote is the
// recorded output), then imports the transcript the agent wrote and
// compares it with the scenario: each turn's text and usage, each tool
// call's name, parameters, output and error with its exit code, the
// prompts by role, subagent attribution, the files written and their
// content, the model, the system prompt where the agent records it, and
// that the import lost nothing (no warning that a record holding data
// was skipped).
//
// The tests skip, saying so, where node or the agents are missing.
package agenttest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/rerun"
	"github.com/ctx-tools/ctx/lib/serve"
	"github.com/ctx-tools/ctx/lib/store"
)

// Dir is where scripts/agents-install.sh installs the agents: $CTX_AGENTS,
// else ctx/agents under the user's cache directory.
func Dir() string {
	if d := os.Getenv("CTX_AGENTS"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "ctx", "agents")
}

// Bin returns the installed executable of d's agent, or skips t.
func Bin(t testing.TB, d rerun.Driver) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the live-agent tests need node, npm and the agents (scripts/agents-install.sh)")
	}
	bin := filepath.Join(Dir(), "node_modules", ".bin", d.Executable())
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s is not installed in %s: run scripts/agents-install.sh", d.Package(), Dir())
	}
	return bin
}

// Checks say what an agent's transcript records, beyond what every
// agent's does.
type Checks struct {
	// SystemPrompt: the transcript holds the system prompt sent.
	SystemPrompt bool
	// Replayed are the tools whose steps ctx-replay's built-in replay
	// must reproduce (matched) in the imported transcript: the agent's
	// own answers, as it renders them.
	Replayed []string
	// After, when set, checks the pack got, imported from the
	// transcript of the scenario want, further.
	After func(t *testing.T, s *store.Store, want, got *manifest.Manifest)
}

// Run re-runs every scenario (*.json) in dir with d's agent, each a
// subtest, and checks each as the package doc says.
func Run(t *testing.T, d rerun.Driver, dir string, checks Checks) {
	bin := Bin(t, d)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario in %s", dir)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			s, m := pack(t, f)
			rep, out := rerunPack(t, s, m, d, bin)
			if rep.Fidelity != replay.Exact {
				t.Errorf("fidelity %s, want exact", rep.Fidelity)
				for _, r := range rep.Steps {
					if r.Status != replay.Matched {
						t.Errorf("step %d (%s %s): %s %s %v", r.Index, r.Type, r.Tool, r.Status, r.Reason, r.Difference)
					}
				}
				for _, o := range rep.Outputs {
					if o.Status != replay.Matched {
						t.Errorf("output %s: %s %s", o.Name, o.Status, o.Reason)
					}
				}
				t.Logf("the agent's output:\n%s", out)
			}
			if rep.Replayed == "" {
				t.Fatalf("%s wrote no transcript", d.Name())
			}
			got, err := ref.Load(s, rep.Replayed)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range Compare(s, m, got, agentNamed(d.Name()), checks) {
				t.Error(p)
			}
			for _, p := range Replayed(t, s, got, checks.Replayed) {
				t.Error(p)
			}
			for _, w := range rep.Transcript.Warnings {
				if strings.Contains(w, "lost") || strings.Contains(w, "not imported") {
					t.Errorf("import warning: %s", w)
				}
			}
			if checks.After != nil {
				checks.After(t, s, m, got)
			}
		})
	}
}

func pack(t *testing.T, file string) (*store.Store, *manifest.Manifest) {
	t.Helper()
	s, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	l, err := execlog.Parse(data, execlog.Options{Dir: filepath.Dir(file)})
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	m, _, err := l.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

func rerunPack(t *testing.T, s *store.Store, m *manifest.Manifest, d rerun.Driver, bin string) (*rerun.Report, string) {
	t.Helper()
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := rerun.Run(ctx, s, m, rerun.Options{Driver: d, Bin: bin, Timeout: 3 * time.Minute, TempDir: t.TempDir(),
		Log: func(i int, b []byte) { fmt.Fprintf(&out, "--- prompt %d\n%s\n", i, b) }})
	if err != nil {
		t.Fatalf("re-running: %v\n%s", err, out.String())
	}
	return rep, out.String()
}

// agentNamed returns the serving rules of the agent named name, or nil.
func agentNamed(name string) *serve.Agent {
	for _, a := range serve.Agents {
		if a.Agent.Name == name {
			return a.Agent
		}
	}
	return nil
}

// Compare lists how the pack got (imported from the agent's transcript)
// differs from the scenario want.
func Compare(s *store.Store, want, got *manifest.Manifest, a *serve.Agent, checks Checks) []string {
	var probs []string
	add := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	if got.Model.Identifier != want.Model.Identifier {
		add("model %q, want %q", got.Model.Identifier, want.Model.Identifier)
	}
	if checks.SystemPrompt && got.SystemPrompt.IsZero() {
		add("no system prompt")
	}
	wp, gp := userPrompts(s, want), userPrompts(s, got)
	if !slices.Equal(wp, gp) {
		add("user prompts %q, want %q", gp, wp)
	}
	ws, gs := views(s, want, a), views(s, got, a)
	for i := range max(len(ws), len(gs)) {
		switch {
		case i >= len(gs):
			add("step %d missing: want %s", i, ws[i])
		case i >= len(ws):
			add("step %d extra: %s", i, gs[i])
		case ws[i] != gs[i]:
			add("step %d:\n got %s\nwant %s", i, gs[i], ws[i])
		}
	}
	wo, gotOut := outputs(want), outputs(got)
	for name, d := range wo {
		if g, ok := gotOut[name]; !ok {
			add("output %s missing", name)
		} else if g != d {
			add("output %s is %s, want %s", name, g, d)
		}
	}
	for name := range gotOut {
		if _, ok := wo[name]; !ok {
			add("output %s is not the scenario's", name)
		}
	}
	return probs
}

// Replayed replays the pack m with the built-in replay and the agents'
// answers to edits (formats.ReplayEdits), and lists the steps of the
// tools named that it did not reproduce (not matched).
func Replayed(t *testing.T, s *store.Store, m *manifest.Manifest, tools []string) []string {
	if len(tools) == 0 {
		return nil
	}
	rep, err := replay.Run(context.Background(), s, m, replay.Options{TempDir: t.TempDir(), Edits: formats.ReplayEdits()})
	if err != nil {
		return []string{fmt.Sprintf("replaying the imported transcript: %v", err)}
	}
	var probs []string
	for _, r := range rep.Steps {
		if slices.Contains(tools, r.Tool) && r.Status != replay.Matched {
			probs = append(probs, fmt.Sprintf("replayed step %d (%s): %s %s", r.Index, r.Tool, r.Status, r.Reason))
		}
	}
	return probs
}

func userPrompts(s *store.Store, m *manifest.Manifest) []string {
	var out []string
	for _, p := range m.Prompts {
		if p.Role == "user" && !p.ContentRef.IsZero() {
			b, _ := s.Get(p.ContentRef)
			out = append(out, string(b))
		}
	}
	return out
}

func outputs(m *manifest.Manifest) map[string]digest.Digest {
	out := map[string]digest.Digest{}
	for _, o := range m.Outputs {
		out[o.Name] = o.ContentRef
	}
	return out
}

// views are a pack's steps as the comparison reads them: type, tool,
// agent, parameters, output (and its parts) and error, the working
// directory as $CWD and the agent's run-to-run text as ctx-serve compares
// it (Agent.Clean). A subagent reads as its rank among the pack's
// subagents ("#1"): agents name them at random.
func views(s *store.Store, m *manifest.Manifest, a *serve.Agent) []string {
	cwd := gjson.GetBytes(m.Metadata, "session.cwd").String()
	norm := func(t string) string {
		if a != nil && a.Clean != nil {
			t = a.Clean(t)
		}
		if cwd != "" {
			t = strings.ReplaceAll(t, cwd, "$CWD")
		}
		return t
	}
	var out []string
	agents := map[string]int{}
	for _, st := range m.Steps {
		var b strings.Builder
		fmt.Fprintf(&b, "%s", st.Type)
		if st.Tool != "" {
			fmt.Fprintf(&b, " %s", st.Tool)
		}
		if st.Agent != "" {
			if agents[st.Agent] == 0 {
				agents[st.Agent] = len(agents) + 1
			}
			fmt.Fprintf(&b, " agent=#%d", agents[st.Agent])
		}
		if len(st.Parameters) > 0 && st.Type == manifest.ToolCall {
			// A turn's parameters are the request's settings, the
			// agent's, not the scenario's.
			p, err := canon.Canonicalize(st.Parameters)
			if err != nil {
				p = st.Parameters
			}
			fmt.Fprintf(&b, " params=%s", norm(string(p)))
		}
		if !st.OutputRef.IsZero() {
			o, _ := s.Get(st.OutputRef)
			fmt.Fprintf(&b, " output=%q", norm(string(o)))
		}
		for _, p := range st.OutputParts {
			fmt.Fprintf(&b, " part=%s/%s/%s", p.Type, p.MediaType, p.ContentRef)
		}
		if !st.ReasoningRef.IsZero() {
			r, _ := s.Get(st.ReasoningRef)
			fmt.Fprintf(&b, " reasoning=%q", string(r))
		}
		if st.Error != nil {
			fmt.Fprintf(&b, " error=%q", norm(st.Error.Message))
			if st.Error.ExitCode != nil {
				fmt.Fprintf(&b, " exit=%d", *st.Error.ExitCode)
			}
		}
		if st.Usage != nil {
			for _, f := range st.Usage.Fields() {
				if *f.Value != nil {
					fmt.Fprintf(&b, " %s=%d", f.Name, **f.Value)
				}
			}
		}
		out = append(out, b.String())
	}
	return out
}

// Pack packs the scenario file into a new store.
func Pack(t *testing.T, file string) (*store.Store, *manifest.Manifest) { return pack(t, file) }

// PackLog packs an execution log into s.
func PackLog(t *testing.T, s *store.Store, log []byte) *manifest.Manifest {
	t.Helper()
	l, err := execlog.Parse(log, execlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := l.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Rerun re-runs m with d's agent, failing t on an error.
func Rerun(t *testing.T, s *store.Store, m *manifest.Manifest, d rerun.Driver, bin string, opts rerun.Options) *rerun.Report {
	t.Helper()
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	opts.Driver, opts.Bin, opts.Timeout, opts.TempDir = d, bin, 3*time.Minute, t.TempDir()
	opts.Log = func(i int, b []byte) { fmt.Fprintf(&out, "--- prompt %d\n%s\n", i, b) }
	rep, err := rerun.Run(ctx, s, m, opts)
	if err != nil {
		t.Fatalf("re-running: %v\n%s", err, out.String())
	}
	return rep
}
