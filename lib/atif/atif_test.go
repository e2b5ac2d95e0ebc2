package atif

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

// fixtures are the importers' own test inputs.
const fixtures = "../importer/testdata"

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

// validate checks an exported trajectory against the ATIF v1.7 schema
// (testdata/atif-v1.7.schema.json, written from Harbor's models) and the
// model validators that compare objects with each other.
func validate(t *testing.T, doc []byte) {
	t.Helper()
	schemaOnce.Do(func() {
		f, err := os.Open("testdata/atif-v1.7.schema.json")
		if err != nil {
			schemaErr = err
			return
		}
		defer f.Close()
		s, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("atif-v1.7.schema.json", s); err != nil {
			schemaErr = err
			return
		}
		schema, schemaErr = c.Compile("atif-v1.7.schema.json")
	})
	if schemaErr != nil {
		t.Fatal(schemaErr)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Errorf("the trajectory does not validate: %v\n%s", err, canon.Indent(doc))
	}
	for _, p := range crossCheck(gjson.ParseBytes(doc), "") {
		t.Errorf("%s\n%s", p, canon.Indent(doc))
	}
}

// crossCheck applies Trajectory's own validators: step ids sequential
// from 1, tool call ids unique in their step, every source_call_id a call
// of its step, embedded subagents with unique trajectory_ids, and every
// path-less subagent reference resolving to one of them.
func crossCheck(t gjson.Result, where string) []string {
	var probs []string
	embedded := map[string]bool{}
	for i, s := range t.Get("subagent_trajectories").Array() {
		id := s.Get("trajectory_id").String()
		if embedded[id] {
			probs = append(probs, fmt.Sprintf("%ssubagent_trajectories[%d].trajectory_id %q is not unique", where, i, id))
		}
		embedded[id] = true
		probs = append(probs, crossCheck(s, fmt.Sprintf("%ssubagent_trajectories[%d].", where, i))...)
	}
	for i, s := range t.Get("steps").Array() {
		if s.Get("step_id").Int() != int64(i+1) {
			probs = append(probs, fmt.Sprintf("%ssteps[%d].step_id is %s", where, i, s.Get("step_id").Raw))
		}
		ids := map[string]bool{}
		for _, c := range s.Get("tool_calls").Array() {
			id := c.Get("tool_call_id").String()
			if ids[id] {
				probs = append(probs, fmt.Sprintf("%ssteps[%d]: tool_call_id %q twice", where, i, id))
			}
			ids[id] = true
		}
		for j, r := range s.Get("observation.results").Array() {
			if id := r.Get("source_call_id"); id.Type == gjson.String && !ids[id.Str] {
				probs = append(probs, fmt.Sprintf("%ssteps[%d].observation.results[%d].source_call_id %q names no call of the step", where, i, j, id.Str))
			}
			for _, ref := range r.Get("subagent_trajectory_ref").Array() {
				if ref.Get("trajectory_path").String() == "" && !embedded[ref.Get("trajectory_id").String()] {
					probs = append(probs, fmt.Sprintf("%ssteps[%d].observation.results[%d]: subagent %q is not embedded", where, i, j, ref.Get("trajectory_id").String()))
				}
			}
		}
	}
	return probs
}

// TestSchemaRejects: the schema and the cross checks find what Harbor's
// models refuse, so that a passing validation means something.
func TestSchemaRejects(t *testing.T) {
	ok := `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"hi"},{"step_id":2,"source":"agent","message":"","tool_calls":[{"tool_call_id":"c","function_name":"f","arguments":{}}],"observation":{"results":[{"source_call_id":"c","content":"x"}]}}]}`
	validate(t, []byte(ok))
	bad := map[string]string{
		"tool calls on a user step":   `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"hi","tool_calls":[]}]}`,
		"an unknown member":           `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1","secret":1},"steps":[{"step_id":1,"source":"user","message":"hi"}]}`,
		"metrics without an LLM call": `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"agent","message":"","llm_call_count":0,"metrics":{}}]}`,
		"an image of another type":    `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":[{"type":"image","source":{"media_type":"image/tiff","path":"x"}}]}]}`,
		"a ref by session_id alone":   `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"agent","message":"","observation":{"results":[{"subagent_trajectory_ref":[{"session_id":"s"}]}]}}]}`,
	}
	for name, doc := range bad {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if schema.Validate(inst) == nil {
			t.Errorf("%s: the schema accepts it", name)
		}
	}
	for name, doc := range map[string]string{
		"step ids out of order": `{"steps":[{"step_id":2}]}`,
		"a result of no call":   `{"steps":[{"step_id":1,"observation":{"results":[{"source_call_id":"x"}]}}]}`,
		"a ref not embedded":    `{"steps":[{"step_id":1,"observation":{"results":[{"subagent_trajectory_ref":[{"trajectory_id":"t"}]}]}}]}`,
	} {
		if len(crossCheck(gjson.Parse(doc), "")) == 0 {
			t.Errorf("%s: the cross checks accept it", name)
		}
	}
}

// TestRoundTrip: an ATIF trajectory imported and exported again is the
// same document, and importing the export gives the same log.
func TestRoundTrip(t *testing.T) {
	files, _ := filepath.Glob(fixtures + "/atif/*.json")
	n := 0
	for _, f := range files {
		if strings.Contains(f, ".golden.") || strings.Contains(filepath.Base(f), "malformed") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			log, _, err := formats.Import(importer.ATIF, data, importer.Options{Dir: filepath.Dir(f)})
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := Export(log, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want, err := canon.Canonicalize(data)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("the export differs from %s:\n%s", f, canon.Indent(out))
			}
			validate(t, out)
			again, _, err := formats.Import(importer.ATIF, out, importer.Options{Dir: filepath.Dir(f)})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, log) {
				t.Errorf("importing the export gives another log:\n%s", canon.Indent(again))
			}
		})
	}
	if n == 0 {
		t.Fatal("no ATIF fixture")
	}
}

// TestImageFile: an image a trajectory names by a path beside it is in
// the pack; the export to a file names the same path and gives the
// image's bytes to write there, the export on its own embeds it.
func TestImageFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	if err := os.Mkdir(filepath.Join(dir, "images"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "images", "step_4_screenshot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fixtures + "/atif/harbor.json")
	if err != nil {
		t.Fatal(err)
	}
	log, rep, err := formats.Import(importer.ATIF, data, importer.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) != 0 {
		t.Errorf("warnings: %q", rep.Warnings)
	}
	var found bool
	for _, s := range gjson.GetBytes(log, "steps").Array() {
		for _, p := range s.Get("output_parts").Array() {
			found = found || p.Get("content_base64").String() == "iVBORw0KGgpub3QgcmVhbGx5"
		}
	}
	if !found {
		t.Errorf("the screenshot is not a step's output part:\n%s", canon.Indent(log))
	}
	out, media, _, err := ExportMedia(log, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := canon.Canonicalize(data)
	if !bytes.Equal(out, want) {
		t.Errorf("the export differs:\n%s", canon.Indent(out))
	}
	if len(media) != 1 || media[0].Path != "images/step_4_screenshot.png" || !bytes.Equal(media[0].Data, png) {
		t.Errorf("media = %+v", media)
	}
	out, _, err = Export(log, Options{})
	if err != nil {
		t.Fatal(err)
	}
	embedded := bytes.Replace(want, []byte(`"images/step_4_screenshot.png"`), []byte(`"data:image/png;base64,iVBORw0KGgpub3QgcmVhbGx5"`), 1)
	if !bytes.Equal(out, embedded) {
		t.Errorf("the export names a file it does not carry:\n%s", canon.Indent(out))
	}
	// Outside the directory, nothing is read.
	esc := bytes.Replace(data, []byte(`"images/step_4_screenshot.png"`), []byte(`"../escape.png"`), 1)
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "escape.png"), png, 0o644); err == nil {
		defer os.Remove(filepath.Join(filepath.Dir(dir), "escape.png"))
	}
	_, rep, err = formats.Import(importer.ATIF, esc, importer.Options{Dir: dir})
	if err != nil || len(rep.Warnings) != 1 {
		t.Errorf("a path out of the directory: %v, warnings %q", err, rep.Warnings)
	}
}

// TestExportValidates: every importer fixture and every shared sample,
// of every format, exports to a valid ATIF trajectory.
func TestExportValidates(t *testing.T) {
	var files []string
	fs.WalkDir(os.DirFS(fixtures), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(p, "fuzz/") && !strings.HasPrefix(p, "workspace/") &&
			!strings.Contains(p, ".golden.") && !strings.Contains(p, "malformed") && !strings.Contains(p, "badmessage") {
			files = append(files, filepath.Join(fixtures, p))
		}
		return nil
	})
	if root, err := sharedtest.Path(); err == nil {
		for _, pat := range []string{"*/*.json", "*/*.jsonl", "*/*.eval"} {
			m, _ := filepath.Glob(filepath.Join(root, "agent-logs", pat))
			files = append(files, m...)
		}
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			format, err := formats.Detect(f, data)
			if err != nil {
				t.Skip(err)
			}
			log, _, err := formats.Import(format, data, importer.Options{Name: filepath.Base(f)})
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := Export(log, Options{Pack: "sha256:" + strings.Repeat("0", 64)})
			if err != nil {
				t.Fatal(err)
			}
			validate(t, out)
			// Every step of the log is in the trajectory: model turns as
			// agent steps, tool calls as their calls.
			var calls, turns int
			count(gjson.ParseBytes(out), &calls, &turns)
			var wantCalls, wantTurns int
			for _, s := range gjson.GetBytes(log, "steps").Array() {
				if s.Get("type").String() == "tool_call" {
					wantCalls++
				} else {
					wantTurns++
				}
			}
			if calls != wantCalls || turns < wantTurns {
				t.Errorf("%d calls and %d agent steps, want %d and at least %d", calls, turns, wantCalls, wantTurns)
			}
		})
	}
}

func count(t gjson.Result, calls, turns *int) {
	for _, s := range t.Get("steps").Array() {
		if s.Get("source").String() == "agent" {
			*turns++
			*calls += len(s.Get("tool_calls").Array())
		}
	}
	for _, s := range t.Get("subagent_trajectories").Array() {
		count(s, calls, turns)
	}
}
