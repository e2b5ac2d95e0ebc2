package execlog

import (
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/manifest"
)

// A step's observed files pack to objects the manifest references (and
// so gc keeps and push carries), and print back as a log that packs to
// the same pack.
func TestObservedRoundTrip(t *testing.T) {
	s := newStore(t)
	log := `{"created":"2026-03-10T09:00:00Z","model":{"identifier":"m"},"steps":[
	 {"index":0,"type":"tool_call","tool":"Bash","parameters":{"command":"sed -i s/a/b/ x.txt; rm old.txt"},"deterministic":false,
	  "observed":[{"name":"x.txt","content":"b\n"},{"name":"old.txt","deleted":true},{"name":"big.bin","skipped":"binary"}]}]}`
	l, err := Parse([]byte(log), Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := l.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := manifest.Load(s, m.Hash)
	if err != nil {
		t.Fatal(err)
	}
	obs := loaded.Steps[0].Observed
	if len(obs) != 3 || obs[0].Name != "x.txt" || obs[0].Size != 2 || !obs[1].Deleted || obs[2].Skipped != "binary" {
		t.Fatalf("observed = %+v", obs)
	}
	if b, err := s.Get(obs[0].ContentRef); err != nil || string(b) != "b\n" {
		t.Errorf("x.txt's object = %q, %v", b, err)
	}
	if refs := loaded.Refs(); len(refs) != 1 || refs[0] != obs[0].ContentRef {
		t.Errorf("Refs() = %v, want the observed content", refs)
	}
	back, err := FromManifest(s, loaded)
	if err != nil {
		t.Fatal(err)
	}
	js, err := back.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"observed":[{"content":"b\n","name":"x.txt"},{"deleted":true,"name":"old.txt"},{"name":"big.bin","skipped":"binary"}]`) {
		t.Errorf("printed log:\n%s", js)
	}
	l2, err := Parse(js, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := l2.Hash(s); err != nil || d != m.Hash {
		t.Errorf("printed and packed again gives %s (%v), want %s", d, err, m.Hash)
	}
}

func TestObservedProblems(t *testing.T) {
	for _, tc := range []struct{ observed, want string }{
		{`[{"name":"x.txt"}]`, "steps[0].observed[0].content: required field is missing"},
		{`[{"name":"x.txt","deleted":true,"content":"b"}]`, "steps[0].observed[0]: a deleted or skipped file has no content"},
		{`[{"name":"../x.txt","content":"b"}]`, "steps[0].observed[0].name"},
	} {
		log := `{"created":"2026-03-10T09:00:00Z","model":{"identifier":"m"},"steps":[{"index":0,"type":"tool_call","tool":"Bash","deterministic":false,"observed":` + tc.observed + `}]}`
		_, err := Parse([]byte(log), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %s", tc.observed, err, tc.want)
		}
	}
}
