package importtest

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
)

// The types of step.
const (
	toolCall = "tool_call"
	llmCall  = "llm_call"
)

// Log is the execution log as the tests read it back.
type Log struct {
	Created string `json:"created"`
	Model   struct {
		Identifier string         `json:"identifier"`
		Parameters map[string]any `json:"parameters"`
	} `json:"model"`
	SystemPrompt string `json:"system_prompt"`
	Prompts      []struct {
		Role    string           `json:"role"`
		Content string           `json:"content"`
		Parts   []map[string]any `json:"parts"`
	} `json:"prompts"`
	Steps []struct {
		Index         int            `json:"index"`
		Type          string         `json:"type"`
		Tool          string         `json:"tool"`
		Parameters    any            `json:"parameters"`
		Output        *string        `json:"output"`
		Deterministic bool           `json:"deterministic"`
		Timestamp     string         `json:"timestamp"`
		Metadata      map[string]any `json:"metadata"`
		Error         any            `json:"error"`
		Usage         map[string]int `json:"usage"`
		Reasoning     *string        `json:"reasoning"`
		Agent         string         `json:"agent"`
		ParentStep    *int           `json:"parent_step"`
		OutputParts   []struct {
			Type          string `json:"type"`
			MediaType     string `json:"media_type"`
			Content       string `json:"content"`
			ContentBase64 string `json:"content_base64"`
		} `json:"output_parts"`
	} `json:"steps"`
	Inputs []struct {
		Name       string     `json:"name"`
		Content    string     `json:"content"`
		Seen       string     `json:"seen"`
		Lines      [][2]int64 `json:"lines"`
		TotalLines int64      `json:"total_lines"`
	} `json:"inputs"`
	Outputs []struct {
		Name    string `json:"name"`
		Content string `json:"content"`
	} `json:"outputs"`
	Environment struct {
		OS           string            `json:"os"`
		Runtime      string            `json:"runtime"`
		ToolVersions map[string]string `json:"tool_versions"`
	} `json:"environment"`
	Metadata map[string]any `json:"metadata"`
}

// ToolSteps returns the indexes of the tool_call steps.
func (l *Log) ToolSteps() []int {
	var idx []int
	for i, s := range l.Steps {
		if s.Type == toolCall {
			idx = append(idx, i)
		}
	}
	return idx
}

// Count counts the steps of the type.
func (l *Log) Count(typ string) int {
	n := 0
	for _, s := range l.Steps {
		if s.Type == typ {
			n++
		}
	}
	return n
}

// Decode parses an imported log strictly: the fields above and nothing
// else at the top level.
func Decode(t *testing.T, out []byte) *Log {
	t.Helper()
	var l Log
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		t.Fatalf("decoding the imported log: %v\n%s", err, out)
	}
	for i, s := range l.Steps {
		if s.Index != i {
			t.Errorf("steps[%d].index = %d", i, s.Index)
		}
		switch s.Type {
		case toolCall:
			if s.Tool == "" {
				t.Errorf("steps[%d]: tool_call without tool", i)
			}
		case llmCall:
			if s.Deterministic {
				t.Errorf("steps[%d]: llm_call marked deterministic", i)
			}
		default:
			t.Errorf("steps[%d].type = %q", i, s.Type)
		}
	}
	if l.Model.Identifier == "" {
		t.Error("model.identifier is empty")
	}
	return &l
}

// Params parses the JSON s.
func Params(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Ptr returns a pointer to s.
func Ptr(s string) *string { return &s }

// A Step is what a case expects of one step (LLM, Tool).
type Step struct {
	typ, tool string
	params    string // JSON, or "" for none
	output    *string
	isError   bool
}

// LLM is an llm_call step with the output.
func LLM(output *string) Step { return Step{typ: llmCall, output: output} }

// Tool is a tool_call step of the tool, with its parameters (JSON, or
// "" for any), its output and whether it failed.
func Tool(name, params string, output *string, isError bool) Step {
	return Step{typ: toolCall, tool: name, params: params, output: output, isError: isError}
}

// Importer is how RunCases reads a case's fixture: the registry's
// Detect and Import, whether a format is an agent's session, what an
// import's report says (its warnings, and the records it read, mapped
// and skipped), the name of the final answer's output, and whether to rewrite the golden files.
type Importer[R any] struct {
	Detect  func(name string, data []byte) (string, error)
	Import  func(format string, data []byte, name string) ([]byte, R, error)
	Session func(format string) bool
	Report  func(rep R) (warnings []string, records, mapped, skipped int)
	Final   string // the output an answer is written to (importer.FinalName)
	Update  bool
}

// A Case is one of a package's own edge-case inputs (testdata/FILE) and
// what its log must hold (RunCases).
type Case[R any] struct {
	File     string
	Format   string
	Model    string
	System   string
	Prompts  []string
	Steps    []Step
	Outputs  map[string]string
	Warnings []string
	Check    func(t *testing.T, l *Log, out []byte, rep R)
}

// Deref is *s, or nil for a nil s, to print.
func Deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// LastAnswer is the output of the last llm_call step of the main agent
// that has one.
func LastAnswer(l *Log) string {
	for i := len(l.Steps) - 1; i >= 0; i-- {
		if s := l.Steps[i]; s.Type == llmCall && s.Agent == "" && s.Output != nil && strings.TrimSpace(*s.Output) != "" {
			return *s.Output
		}
	}
	return ""
}

// Tally counts a log's tool steps, those with a result, the failed steps
// and the sums of the token counters; a call id on two steps is an error.
func Tally(t *testing.T, l *Log) (tools, results, errs int, usage map[string]int) {
	t.Helper()
	ids := map[any]int{}
	for i, s := range l.Steps {
		if s.Type == toolCall {
			tools++
			if s.Output != nil || len(s.OutputParts) > 0 {
				results++
			}
			if id, ok := s.Metadata["call_id"]; ok {
				if j, dup := ids[id]; dup && s.Metadata["sample_id"] == l.Steps[j].Metadata["sample_id"] {
					t.Errorf("steps %d and %d are the same call %v", j, i, id)
				}
				ids[id] = i
			}
		}
		if s.Error != nil {
			errs++
		}
		for k, n := range s.Usage {
			if usage == nil {
				usage = map[string]int{}
			}
			usage[k] += n
		}
	}
	return tools, results, errs, usage
}

// RunCases imports each case's fixture, testdata/FILE, with imp, and
// checks its log against the case: its golden file (imp.Update: rewrite
// it), that ctx-pack accepts it, that a second import gives the same
// bytes, its model, system prompt, prompts, steps, outputs (an agent
// session's last answer as the output of its last model call), warnings
// and report, and the case's own checks.
func RunCases[R any](t *testing.T, cases []Case[R], imp Importer[R]) {
	for _, fx := range cases {
		t.Run(fx.File, func(t *testing.T) {
			path := filepath.Join("testdata", fx.File)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if f, err := imp.Detect(path, data); f != fx.Format {
				t.Errorf("Detect = %q, %v", f, err)
			}
			out, rep, err := imp.Import(fx.Format, data, path)
			if err != nil {
				t.Fatal(err)
			}
			Golden(t, strings.TrimSuffix(path, filepath.Ext(path))+".golden.json", canon.Indent(out), imp.Update)
			if _, err := execlog.Parse(out, execlog.Options{}); err != nil {
				t.Errorf("ctx-pack would reject the log:\n%v", err)
			}
			if again, _, _ := imp.Import(fx.Format, data, path); !bytes.Equal(again, out) {
				t.Error("a second import gave different bytes")
			}
			l := Decode(t, out)
			if l.Model.Identifier != fx.Model || l.SystemPrompt != fx.System {
				t.Errorf("model %q, system prompt %q", l.Model.Identifier, l.SystemPrompt)
			}
			var prompts []string
			for _, p := range l.Prompts {
				prompts = append(prompts, p.Content)
			}
			if !reflect.DeepEqual(prompts, fx.Prompts) {
				t.Errorf("prompts = %q", prompts)
			}
			if len(l.Steps) != len(fx.Steps) {
				t.Fatalf("%d steps, want %d:\n%s", len(l.Steps), len(fx.Steps), canon.Indent(out))
			}
			for i, w := range fx.Steps {
				s := l.Steps[i]
				if s.Type != w.typ || s.Tool != w.tool {
					t.Errorf("steps[%d] = %s %q, want %s %q", i, s.Type, s.Tool, w.typ, w.tool)
				}
				if w.params != "" && !reflect.DeepEqual(s.Parameters, Params(t, w.params)) {
					t.Errorf("steps[%d].parameters = %v, want %s", i, s.Parameters, w.params)
				}
				if (s.Output == nil) != (w.output == nil) || s.Output != nil && *s.Output != *w.output {
					t.Errorf("steps[%d].output = %v, want %v", i, Deref(s.Output), Deref(w.output))
				}
				if (s.Error != nil) != w.isError {
					t.Errorf("steps[%d].error = %v, want it set: %v", i, s.Error, w.isError)
				}
			}
			outputs := map[string]string{}
			for _, o := range l.Outputs {
				outputs[o.Name] = o.Content
			}
			want := fx.Outputs
			if answer, ok := want[imp.Final]; ok && imp.Session(fx.Format) {
				// An agent session's last answer is no output file: it is
				// the output of its last model call.
				want = maps.Clone(want)
				delete(want, imp.Final)
				if got := LastAnswer(l); got != answer {
					t.Errorf("last llm_call output = %q, want the answer %q", got, answer)
				}
			}
			if len(want) == 0 {
				want = map[string]string{}
			}
			if !reflect.DeepEqual(outputs, want) {
				t.Errorf("outputs = %q, want %q", outputs, want)
			}
			warnings, records, mapped, skipped := imp.Report(rep)
			if !reflect.DeepEqual(warnings, fx.Warnings) {
				t.Errorf("warnings = %q, want %q", warnings, fx.Warnings)
			}
			if mapped+skipped != records {
				t.Errorf("report = %+v", rep)
			}
			Tally(t, l) // no call id on two steps
			if fx.Check != nil {
				fx.Check(t, l, out, rep)
			}
		})
	}
}

// OnePixelPNG is a PNG image of one pixel, in base64.
const OnePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
