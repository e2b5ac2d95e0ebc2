package drift

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
)

// A step only one pack has reads as what it did: a model turn's first
// lines, a tool call's tool and parameters; not as its JSON.
func TestStyledLoneSteps(t *testing.T) {
	t.Parallel()
	objs := memObjects{}
	turn, _ := objs.put("I will list them.\n\nSecond line.\nThird line.\nFourth line.\n")
	short, _ := objs.put("Done: " + strings.Repeat("x", 150))
	one, three := 1, 3
	r := &Report{
		Drift: []Entry{
			{Type: ToolDrift, Path: "steps[1]", Change: Added, BStep: &one, B: jsontext.Value(`{"type":"llm_call"}`), BRef: turn},
			{Type: ToolDrift, Path: "steps[2]", Change: Added, Tool: "Bash", B: jsontext.Value(`{"parameters":{"command":"ls -la"},"tool":"Bash","type":"tool_call"}`), BRef: digest.Of([]byte("a.txt\n"))},
			{Type: ToolDrift, Path: "steps[3]", Change: Removed, AStep: &three, A: jsontext.Value(`{"type":"llm_call"}`), ARef: short},
		},
		Summary: map[string]int{ToolDrift: 3},
	}
	got := r.StyledWith(objs).String()
	want := `tool_drift (3)
  steps[1]: added llm_call
    I will list them.
    Second line.
    Third line. …
  steps[2]: added Bash {"command":"ls -la"}
  steps[3]: removed llm_call
    Done: ` + strings.Repeat("x", 94) + `…
`
	if !strings.HasSuffix(got, want) {
		t.Errorf("StyledWith:\n%s\nwant it to end with\n%s", got, want)
	}
	if strings.Contains(got, `{"type":"llm_call"}`) {
		t.Errorf("StyledWith shows a step's JSON:\n%s", got)
	}
	// Without objects the text is not read; the steps still read as such.
	if got := human(r); !strings.Contains(got, "  steps[1]: added llm_call\n  steps[2]: added Bash") {
		t.Errorf("Human:\n%s", got)
	}
}

// human is r as ctx-diff prints it without reading any text.
func human(r *Report) string { return r.StyledWith(nil).String() }
