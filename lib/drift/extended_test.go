package drift

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/manifest"
)

// extended adds to base what the extended schema records: a multimodal
// prompt, a partial input, a model call with reasoning and usage, a
// screenshot tool's image output, a failed subagent step and metadata.
func (f *fixture) extended() *manifest.Manifest {
	m := f.base()
	parent := 0
	in, out := int64(100), int64(20)
	m.Prompts = append(m.Prompts, manifest.Prompt{Role: "user", Parts: []manifest.Part{
		{Type: manifest.PartText, ContentRef: f.put("What is this?\n"), Size: 14},
		{Type: manifest.PartImage, MediaType: "image/png", ContentRef: f.put("\x89PNG\x00one"), Size: 8},
	}})
	m.Inputs = append(m.Inputs, manifest.File{Name: "big.py", Seen: manifest.SeenPartial, Lines: [][2]int64{{1, 1}}, TotalLines: 50, ContentRef: f.put("x\n"), Size: 2},
		manifest.File{Name: "listed.py", Seen: manifest.SeenName})
	m.Steps = append(m.Steps,
		manifest.Step{Index: 3, Type: manifest.LLMCall, OutputRef: f.put("Looks fine.\n"), ReasoningRef: f.put("Think.\n"),
			Usage: &manifest.Usage{InputTokens: &in, OutputTokens: &out}},
		manifest.Step{Index: 4, Type: manifest.ToolCall, Tool: "screenshot", OutputParts: []manifest.Part{
			{Type: manifest.PartImage, MediaType: "image/png", ContentRef: f.put("\x89PNG\x00shot"), Size: 9}}},
		manifest.Step{Index: 5, Type: manifest.ToolCall, Tool: "Bash", Agent: "explore", ParentStep: &parent,
			Error: &manifest.StepError{Message: "exit status 1"}, Metadata: jsontext.Value(`{"call_id":"a1"}`)},
	)
	m.Metadata = jsontext.Value(`{"session":"s1"}`)
	return m
}

func TestDiffExtendedTypes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name   string
		change func(m *manifest.Manifest)
		want   string
	}{
		{"model output is reasoning", func(m *manifest.Manifest) { m.Steps[3].OutputRef = f.put("Looks wrong.\n") },
			`reasoning_drift steps[3].output changed a_step=3 b_step=3 a="Looks fine.\n" b="Looks wrong.\n" a_size=12 b_size=13`},
		{"thinking", func(m *manifest.Manifest) { m.Steps[3].ReasoningRef = f.put("Think again.\n") },
			`reasoning_drift steps[3].reasoning changed a_step=3 b_step=3 a="Think.\n" b="Think again.\n" a_size=7 b_size=13`},
		{"usage", func(m *manifest.Manifest) {
			n := int64(21)
			m.Steps[3].Usage.OutputTokens = &n
			m.Steps[3].Usage.InputTokens = nil
		}, `usage_drift steps[3].usage.input_tokens removed a_step=3 b_step=3 a=100` + "\n" +
			`usage_drift steps[3].usage.output_tokens changed a_step=3 b_step=3 a=20 b=21` + "\n" +
			// gpt-4o: 100 input × $2.50/M + 20 output × $10/M, then 21 output.
			`usage_drift cost_usd changed a=0.00045 b=0.00021`},
		{"error flag", func(m *manifest.Manifest) { m.Steps[5].Error = nil },
			`error_drift steps[5].error removed tool=Bash a_step=5 b_step=5 a={"message":"exit status 1"}`},
		{"error message", func(m *manifest.Manifest) {
			code := int64(2)
			m.Steps[5].Error = &manifest.StepError{Message: "exit status 2", ExitCode: &code}
		}, `error_drift steps[5].error.exit_code added tool=Bash a_step=5 b_step=5 b=2` + "\n" +
			`error_drift steps[5].error.message changed tool=Bash a_step=5 b_step=5 a="exit status 1" b="exit status 2"`},
		{"image replaced in an output", func(m *manifest.Manifest) {
			m.Steps[4].OutputParts[0].ContentRef = f.put("\x89PNG\x00other")
			m.Steps[4].OutputParts[0].Size = 10
		}, `part_drift steps[4].output_parts[0] changed tool=screenshot a_step=4 b_step=4 a_size=9 b_size=10 binary`},
		{"image replaced in a prompt", func(m *manifest.Manifest) {
			m.Prompts[1].Parts[1].ContentRef = f.put("\x89PNG\x00two")
			m.Prompts[1].Parts[1].MediaType = "image/webp"
		}, `part_drift prompts[1].parts[1].media_type changed a="image/png" b="image/webp"` + "\n" +
			`part_drift prompts[1].parts[1] changed a_size=8 b_size=8 binary`},
		{"part added", func(m *manifest.Manifest) {
			m.Steps[4].OutputParts = append(m.Steps[4].OutputParts, manifest.Part{Type: manifest.PartText, ContentRef: f.put("ok"), Size: 2})
		}, `part_drift steps[4].output_parts[1] added tool=screenshot a_step=4 b_step=4 b="ok" b_size=2`},
		{"agent", func(m *manifest.Manifest) { m.Steps[5].Agent = "plan"; m.Steps[5].ParentStep = nil },
			`tool_drift steps[5].agent changed tool=Bash a_step=5 b_step=5 a="explore" b="plan"` + "\n" +
				`tool_drift steps[5].parent_step removed tool=Bash a_step=5 b_step=5 a=0`},
		{"input seen", func(m *manifest.Manifest) {
			m.Inputs[2].Lines = [][2]int64{{1, 2}}
			m.Inputs[2].ContentRef, m.Inputs[2].Size = f.put("x\ny\n"), 4
			m.Inputs[2].MediaType = "text/x-python"
			m.Inputs[3] = manifest.File{Name: "listed.py", ContentRef: f.put("whole\n"), Size: 6}
		}, `input_drift inputs["big.py"] changed a="x\n" b="x\ny\n" a_size=2 b_size=4` + "\n" +
			`input_drift inputs["big.py"].media_type added b="text/x-python"` + "\n" +
			`input_drift inputs["big.py"].lines[0][1] changed a=1 b=2` + "\n" +
			`input_drift inputs["listed.py"] added b="whole\n" b_size=6` + "\n" +
			`input_drift inputs["listed.py"].seen removed a="name"`},
		{"input seen by name removed", func(m *manifest.Manifest) { m.Inputs = m.Inputs[:3] },
			`input_drift inputs["listed.py"] removed a="listed.py"`},
		{"metadata", func(m *manifest.Manifest) {
			m.Metadata = jsontext.Value(`{"session":"s2"}`)
			m.Steps[5].Metadata = nil
		}, `metadata_drift steps[5].metadata removed tool=Bash a_step=5 b_step=5 a={"call_id":"a1"}` + "\n" +
			`metadata_drift metadata.session changed a="s1" b="s2"`},
	}
	a := f.pack(f.extended())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := f.extended()
			tt.change(m)
			b := f.pack(m)
			r := diff(t, f, a, b, Options{})
			if got := briefs(r); got != tt.want {
				t.Errorf("drift:\n%s\nwant:\n%s", got, tt.want)
			}
			if r.Identical {
				t.Error("identical")
			}
			// Every entry can be left out by its type.
			var ignore []string
			for typ := range r.Summary {
				ignore = append(ignore, typ)
			}
			if r := diff(t, f, a, b, Options{Ignore: ignore}); !r.Identical {
				t.Errorf("ignoring %s leaves %s", strings.Join(ignore, ","), briefs(r))
			}
		})
	}
}

// parallel calls f once for each index, the caller doing its share.
func TestParallel(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 1000} {
		calls := make([]atomic.Int32, n)
		parallel(n, func(k int) { calls[k].Add(1) })
		for k := range calls {
			if c := calls[k].Load(); c != 1 {
				t.Fatalf("n=%d: f(%d) called %d times", n, k, c)
			}
		}
	}
}
