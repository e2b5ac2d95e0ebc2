// Package replaytest helps test executors (replay.Executor) outside
// package replay, as agents' packages define them: it makes workspaces,
// live or made of a pack's inputs, runs one executor in them, and makes
// packs to replay whole.
package replaytest

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/replay/render"
	"github.com/ctx-tools/ctx/lib/store"
)

// Tree writes files (name → content) under dir.
func Tree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Live opens dir as a live workspace, closed when the test ends.
func Live(t testing.TB, dir string) *replay.Workspace {
	t.Helper()
	ws, err := replay.OpenLive(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// Seen is a file the session saw in part: its known lines by number, and
// its line count when recorded (else 0). Nil Lines: seen only by name.
type Seen struct {
	Lines map[int]string
	Total int
}

// Hermetic makes a workspace of a pack's inputs, as a replay does: files
// whole (name → content), and seen, the files the session saw only by
// name or in part. It is removed when the test ends.
func Hermetic(t testing.TB, files map[string]string, seen map[string]Seen) *replay.Workspace {
	t.Helper()
	s := newStore(t)
	var inputs []manifest.File
	for name, content := range files {
		inputs = append(inputs, manifest.File{Name: name, ContentRef: put(t, s, content), Size: int64(len(content))})
	}
	for name, sf := range seen {
		f := manifest.File{Name: name, Seen: manifest.SeenName}
		if sf.Lines != nil {
			var text strings.Builder
			nums := slices.Sorted(maps.Keys(sf.Lines))
			for i, n := range nums {
				if i == 0 || n != nums[i-1]+1 {
					f.Lines = append(f.Lines, [2]int64{int64(n), int64(n)})
				}
				f.Lines[len(f.Lines)-1][1] = int64(n)
				text.WriteString(sf.Lines[n] + "\n")
			}
			f.Seen, f.TotalLines, f.ContentRef = manifest.SeenPartial, int64(sf.Total), put(t, s, text.String())
		}
		inputs = append(inputs, f)
	}
	ws, drift, err := replay.Materialise(s, inputs, t.TempDir())
	if err != nil || len(drift) > 0 {
		t.Fatalf("materialising: %v %v", drift, err)
	}
	t.Cleanup(func() { ws.Remove() })
	return ws
}

// Run runs ex as tool on params in ws, with recorded as the step's
// recorded output ("": none), and returns the output, "skip: REASON" or
// "error: MESSAGE".
func Run(t testing.TB, ws *replay.Workspace, ex replay.Executor, tool, params, recorded string) string {
	t.Helper()
	var out bytes.Buffer
	call := &replay.Call{Tool: tool, Parameters: jsontext.Value(params), Workspace: ws}
	if recorded != "" {
		call.Recorded = func() ([]byte, error) { return []byte(recorded), nil }
	}
	err := ex.Run(context.Background(), call, &out)
	return Result(out.Bytes(), err)
}

// Result is what an executor or a renderer gave: its output b, or
// "skip: REASON" for a *render.Unsupported error, or "error: MESSAGE".
func Result(b []byte, err error) string {
	var skip *render.Unsupported
	switch {
	case errors.As(err, &skip):
		return "skip: " + skip.Reason
	case err != nil:
		return "error: " + err.Error()
	}
	return string(b)
}

// Step is a tool call recorded with output Out, Deterministic when Det,
// with metadata Meta (JSON) when set, failed when Err is set.
type Step struct {
	Tool, Params, Out string
	Det               bool
	Meta              string
	Err               *manifest.StepError
}

// Pack commits a pack of inputs (name → content) and steps, recorded in
// env, to a new store.
func Pack(t testing.TB, inputs map[string]string, steps []Step, env manifest.Environment) (*store.Store, *manifest.Manifest) {
	t.Helper()
	s := newStore(t)
	m := &manifest.Manifest{
		Version:     manifest.Version,
		Created:     "2026-02-10T09:00:00Z",
		Model:       manifest.Model{Identifier: "test-model"},
		Environment: env,
	}
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		m.Inputs = append(m.Inputs, manifest.File{Name: name, ContentRef: put(t, s, inputs[name]), Size: int64(len(inputs[name]))})
	}
	for i, st := range steps {
		ms := manifest.Step{Index: i, Type: manifest.ToolCall, Tool: st.Tool, Deterministic: st.Det, OutputRef: put(t, s, st.Out), Error: st.Err}
		if st.Params != "" {
			ms.Parameters = jsontext.Value(st.Params)
		}
		if st.Meta != "" {
			ms.Metadata = jsontext.Value(st.Meta)
		}
		m.Steps = append(m.Steps, ms)
	}
	if _, _, err := manifest.Commit(s, m); err != nil {
		t.Fatal(err)
	}
	loaded, err := manifest.Load(s, m.Hash)
	if err != nil {
		t.Fatal(err)
	}
	return s, loaded
}

// Replay replays m, loaded from s, with opt (its temporary workspace in
// the test's temporary directory unless opt.TempDir says otherwise); an
// error of the replay itself fails the test.
func Replay(t testing.TB, s *store.Store, m *manifest.Manifest, opt replay.Options) *replay.Report {
	t.Helper()
	if opt.TempDir == "" {
		opt.TempDir = t.TempDir()
	}
	rep, err := replay.Run(context.Background(), s, m, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func newStore(t testing.TB) *store.Store {
	t.Helper()
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func put(t testing.TB, s *store.Store, content string) digest.Digest {
	t.Helper()
	d, _, err := s.Put([]byte(content))
	if err != nil {
		t.Fatal(err)
	}
	return d
}
