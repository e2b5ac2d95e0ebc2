package execlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

func newStore(t testing.TB) *store.Store {
	t.Helper()
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStringReader(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`""`:                                     "",
		`"plain"`:                                "plain",
		`"a\nb\t\"q\"\\\/"`:                      "a\nb\t\"q\"\\/",
		`"\u00e9\u20ac"`:                         "é€",
		`"\ud83d\ude02 x"`:                       "😂 x",
		`"\ud83d x"`:                             "\ufffd x",
		`"\b\f\r"`:                               "\b\f\r",
		`"` + strings.Repeat(`ab\n`, 5000) + `"`: strings.Repeat("ab\n", 5000),
	} {
		for _, bufSize := range []int{1, 3, 4096} {
			r := newStringReader([]byte(in))
			var got bytes.Buffer
			buf := make([]byte, bufSize)
			for {
				n, err := r.Read(buf)
				got.Write(buf[:n])
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if got.String() != want {
				t.Errorf("read %.40s with %d-byte buffer = %.40q, want %.40q", in, bufSize, got.String(), want)
			}
		}
		if got := decodeString([]byte(in)); got != want {
			t.Errorf("decodeString(%.40s) = %.40q", in, got)
		}
	}
}

func TestParseProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, log string
		want      []string // every problem, in input order
	}{
		{"not an object", `[]`, []string{"1:1: expected object, got array"}},
		{"empty", `{}`, []string{"1:1: model: required field is missing", "1:1: steps: required field is missing"}},
		{"model type", `{"model":"gpt","steps":[]}`, []string{"1:10: model: expected object, got string"}},
		{"params type", `{"model":{"identifier":"m","parameters":[1]},"steps":[]}`, []string{"1:41: model.parameters: expected object, got array"}},
		{"step not object", `{"model":{"identifier":"m"},"steps":[1]}`, []string{"1:38: steps[0]: expected object, got number"}},
		{"index", `{"model":{"identifier":"m"},"steps":[{"index":"0","type":"llm_call"}]}`, []string{"1:47: steps[0].index: expected integer, got string"}},
		{"output twice", `{"model":{"identifier":"m"},"steps":[{"type":"llm_call","output":"a","output_ref":"x"}]}`,
			[]string{"1:38: steps[0]: give only one of output, output_base64, output_path, output_ref (got output and output_ref)", `1:83: steps[0].output_ref: invalid digest "x": want sha256:<64 hex digits>`}},
		{"content on step", `{"model":{"identifier":"m"},"steps":[{"type":"llm_call","content":"a"}]}`,
			[]string{`1:67: steps[0].content: unknown field (a step's output is "output")`}},
		{"parent", `{"parent":"latest","model":{"identifier":"m"},"steps":[]}`, []string{`1:11: parent: "latest" is not a full pack hash (sha256:<64 hex>)`}},
		{"tool versions", `{"model":{"identifier":"m"},"steps":[],"environment":{"tool_versions":{"a":1}}}`, []string{"1:76: environment.tool_versions.a: expected string, got number"}},
		{"prompt role", `{"model":{"identifier":"m"},"steps":[],"prompts":[{"content":"x"}]}`, []string{"1:51: prompts[0].role: required field is missing"}},
		{"input content", `{"model":{"identifier":"m"},"steps":[],"inputs":[{"name":"a"}]}`, []string{"1:50: inputs[0].content: required field is missing (or one of content_base64, path, content_ref)"}},
		{"size", `{"model":{"identifier":"m"},"steps":[],"inputs":[{"name":"a","content":"x","size":-1}]}`, []string{"1:83: inputs[0].size: expected a non-negative integer"}},
		{"version", `{"version":"9","model":{"identifier":"m"},"steps":[]}`, []string{`1:12: version: version "9" is not "0.1"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.log), Options{Dir: t.TempDir()})
			var probs Problems
			if !errors.As(err, &probs) {
				t.Fatalf("Parse error = %v, want Problems", err)
			}
			var got []string
			for _, p := range probs {
				got = append(got, p.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestPackAndInline(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("from a file\n"), 0o644)
	log := `{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m","parameters":{"t":0.50}},
		"system_prompt":{"content_base64":"c3lz"},
		"prompts":[{"role":"user","content":"hi"}],
		"inputs":[{"name":"in.txt","path":"in.txt","size":12},{"name":"b","content_base64":"AP8="}],
		"steps":[{"type":"tool_call","tool":"cat","parameters":{"z":1,"a":[true]},"output":"from a file\n","deterministic":true,"metadata":{"k":"v"}},
		         {"type":"llm_call"}],
		"outputs":[{"name":"o/r.md","content":"done","confidence":"low","notes":"n"}],
		"environment":{"os":"linux","tool_versions":{"cat":"9"},"metadata":{"host":"x"}},
		"metadata":{"run":1}}`
	l, err := Parse([]byte(log), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CheckStore(s); err != nil {
		t.Fatal(err)
	}
	var calls [][2]int
	l.Progress = func(done, total int) { calls = append(calls, [2]int{done, total}) }
	m, st, err := l.Pack(s)
	if n := len(calls); n == 0 || calls[n-1] != [2]int{6, 6} {
		t.Errorf("progress calls = %v, want the last to be [6 6] (six contents)", calls)
	}
	if err != nil {
		t.Fatal(err)
	}
	// sys, hi, file (= step output), AP8=, done, manifest
	if st != (Stats{New: 6, Reused: 0}) {
		t.Errorf("stats = %+v", st)
	}
	if m.Inputs[0].ContentRef != digest.Of([]byte("from a file\n")) || m.Inputs[0].Size != 12 || m.Steps[0].OutputRef != m.Inputs[0].ContentRef {
		t.Errorf("inputs/steps = %+v %+v", m.Inputs, m.Steps)
	}
	if string(m.Model.Parameters) != `{"t":0.5}` || string(m.Steps[0].Parameters) != `{"a":[true],"z":1}` {
		t.Errorf("parameters not canonical: %s %s", m.Model.Parameters, m.Steps[0].Parameters)
	}
	if !m.Steps[1].OutputRef.IsZero() || m.Steps[1].Index != 1 {
		t.Errorf("step 1 = %+v", m.Steps[1])
	}
	loaded, err := manifest.Load(s, m.Hash)
	if err != nil || loaded.Outputs[0].Confidence != "low" || string(loaded.Environment.Metadata) != `{"host":"x"}` {
		t.Fatalf("Load = %+v, %v", loaded, err)
	}

	// The inline form packs back to the same hash.
	inl, err := FromManifest(s, loaded)
	if err != nil {
		t.Fatal(err)
	}
	b, err := inl.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"content_base64":"AP8="`)) || !bytes.Contains(b, []byte(`"system_prompt":{"content":"sys"}`)) {
		t.Errorf("inline = %s", b)
	}
	l2, err := Parse(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m2, st2, err := l2.Pack(s)
	if err != nil || m2.Hash != m.Hash || st2.New != 0 {
		t.Fatalf("repack = %s (%+v), %v; want %s", m2.Hash, st2, err, m.Hash)
	}
}

func TestCheckStore(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d, _, _ := s.Put([]byte("abc"))
	missing := digest.Of([]byte("missing"))
	log := `{"model":{"identifier":"m"},"steps":[{"type":"llm_call","output_ref":"` + missing.String() + `"}],
		"inputs":[{"name":"a","content_ref":"` + d.String() + `","size":3},{"name":"b","content":"xy","size":3}]}`
	l, err := Parse([]byte(log), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = l.CheckStore(s)
	want := "inputs[1].content: content is 2 bytes but size says 3\nsteps[0].output_ref: object " + missing.String() + " is not in the store"
	if err == nil || err.Error() != want {
		t.Fatalf("CheckStore = %v\nwant %s", err, want)
	}
}

func TestCreated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ log, epoch, want, warn string }{
		{`{"created":"2026-05-01T10:00:00+02:00","model":{"identifier":"m"},"steps":[{"type":"llm_call","timestamp":"2020-01-01T00:00:00Z"}]}`, "", "2026-05-01T10:00:00+02:00", ""},
		{`{"model":{"identifier":"m"},"steps":[{"type":"llm_call","timestamp":"2026-01-01T01:00:00+02:00"},{"type":"llm_call","timestamp":"2026-01-01T00:00:00Z"}]}`, "", "2026-01-01T01:00:00+02:00", ""},
		{`{"model":{"identifier":"m"},"steps":[]}`, "86400", "1970-01-02T00:00:00Z", ""},
		{`{"model":{"identifier":"m"},"steps":[]}`, "soon", "1970-01-01T00:00:00Z", "ignoring SOURCE_DATE_EPOCH"},
	} {
		l, err := Parse([]byte(tc.log), Options{SourceDateEpoch: tc.epoch})
		if err != nil {
			t.Fatal(err)
		}
		if l.Created != tc.want {
			t.Errorf("created = %s, want %s", l.Created, tc.want)
		}
		if tc.warn != "" && (len(l.Warnings) == 0 || !strings.Contains(l.Warnings[0], tc.warn)) {
			t.Errorf("warnings = %v, want %q", l.Warnings, tc.warn)
		}
	}
}

// TestLargeEscapedString packs an escaped string bigger than the in-memory
// threshold through the streaming path.
func TestLargeEscapedString(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	content := strings.Repeat("line \"quoted\"\n", smallInline/8)
	esc := strings.NewReplacer(`"`, `\"`, "\n", `\n`).Replace(content)
	log := `{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"steps":[],"inputs":[{"name":"big","content":"` + esc + `"}]}`
	l, err := Parse([]byte(log), Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := l.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	if m.Inputs[0].ContentRef != digest.Of([]byte(content)) || m.Inputs[0].Size != int64(len(content)) {
		t.Fatalf("big input stored as %s (%d bytes)", m.Inputs[0].ContentRef, m.Inputs[0].Size)
	}
}

func TestHash(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("file"), 0o644)
	ref, _, _ := s.Put([]byte("stored"))
	log := `{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"system_prompt":"s\nx",
		"inputs":[{"name":"a","path":"f"},{"name":"b","content_ref":"` + ref.String() + `"},{"name":"c","content_base64":"AP8="}],
		"steps":[{"type":"llm_call","output":"o"}]}`
	l, err := Parse([]byte(log), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := s.Objects("")
	d, err := l.Hash(s)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := s.Objects(""); len(after) != len(before) {
		t.Fatalf("Hash wrote %d objects", len(after)-len(before))
	}
	m, _, err := l.Pack(s)
	if err != nil || m.Hash != d {
		t.Fatalf("Pack = %s, %v; Hash said %s", m.Hash, err, d)
	}
}

// TestPackSameContentOnce: content given several times (the same output
// every turn) is stored by one put, and every step names its object.
func TestPackSameContentOnce(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	l, err := Parse([]byte(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},
		"steps":[{"type":"tool_call","tool":"t","output":"same\n"},{"type":"tool_call","tool":"t","output":"same\n"},
		         {"type":"llm_call","output":"same\n","reasoning":"other"},{"type":"tool_call","tool":"t","output":"same\u000a"}]}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var total int
	l.Progress = func(_, n int) { total = n }
	m, st, err := l.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	// "same\n" given as one literal three times and once in another
	// spelling, "other": three puts.
	if total != 3 {
		t.Errorf("%d contents put, want 3", total)
	}
	want := digest.Of([]byte("same\n"))
	for i, st := range m.Steps {
		if st.OutputRef != want {
			t.Errorf("steps[%d] output %s, want %s", i, st.OutputRef, want)
		}
	}
	if st != (Stats{New: 3}) {
		t.Errorf("stats = %+v, want 3 new (the text, the reasoning, the manifest)", st)
	}
}

// TestCanonicalFirstError: the steps of a long log are checked in two
// halves at once; the error is still the first in the log's order.
func TestCanonicalFirstError(t *testing.T) {
	t.Parallel()
	for _, bad := range [][]int{{400}, {100, 500}, {300, 299}, {599}} {
		l := &Log{Created: "2026-01-01T00:00:00Z", Model: manifest.Model{Identifier: "m"}, Steps: make([]Step, 600)}
		for i := range l.Steps {
			l.Steps[i] = Step{Index: i, Type: "tool_call", Tool: "t", Parameters: jsontext.Value(`{"b":1,"a":2}`)}
		}
		for _, i := range bad {
			l.Steps[i].Parameters = jsontext.Value(`{"a":1,"a":2}`)
		}
		err := l.Canonical()
		want := fmt.Sprintf("steps[%d].parameters", slices.Min(bad))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bad steps %v: error %v, want one at %s", bad, err, want)
		}
		if string(l.Steps[0].Parameters) != `{"a":2,"b":1}` {
			t.Errorf("steps[0].parameters = %s, not put in canonical form", l.Steps[0].Parameters)
		}
	}
}
