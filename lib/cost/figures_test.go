package cost

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/manifest"
)

// TestStepFigures holds stepFigures, which reads a step's metadata once,
// to what m.StepModel and stepAgent find by path.
func TestStepFigures(t *testing.T) {
	metas := []string{
		``,
		`null`,
		`[{"model":"x"}]`,
		`"model"`,
		`{}`,
		`{"model":"claude-x"}`,
		`{"model":""}`,
		`{"model":7}`,
		`{"model":"a","model":"b"}`,
		`{"mod\u0065l":"escaped","usage":{"cost_usd":0.5}}`,
		`{"usage":{"cost_usd":0.25},"usage":{"cost_usd":9}}`,
		`{"usage":{"cost_usd":-1}}`,
		`{"usage":{"cost_usd":"1"}}`,
		`{"usage":{"cost":0.125}}`,
		`{"usage":{"cost":0.125,"cost_usd":0.5}}`,
		`{"call_id":"t1","usage":null,"model":"m","result":{"model":"inner","usage":{"cost_usd":3}}}`,
		`{"result":{"model":"inner"},"tool":"Read"}`,
	}
	m := &manifest.Manifest{Model: manifest.Model{Identifier: "pack-model"}}
	for _, src := range []Source{{Name: "claude-code"}, {Name: "opencode"}, {Name: "atif"}} {
		for _, meta := range metas {
			s := &manifest.Step{}
			if meta != "" {
				s.Metadata = jsontext.Value(meta)
			}
			model, agent := stepFigures(m, src, s)
			wantModel, wantAgent := m.StepModel(s), stepAgent(src, s)
			if model != wantModel || fmt.Sprint(deref(agent)) != fmt.Sprint(deref(wantAgent)) {
				t.Errorf("%s %s: got %q %v, want %q %v", src.Name, meta, model, deref(agent), wantModel, deref(wantAgent))
			}
		}
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// BenchmarkOf sums a session's steps: a model turn with usage, then
// tool calls whose metadata names neither a model nor a cost.
func BenchmarkOf(b *testing.B) {
	m := &manifest.Manifest{Model: manifest.Model{Identifier: "claude-opus-4-1"},
		Environment: manifest.Environment{ToolVersions: map[string]string{"claude-code": "2.1.38"}}}
	// A tool call's metadata holds its result's copy: a file read, some
	// kilobytes.
	tool := jsontext.Value(`{"call_id":"toolu_01","result":{"durationMs":12,"file":{"content":"` +
		strings.Repeat(`func f() int { return 1 }\n`, 100) + `","numLines":100,"filePath":"/w/internal/a.go"},"type":"text"},"result_timestamp":"2026-02-10T00:00:02.001Z","uuid":"0b3c"}`)
	turn := jsontext.Value(`{"id":"msg_01","model":"claude-opus-4-1","stop_reason":"tool_use","uuid":"0b3d"}`)
	in := int64(100)
	for i := range 3000 {
		if i%4 == 0 {
			m.Steps = append(m.Steps, manifest.Step{Index: i, Type: "llm_call", Metadata: turn, Usage: &manifest.Usage{InputTokens: &in}})
		} else {
			m.Steps = append(m.Steps, manifest.Step{Index: i, Type: "tool_call", Metadata: tool})
		}
	}
	t := Default()
	b.ResetTimer()
	for range b.N {
		Of(m, t)
	}
}
