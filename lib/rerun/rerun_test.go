package rerun_test

import (
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/internal/agenttest"
	"github.com/ctx-tools/ctx/lib/drift"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/rerun"
	"github.com/ctx-tools/ctx/lib/serve"
)

// TestEdited re-runs, with every agent, its write scenario with one tool
// result changed: the agent's real result differs there, so that step
// diverges, with the difference, and the replay is degraded.
func TestEdited(t *testing.T) {
	t.Parallel()
	for _, d := range rerun.Drivers {
		t.Run(d.Name(), func(t *testing.T) {
			bin := agenttest.Bin(t, d)
			files, _ := filepath.Glob(filepath.Join("..", "agent", pkgDir(d), "testdata", "scenarios", "*.json"))
			if len(files) == 0 {
				t.Fatalf("no scenario for %s", d.Name())
			}
			file := files[0]
			log, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			step := int(gjson.GetBytes(log, `steps.#(type=="tool_call").index`).Int())
			log = edit(t, log, func(l map[string]any) {
				l["steps"].([]any)[step].(map[string]any)["output"] = "an answer the tool never gave"
			})
			s, _ := agenttest.Pack(t, file)
			m := agenttest.PackLog(t, s, log)
			rep := agenttest.Rerun(t, s, m, d, bin, rerun.Options{})
			if rep.Fidelity != replay.Degraded {
				t.Errorf("fidelity %s, want degraded", rep.Fidelity)
			}
			r := rep.Steps[step]
			if r.Status != replay.Diverged || r.Difference == nil || !strings.Contains(r.Difference.Where, "tool result") ||
				r.Difference.Want != "an answer the tool never gave" {
				t.Errorf("step %d: %+v %+v", step, r, r.Difference)
			}
			for _, r := range rep.Steps[:step] {
				if r.Status != replay.Matched {
					t.Errorf("step %d before the edit: %s", r.Index, r.Status)
				}
			}
		})
	}
}

// TestFork forks a Claude Code session onto a second served pack (another
// model's run) from step 2: the steps before are the recording's, the
// agent's transcript holds the other model's answer from there, and the
// drift between the original and the fork starts at step 2.
func TestFork(t *testing.T) {
	t.Parallel()
	d := rerun.Drivers[slices.IndexFunc(rerun.Drivers, func(d rerun.Driver) bool { return d.Name() == "claude-code" })]
	bin := agenttest.Bin(t, d)
	file := filepath.Join("..", "agent", "claudecode", "testdata", "fork.json")
	s, m := agenttest.Pack(t, file)
	log, _ := os.ReadFile(file)
	other := edit(t, log, func(l map[string]any) {
		l["steps"].([]any)[2].(map[string]any)["output"] = "Done, says the other model."
		l["model"].(map[string]any)["identifier"] = "claude-other"
	})
	om := agenttest.PackLog(t, s, other)
	rec, err := serve.Load(s, []*manifest.Manifest{om})
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(serve.New(rec, serve.Options{}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	from := 2
	rep := agenttest.Rerun(t, s, m, d, bin, rerun.Options{Upstream: u, From: &from, Model: "claude-other"})
	for _, r := range rep.Steps[:from] {
		if r.Status != replay.Matched {
			t.Errorf("step %d before the fork: %s %s", r.Index, r.Status, r.Reason)
		}
	}
	if r := rep.Steps[from]; r.Status != replay.Skipped || !strings.Contains(r.Reason, "upstream") {
		t.Errorf("step %d: %+v", from, r)
	}
	fork, err := ref.Load(s, rep.Replayed)
	if err != nil {
		t.Fatal(err)
	}
	if fork.Parent != m.Hash {
		t.Errorf("the fork's parent is %s, want %s", fork.Parent, m.Hash)
	}
	dr, err := drift.Diff(m, fork, drift.StoreObjects(s), drift.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := -1
	for _, e := range dr.Drift {
		switch e.Type {
		case "output_drift", "tool_drift", "param_drift", "reasoning_drift":
			if e.Type == "param_drift" && e.Tool == "" {
				continue // a turn's parameters are the request's settings, the agent's own
			}
			if e.AStep != nil && (first < 0 || *e.AStep < first) {
				first = *e.AStep
			}
		}
	}
	if first != from {
		t.Errorf("the first step drift is at step %d, want %d: %+v", first, from, dr.Drift)
	}
}

func pkgDir(d rerun.Driver) string { return strings.ReplaceAll(d.Name(), "-", "") }

// edit returns the execution log with f's changes.
func edit(t *testing.T, log []byte, f func(map[string]any)) []byte {
	t.Helper()
	var l map[string]any
	if err := json.Unmarshal(log, &l); err != nil {
		t.Fatal(err)
	}
	f(l)
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRecord runs each agent whose API's exchanges ctx imports through a
// recording proxy in front of the served pack: the pack made of what the
// proxy kept holds the same tool calls as the agent's own transcript,
// and no key reaches the store.
func TestRecord(t *testing.T) {
	t.Parallel()
	for _, d := range rerun.Drivers {
		if d.Name() == "gemini" {
			continue // no exchange importer for the Gemini API
		}
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			bin := agenttest.Bin(t, d)
			files, _ := filepath.Glob(filepath.Join("..", "agent", pkgDir(d), "testdata", "scenarios", "*.json"))
			if len(files) == 0 {
				t.Fatalf("no scenario for %s", d.Name())
			}
			s, m := agenttest.Pack(t, files[0])
			rep := agenttest.Rerun(t, s, m, d, bin, rerun.Options{Record: true})
			if rep.Fidelity != replay.Exact {
				t.Errorf("fidelity %s through the proxy", rep.Fidelity)
			}
			rec, err := ref.Load(s, rep.Recorded)
			if err != nil {
				t.Fatal(err)
			}
			own, err := ref.Load(s, rep.Replayed)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := calls(rec), calls(own); !slices.Equal(got, want) {
				t.Errorf("recorded calls %q, the transcript's %q", got, want)
			}
			objs, err := s.Objects("")
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				b, err := s.Get(o)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(b), rerun.Key) {
					t.Errorf("object %s holds the API key", o)
				}
			}
		})
	}
}

// calls are a pack's tool calls: tool and call id.
func calls(m *manifest.Manifest) []string {
	var out []string
	for _, st := range m.Steps {
		if st.Type == manifest.ToolCall {
			out = append(out, st.Tool+" "+gjson.GetBytes(st.Metadata, "call_id").String())
		}
	}
	return out
}
