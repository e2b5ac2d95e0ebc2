package blame

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// traceSchema compiles the vendored Agent Trace schema, asserting formats
// (uuid, date-time, uri) as the specification requires them.
func traceSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile("testdata/agent-trace/trace-record.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validate(t *testing.T, sch *jsonschema.Schema, b []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(inst)
}

func TestAgentTraceValidates(t *testing.T) {
	t.Parallel()
	s, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := pack(t, s, session{id: "a", steps: []step{write("x.go", "package x\n\nfunc One() int { return 1 }\n")}})
	b := pack(t, s, session{id: "b", created: "2026-01-02T00:00:00Z", inputs: map[string]string{"x.go": "package x\n\nfunc One() int { return 1 }\n"},
		steps: []step{replace("x.go", "func One() int { return 1 }\n", "func One() int { return 1 }\n\nfunc Two() int { return 2 }\n")}})
	ix, _, err := New(s, []digest.Digest{a, b})
	if err != nil {
		t.Fatal(err)
	}
	content := []byte("// by hand\npackage x\n\nfunc One() int { return 1 + 0 }\n\nfunc Two() int { return 2 }\n")
	in := []TraceInput{{Path: "x.go", Text: Lines(content), Lines: mustBlame(t, ix, "x.go", content)}}
	rec := AgentTrace(in, strings.Repeat("ab", 20), "2026-03-04T00:00:00Z", "1.2.3")
	out, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	sch := traceSchema(t)
	if err := validate(t, sch, out); err != nil {
		t.Fatalf("record does not validate: %v\n%s", err, out)
	}
	// The same attribution gives the same id; another gives another.
	if again := AgentTrace(in, strings.Repeat("ab", 20), "2026-03-04T00:00:00Z", "1.2.3"); again.ID != rec.ID {
		t.Errorf("id changed between runs: %s, %s", rec.ID, again.ID)
	}
	if other := AgentTrace(in[:0], "", "2026-03-04T00:00:00Z", "1.2.3"); other.ID == rec.ID {
		t.Error("two records share an id")
	}
	kinds := map[string]int{}
	for _, c := range rec.Files[0].Conversations {
		kinds[c.Contributor.Type]++
		for _, r := range c.Ranges {
			if r.Contributor != nil {
				kinds["range:"+r.Contributor.Type]++
			}
		}
	}
	if kinds["ai"] != 2 || kinds["unknown"] != 1 || kinds["range:mixed"] != 1 {
		t.Errorf("conversations by contributor = %v, want two ai, one unknown, one mixed range", kinds)
	}
	// The schema is the real one: a record breaking it is refused.
	for _, bad := range []string{
		strings.Replace(string(out), `"version":"0.1.0"`, `"version":"0.1"`, 1),
		strings.Replace(string(out), `"start_line":1`, `"start_line":0`, 1),
		strings.Replace(string(out), `"type":"ai"`, `"type":"robot"`, 1),
		strings.Replace(string(out), `"id":"`+rec.ID+`"`, `"id":"not-a-uuid"`, 1),
	} {
		if bad == string(out) {
			t.Fatal("the mutation changed nothing")
		}
		if validate(t, sch, []byte(bad)) == nil {
			t.Errorf("a broken record validates: %s", bad)
		}
	}
}
