package manifest

import (
	"bytes"
	"slices"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
)

// encodeBoth encodes m with encodeCanonical and, when it takes m, checks
// that marshal gives the same bytes.
func encodeBoth(t *testing.T, m *Manifest) bool {
	t.Helper()
	parts, _, ok := encodeCanonical(m, false)
	fast := bytes.Join(parts, nil)
	if !ok {
		return false
	}
	want, err := marshal(m)
	if err != nil {
		t.Fatalf("encodeCanonical took what marshal refuses (%v): %+v", err, m)
	}
	if !bytes.Equal(fast, want) {
		t.Fatalf("encoders disagree:\nfast:    %s\nmarshal: %s", fast, want)
	}
	return true
}

// Every manifest ctx makes takes the fast path, with or without its hash,
// and encodes as marshal does; what it declines, marshal decides.
func TestEncodeCanonical(t *testing.T) {
	t.Parallel()
	withHash := full()
	withHash.Hash = digest.Of([]byte("m"))
	empty := extended()
	empty.Environment.ToolVersions = map[string]string{}
	empty.Inputs[0].Lines = [][2]int64{}
	observed := full()
	observed.Steps[0].Observed = []Observed{{Name: "a.txt", ContentRef: digest.Of([]byte("a\n")), Size: 2}, {Name: "e.txt", ContentRef: digest.Of(nil)}, {Name: "gone", Deleted: true}, {Name: "b.bin", Skipped: "binary"}}
	noneObserved := full()
	noneObserved.Steps[0].Observed = []Observed{}
	for name, m := range map[string]*Manifest{
		"observed":      observed,
		"none observed": noneObserved,
		"minimal":       {Version: Version, Created: "2026-02-10T09:00:00Z", Model: Model{Identifier: "m"}},
		"extended":      extended(),
		"full":          full(),
		"hash":          withHash,
		"empty":         empty,
	} {
		if !encodeBoth(t, m) {
			t.Errorf("%s: declined", name)
		}
	}
	big := int64(1) << 60
	for name, fault := range map[string]func(m *Manifest){
		"not canonical":  func(m *Manifest) { m.Metadata = jsontext.Value(`{"b":1,"a":2}`) },
		"empty value":    func(m *Manifest) { m.Steps[0].Parameters = jsontext.Value{} },
		"invalid UTF-8":  func(m *Manifest) { m.Steps[0].Tool = "a\xff" },
		"big integer":    func(m *Manifest) { m.Steps[0].Usage = &Usage{InputTokens: &big} },
		"zero digest":    func(m *Manifest) { m.Outputs[0].ContentRef = digest.Digest{} },
		"non-ASCII tool": func(m *Manifest) { m.Environment.ToolVersions = map[string]string{"｡": "1", "😀": "2"} },
	} {
		m := full()
		fault(m)
		if encodeBoth(t, m) {
			t.Errorf("%s: taken", name)
		}
		fast, err := encode(m)
		want, werr := marshal(m)
		if !bytes.Equal(fast, want) || (err == nil) != (werr == nil) {
			t.Errorf("%s: encode gives %s (%v), marshal %s (%v)", name, fast, err, want, werr)
		}
	}
}

// FuzzEncodeCanonical: whatever manifest encodeCanonical takes, it
// encodes to marshal's bytes.
func FuzzEncodeCanonical(f *testing.F) {
	for _, m := range []*Manifest{extended(), full()} {
		b, _ := Encode(m)
		f.Add(b)
	}
	f.Add([]byte(`{"created":"x","model":{"identifier":"m","parameters":{"b":1,"a":[1.0]}},"steps":[{"index":0,"parameters":{"a":[1,-2.5e+3,"\u0000"]},"type":"t","usage":{}}],"version":"0.1"}`))
	f.Add([]byte(`{"environment":{"tool_versions":{"b":"1","a":"\u00e9"}},"inputs":[{"content_ref":"sha256:0000000000000000000000000000000000000000000000000000000000000001","lines":[],"name":"a","size":0,"seen":"name"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Manifest
		if json.Unmarshal(b, &m) != nil {
			return
		}
		encodeBoth(t, &m)
	})
}

// FuzzEncodeFields puts arbitrary text, numbers and JSON values in every
// kind of member of a manifest: whatever encodeCanonical takes, it
// encodes to marshal's bytes.
func FuzzEncodeFields(f *testing.F) {
	f.Add("tab\there \"q\" \\ \u001f \u2028 é 🦀", int64(-7), []byte(`{"a":[1,2.5,"x"],"b":null}`))
	f.Add("\x7f<>&", int64(1)<<53, []byte(`{"b":1,"a":1e3}`))
	f.Add("", int64(0), []byte(`"\u00e9"`))
	f.Fuzz(func(t *testing.T, s string, n int64, raw []byte) {
		m := full()
		m.Created, m.Model.Identifier = s, s
		m.Metadata, m.Model.Parameters, m.Environment.Metadata = raw, raw, raw
		m.Environment.OS = s
		m.Environment.ToolVersions[s] = s
		m.Inputs[0].Name, m.Inputs[0].MediaType = s, s
		m.Inputs[0].Lines, m.Inputs[0].TotalLines = [][2]int64{{n, n}}, n
		m.Outputs[0].Notes, m.Outputs[0].Size = s, n
		st := &m.Steps[0]
		st.Tool, st.Agent, st.Timestamp, st.Type = s, s, s, s
		st.Parameters, st.Metadata = raw, raw
		st.Usage.TotalTokens = &n
		st.Error = &StepError{Message: s, ExitCode: &n}
		if !encodeBoth(t, m) {
			// What the fast path declines is still encoded as marshal
			// encodes it, or refused as marshal refuses it.
			fast, err := encode(m)
			want, werr := marshal(m)
			if !bytes.Equal(fast, want) || (err == nil) != (werr == nil) {
				t.Fatalf("encode gives %s (%v), marshal %s (%v)", fast, err, want, werr)
			}
		}
	})
}

// TestEncodeEncodedSteps: steps given as their encoded bytes, adjacent in
// one document's memory or each in memory of its own, encode to the bytes
// and places of the steps given by their fields; so they do when the
// manifest needs marshal.
func TestEncodeEncodedSteps(t *testing.T) {
	t.Parallel()
	m := full()
	for len(m.Steps) < 5 {
		s := m.Steps[len(m.Steps)-1]
		s.Index = len(m.Steps)
		m.Steps = append(m.Steps, s)
	}
	parts, spans, ok := encodeCanonical(m, true)
	want := bytes.Join(parts, nil)
	if !ok || len(spans) != len(m.Steps) {
		t.Fatalf("declined, or %d spans for %d steps", len(spans), len(m.Steps))
	}
	for name, given := range map[string][]int{"adjacent": {0, 1, 2}, "apart": {1, 3}, "last": {4}, "all": {0, 1, 2, 3, 4}} {
		for _, copied := range []bool{false, true} {
			c := *m
			c.Steps = append([]Step(nil), m.Steps...)
			for _, i := range given {
				enc := want[spans[i].Start:spans[i].End]
				if copied {
					enc = bytes.Clone(enc)
				}
				c.Steps[i] = Step{Index: i, Type: m.Steps[i].Type, Encoded: enc}
			}
			parts, got, ok := encodeCanonical(&c, true)
			if !ok || !bytes.Equal(bytes.Join(parts, nil), want) || !slices.Equal(got, spans) {
				t.Errorf("%s (copied %v): %s, spans %v, want %s, %v", name, copied, bytes.Join(parts, nil), got, want, spans)
			}
			if !copied && name == "adjacent" && len(parts) != 3 {
				t.Errorf("adjacent steps in %d parts, want 3 (before, the steps, after)", len(parts))
			}
			// Through marshal: a value elsewhere not in canonical form.
			c.Metadata = jsontext.Value(`{"b":1,"a":2}`)
			b, err := Encode(&c)
			w := *m
			w.Metadata = c.Metadata
			wb, werr := Encode(&w)
			if err != nil || werr != nil || !bytes.Equal(b, wb) {
				t.Errorf("%s (copied %v), through marshal: %v %v\n%s\n%s", name, copied, err, werr, b, wb)
			}
		}
	}
}
