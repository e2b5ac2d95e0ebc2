package manifest

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
)

func extended() *Manifest {
	r := func(s string) digest.Digest { return digest.Of([]byte(s)) }
	zero, two := 0, int64(2)
	return &Manifest{
		Version: Version, Created: "2026-02-10T09:00:00Z", Model: Model{Identifier: "m"},
		SystemPrompt: r("sys"),
		Prompts: []Prompt{
			{Role: "user", Parts: []Part{{Type: PartText, ContentRef: r("p0"), Size: 2}, {Type: PartImage, MediaType: "image/png", ContentRef: r("p1"), Size: 2}}},
			{Role: "user", ContentRef: r("p2")},
		},
		Inputs: []File{
			{Name: "whole", ContentRef: r("i0"), Size: 2},
			{Name: "part", Seen: SeenPartial, Lines: [][2]int64{{1, 2}}, TotalLines: 9, ContentRef: r("i1"), Size: 2},
			{Name: "listed", Seen: SeenName},
		},
		Steps: []Step{
			{Index: 0, Type: LLMCall, OutputRef: r("o0"), ReasoningRef: r("r0"), Usage: &Usage{InputTokens: &two}},
			{Index: 1, Type: ToolCall, Tool: "t", Agent: "sub", ParentStep: &zero, Error: &StepError{}},
			{Index: 2, Type: ToolCall, Tool: "t", OutputParts: []Part{{Type: PartImage, ContentRef: r("o2"), Size: 2}}},
		},
		Outputs: []Output{{Name: "o", MediaType: "text/plain", ContentRef: r("out"), Size: 3}},
	}
}

// Slots visits every reference in manifest order with its path, and the
// optional members even when absent; an input seen by name has none.
func TestSlots(t *testing.T) {
	t.Parallel()
	m := extended()
	m.Steps[1].ParentStep = nil
	var got []string
	for sl := range m.Slots() {
		p := sl.Path.String()
		if sl.Ref.IsZero() {
			p += " (empty)"
		}
		if sl.Size != nil {
			p += " sized"
		}
		got = append(got, p)
	}
	want := []string{
		"system_prompt", "prompts[0].parts[0].content_ref sized", "prompts[0].parts[1].content_ref sized", "prompts[1].content_ref",
		"inputs[0].content_ref sized", "inputs[1].content_ref sized",
		"steps[0].output_ref", "steps[0].reasoning_ref", "steps[1].output_ref (empty)", "steps[1].reasoning_ref (empty)",
		"steps[2].output_parts[0].content_ref sized", "steps[2].reasoning_ref (empty)", "outputs[0].content_ref sized",
	}
	if !slices.Equal(got, want) {
		t.Errorf("slots:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if refs := m.Refs(); len(refs) != 10 {
		t.Errorf("Refs() = %d digests, want the 10 distinct non-zero ones", len(refs))
	}
}

func TestExtendedRoundTrip(t *testing.T) {
	t.Parallel()
	b, err := Encode(extended())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{"name":"listed","seen":"name"}`, `"error":{}`, `"parent_step":0`, `"usage":{"input_tokens":2}`, `"output_parts":[{"content_ref":`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("encoded manifest lacks %s:\n%s", want, b)
		}
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Encode(back); string(again) != string(b) {
		t.Fatalf("round trip changed bytes:\n%s\n%s", b, again)
	}
}

func TestParseRejectsExtended(t *testing.T) {
	t.Parallel()
	for name, edit := range map[string]func(m *Manifest){
		"parent_step":        func(m *Manifest) { n := 1; m.Steps[1].ParentStep = &n },
		"output twice":       func(m *Manifest) { m.Steps[2].OutputRef = m.Steps[0].OutputRef },
		"prompt both":        func(m *Manifest) { m.Prompts[0].ContentRef = m.Steps[0].OutputRef },
		"prompt neither":     func(m *Manifest) { m.Prompts[1].ContentRef = digest.Digest{} },
		"part type":          func(m *Manifest) { m.Prompts[0].Parts[0].Type = "video" },
		"empty parts":        func(m *Manifest) { m.Steps[2].OutputParts = []Part{} },
		"negative usage":     func(m *Manifest) { n := int64(-1); m.Steps[0].Usage.OutputTokens = &n },
		"seen":               func(m *Manifest) { m.Inputs[0].Seen = "half" },
		"partial lines":      func(m *Manifest) { m.Inputs[1].Lines = nil },
		"total below lines":  func(m *Manifest) { m.Inputs[1].TotalLines = 1 },
		"name with content":  func(m *Manifest) { m.Inputs[2].ContentRef = m.Inputs[0].ContentRef },
		"bad input name":     func(m *Manifest) { m.Inputs[0].Name = "../x" },
		"repeated name":      func(m *Manifest) { m.Inputs[1].Name = "whole" },
		"file and directory": func(m *Manifest) { m.Inputs[1].Name = "whole/part" },
		"bad output name":    func(m *Manifest) { m.Outputs[0].Name = "/abs" },
		"input without size": func(m *Manifest) {},
	} {
		m := extended()
		edit(m)
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if name == "input without size" {
			b = []byte(strings.Replace(string(b), `,"size":2}`, `}`, 1))
		}
		if _, err := Parse(b); err == nil {
			t.Errorf("%s: Parse accepted %s", name, b)
		}
	}
}

func FuzzParse(f *testing.F) {
	b, _ := Encode(extended())
	f.Add(b)
	f.Add([]byte(`{"version":"0.1","created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[],"inputs":[{"name":"a","seen":"name","size":0}],"steps":[],"outputs":[],"environment":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(b)
		if err != nil {
			t.Fatalf("an encoded manifest does not parse: %v\n%s", err, b)
		}
		if again, _ := Encode(back); string(again) != string(b) {
			t.Fatalf("encoding is not stable:\n%s\n%s", b, again)
		}
	})
}
