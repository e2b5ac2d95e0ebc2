package manifest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
)

// full is extended() with every other member set too, strings that need
// escapes, and raw values of every kind.
func full() *Manifest {
	m := extended()
	one, minus := int64(1), int64(-7)
	m.Parent = digest.Of([]byte("parent"))
	m.Model.Parameters = jsontext.Value(`{"stop":["\n","é"],"temperature":0.2,"top_p":1e-7}`)
	m.Metadata = jsontext.Value(`{"a":[true,false,null,{}],"b":"tab\there \"quoted\" \\ \u001f","é":-0.5}`)
	m.Environment = Environment{OS: "linux", Runtime: "go1.26", ToolVersions: map[string]string{"git": "2.39", "rg": "14"}, Metadata: jsontext.Value(`[]`)}
	m.Inputs[0].MediaType = "text/x-go; charset=utf-8"
	m.Outputs[0].Confidence = "high"
	m.Outputs[0].Notes = "line one\nline two\r\n\b\f\u0000 ☃ 🦀"
	s := &m.Steps[0]
	s.Timestamp = "2026-02-10T09:00:01.5Z"
	s.Parameters = jsontext.Value(`{"command":"printf '%s\\n' \"x\"","n":1.5e+300}`)
	s.Metadata = jsontext.Value(`"plain"`)
	s.Deterministic = true
	s.Usage = &Usage{InputTokens: &one, OutputTokens: &one, CacheReadTokens: &one, CacheCreationTokens: &one, ReasoningTokens: &one, TotalTokens: &one}
	m.Steps[1].Error = &StepError{Message: "exit status 7", ExitCode: &minus}
	m.Steps[1].Tool = "Bash\u2028"
	return m
}

// decodeBoth decodes b with decodeCanonical and, when it accepts b, checks
// that the reflection decoder gives exactly the same value.
func decodeBoth(t *testing.T, b []byte) bool {
	t.Helper()
	var fast Manifest
	if !decodeCanonical(b, &fast) {
		return false
	}
	ref := Manifest{Steps: []Step{}}
	if err := unmarshal(b, &ref); err != nil {
		t.Fatalf("decodeCanonical accepted what the reflection decoder refuses (%v):\n%s", err, b)
	}
	if !reflect.DeepEqual(fast, ref) {
		t.Fatalf("decoders disagree on\n%s\nfast: %+v\nreflection: %+v", b, fast, ref)
	}
	return true
}

// Every manifest ctx encodes takes the fast path, and decodes to what the
// reflection decoder gives.
func TestDecodeCanonicalTakesEncoded(t *testing.T) {
	t.Parallel()
	for name, m := range map[string]*Manifest{
		"minimal":  {Version: Version, Created: "2026-02-10T09:00:00Z", Model: Model{Identifier: "m"}},
		"extended": extended(),
		"full":     full(),
		"steps": func() *Manifest {
			m := extended()
			m.Steps = nil
			for i := range 300 {
				m.Steps = append(m.Steps, Step{Index: i, Type: ToolCall, Tool: fmt.Sprint("t", i%3), Parameters: jsontext.Value(fmt.Sprintf(`{"path":"f%d"}`, i)), OutputRef: digest.Of([]byte(fmt.Sprint(i)))})
			}
			return m
		}(),
	} {
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if !decodeBoth(t, b) {
			t.Errorf("%s: decodeCanonical declined a manifest ctx encoded:\n%s", name, b)
		}
		if _, err := Parse(b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// What is not in the form ctx writes goes to the reflection decoder, and
// Parse answers for it as that decoder does.
func TestDecodeCanonicalDeclines(t *testing.T) {
	t.Parallel()
	good, err := Encode(full())
	if err != nil {
		t.Fatal(err)
	}
	g := string(good)
	hexOf := digest.Of([]byte("sys")).Hex()
	for name, in := range map[string]string{
		"whitespace":             strings.Replace(g, `"version":"0.1"`, `"version": "0.1"`, 1),
		"leading space":          " " + g,
		"trailing data":          g + "{}",
		"trailing newline":       g + "\n",
		"null metadata":          strings.Replace(g, `"metadata":{"a"`, `"metadata":null,"x":{"a"`, 1),
		"null member":            strings.Replace(g, `"created":`, `"agent":null,"created":`, 1),
		"hash member":            strings.Replace(g, `"inputs":`, `"hash":"sha256:`+hexOf+`","inputs":`, 1),
		"unknown member":         strings.Replace(g, `"created":`, `"comment":"x","created":`, 1),
		"members out of order":   `{"version":"0.1",` + strings.Replace(g[1:], `,"version":"0.1"}`, `}`, 1),
		"duplicate member":       strings.Replace(g, `"version":"0.1"`, `"version":"0.1","version":"0.1"`, 1),
		"non-canonical escape":   strings.Replace(g, `"role":"user"`, `"role":"\u0075ser"`, 1),
		"solidus escape":         strings.Replace(g, `"role":"user"`, `"role":"us\/er"`, 1),
		"uppercase digest":       strings.Replace(g, hexOf, strings.ToUpper(hexOf), 1),
		"short digest":           strings.Replace(g, hexOf, hexOf[:62], 1),
		"bare digest":            strings.Replace(g, `"sha256:`+hexOf, `"`+hexOf, 1),
		"16-digit integer":       strings.Replace(g, `"size":3`, `"size":1000000000000000`, 1),
		"negative zero":          strings.Replace(g, `"size":3`, `"size":-0`, 1),
		"leading zero":           strings.Replace(g, `"size":3`, `"size":03`, 1),
		"fractional integer":     strings.Replace(g, `"size":3`, `"size":3.0`, 1),
		"exponent integer":       strings.Replace(g, `"size":3`, `"size":3e0`, 1),
		"string for integer":     strings.Replace(g, `"size":3`, `"size":"3"`, 1),
		"invalid UTF-8":          strings.Replace(g, `"role":"user"`, "\"role\":\"us\xffer\"", 1),
		"raw control character":  strings.Replace(g, `"role":"user"`, "\"role\":\"us\ter\"", 1),
		"invalid UTF-8 in value": strings.Replace(g, `"plain"`, "\"pl\xc3ain\"", 1),
		"duplicate in value":     strings.Replace(g, `{"stop":`, `{"a":1,"a":2,"stop":`, 1),
		"bad number in value":    strings.Replace(g, `"top_p":1e-7`, `"top_p":1e`, 1),
		"input by name, sized":   strings.Replace(g, `{"name":"listed","seen":"name"}`, `{"name":"listed","seen":"name","size":0}`, 1),
		"input without size":     strings.Replace(g, `,"size":2}`, `}`, 1),
		"three-number range":     strings.Replace(g, `"lines":[[1,2]]`, `"lines":[[1,2,3]]`, 1),
		"not an object":          `[]`,
		"empty":                  ``,
		"cut short":              g[:len(g)/2],
	} {
		if in == g {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if decodeBoth(t, []byte(in)) {
			t.Errorf("%s: decodeCanonical accepted\n%s", name, in)
		}
		_, err := Parse([]byte(in))
		ref := Manifest{Steps: []Step{}}
		refErr := unmarshal([]byte(in), &ref)
		if refErr == nil {
			refErr = ref.checkStored()
		}
		if (err == nil) != (refErr == nil) {
			t.Errorf("%s: Parse says %v, the reflection decoder %v", name, err, refErr)
		}
	}
}

// FuzzDecodeCanonical: whatever decodeCanonical accepts, the reflection
// decoder accepts and decodes to the same value.
func FuzzDecodeCanonical(f *testing.F) {
	for _, m := range []*Manifest{extended(), full()} {
		b, _ := Encode(m)
		f.Add(b)
	}
	f.Add([]byte(`{"created":"x","model":{"identifier":"m"},"steps":[{"index":0,"parameters":{"a":[1,-2.5e+3,"\u0000"]},"type":"t"}],"version":"0.1"}`))
	f.Add([]byte(`{"environment":{"tool_versions":{}},"inputs":[{"content_ref":"sha256:` + strings.Repeat("0", 64) + `","lines":[],"name":"a","size":0}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeBoth(t, b)
	})
}

// FuzzPlainRun: the word-at-a-time scan stops where the byte-at-a-time
// one does.
func FuzzPlainRun(f *testing.F) {
	f.Add([]byte(`abcdefgh"ijklmnop`))
	f.Add([]byte("abcdefghijklmno\x7f\x80\x1f\\"))
	f.Fuzz(func(t *testing.T, b []byte) {
		want := 0
		for want < len(b) && plain[b[want]] {
			want++
		}
		if got := plainRun(b); got != want {
			t.Fatalf("plainRun(%q) = %d, want %d", b, got, want)
		}
	})
}
