package manifest

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
)

// encodeBoth encodes m with encodeCanonical and, when it takes m, checks
// that marshal gives the same bytes.
func encodeBoth(t *testing.T, m *Manifest) bool {
	t.Helper()
	fast, _, ok := encodeCanonical(m, false)
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
	withHash := full()
	withHash.Hash = digest.Of([]byte("m"))
	empty := extended()
	empty.Environment.ToolVersions = map[string]string{}
	empty.Inputs[0].Lines = [][2]int64{}
	for name, m := range map[string]*Manifest{
		"minimal":  {Version: Version, Created: "2026-02-10T09:00:00Z", Model: Model{Identifier: "m"}},
		"extended": extended(),
		"full":     full(),
		"hash":     withHash,
		"empty":    empty,
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
