package execlog

import (
	"errors"
	"testing"
)

// FuzzParse checks that any input either parses or yields Problems with a
// position, and never panics; a parsed log's content reads back.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"model":{"identifier":"m"},"steps":[]}`,
		`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m","parameters":{"t":1}},"system_prompt":"s","prompts":[{"role":"user","content":"a\nb"}],"inputs":[{"name":"a/b","content_base64":"AA=="}],"steps":[{"index":0,"type":"tool_call","tool":"t","parameters":[1,"x"],"output":"\u00e9","deterministic":true,"timestamp":"2026-01-01T00:00:00Z"}],"outputs":[{"name":"o","content":"x","confidence":"high"}],"environment":{"os":"l","tool_versions":{"t":"1"}}}`,
		`{"model":{"identifier":""},"steps":[{"type":"x"}],"inputs":[{"name":"../a"}]}`,
		`[1,2`, `{"a":1,"a":2}`, `{"model":{"identifier":"m"},"steps":[],"inputs":[{"name":"a","content":"\ud83d"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(data, Options{})
		if err != nil {
			var probs Problems
			if !errors.As(err, &probs) || len(probs) == 0 {
				t.Fatalf("error %v is not Problems", err)
			}
			return
		}
		for _, in := range l.Inputs {
			if in.Content.kind == inline || in.Content.kind == base64Text {
				r, err := in.Content.open(nil)
				if err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 7)
				for {
					if _, err := r.Read(buf); err != nil {
						break
					}
				}
			}
		}
	})
}
