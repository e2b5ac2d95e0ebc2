package importer

import (
	"os"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// TestInspectSamples: an Inspect log whose second sample holds only its
// messages imports (it used to fail on a metadata list with an empty
// element), every sample keeps its entry in metadata.samples, and every
// turn names the model that answered it (the model event's output.model,
// else the sample output's), also in a sample with an image part.
func TestInspectSamples(t *testing.T) {
	t.Parallel()
	const file = "testdata/inspect/samples.json"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Import(Inspect, data, Options{Name: file})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/inspect/samples.golden.json", canon.Indent(out))
	l := importtest.Decode(t, out)
	samples := gjson.GetBytes(data, "samples").Array()
	if got := len(l.Metadata["samples"].([]any)); got != len(samples) {
		t.Errorf("metadata.samples has %d entries, the log %d samples", got, len(samples))
	}
	var models []any
	for _, s := range l.Steps {
		models = append(models, s.Metadata["model"])
	}
	if want := []any{"gpt-4o-2024-08-06", "gpt-4o-2024-08-06", nil}; !reflect.DeepEqual(models, want) || l.Model.Identifier != "gpt-4o-2024-08-06" {
		t.Errorf("run model %q, turns %v; want turns %v", l.Model.Identifier, models, want)
	}
	var roles []string
	for _, p := range l.Prompts {
		roles = append(roles, p.Role)
	}
	if !reflect.DeepEqual(roles, []string{"user", "user", "user"}) || len(l.Prompts[1].Parts) != 2 || len(l.Outputs) != 3 {
		t.Errorf("prompts %v (parts %v), %d outputs", roles, l.Prompts[1].Parts, len(l.Outputs))
	}
	// One sample alone imported before the fix; two make the list.
	one := `{"version":2,"eval":{"model":"m"},"samples":[{"messages":[{"role":"user","content":"a"}]},{"messages":[{"role":"user","content":"b"}]}]}`
	if _, _, err := Import(Inspect, []byte(one), Options{}); err != nil {
		t.Errorf("two samples of messages only: %v", err)
	}
}
