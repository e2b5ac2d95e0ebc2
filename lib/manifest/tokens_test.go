package manifest

import "testing"

func n(v int64) *int64 { return &v }

func TestCountTokens(t *testing.T) {
	t.Parallel()
	m := &Manifest{Model: Model{Identifier: "claude-x"}, Steps: []Step{
		{Index: 0, Type: LLMCall, Usage: &Usage{InputTokens: n(1000), OutputTokens: n(200), CacheReadTokens: n(5000)}},
		{Index: 1, Type: ToolCall, Tool: "Read"},
		{Index: 2, Type: LLMCall, Agent: "explore", Metadata: []byte(`{"model":"claude-haiku"}`), Usage: &Usage{InputTokens: n(300), OutputTokens: n(40)}},
		{Index: 3, Type: LLMCall, Metadata: []byte(`{"model":""}`), Usage: &Usage{InputTokens: n(7), OutputTokens: n(1), ReasoningTokens: n(2)}},
		{Index: 4, Type: LLMCall, Agent: "explore", Metadata: []byte(`{"model":"claude-haiku"}`), Usage: &Usage{OutputTokens: n(10)}},
	}}
	got := CountTokens(m)
	if s := got.All.String(); s != "in 1,307 · out 251 · cache read 5,000 · reasoning 2" {
		t.Errorf("All = %q", s)
	}
	want := func(what string, list []TokenTally, names []string, usages []string, steps []int) {
		t.Helper()
		if len(list) != len(names) {
			t.Fatalf("%s: %d tallies, want %d: %+v", what, len(list), len(names), list)
		}
		for i := range list {
			if list[i].Name != names[i] || list[i].Usage.String() != usages[i] || list[i].Steps != steps[i] {
				t.Errorf("%s[%d] = %s, %q, %d steps; want %s, %q, %d", what, i, list[i].Name, list[i].Usage.String(), list[i].Steps, names[i], usages[i], steps[i])
			}
		}
	}
	want("Models", got.Models, []string{"claude-x", "claude-haiku"},
		[]string{"in 1,007 · out 201 · cache read 5,000 · reasoning 2", "in 300 · out 50"}, []int{2, 2})
	want("Agents", got.Agents, []string{"", "explore"},
		[]string{"in 1,007 · out 201 · cache read 5,000 · reasoning 2", "in 300 · out 50"}, []int{2, 2})
	if none := CountTokens(&Manifest{Steps: []Step{{Type: ToolCall}}}); !none.All.IsZero() || none.All.String() != "" || none.Models != nil {
		t.Errorf("no usage: %+v", none)
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -45000: "-45,000"} {
		if got := Thousands(in); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", in, got, want)
		}
	}
}
