package execlog

import (
	"errors"
	"testing"
)

// FuzzParse checks that any input either parses or yields Problems with a
// position, and never panics; a parsed log's content reads back, and a log
// whose content is all inline prints (JSON) as a log that parses to the
// same pack.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"model":{"identifier":"m"},"steps":[]}`,
		`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m","parameters":{"t":1}},"system_prompt":"s","prompts":[{"role":"user","content":"a\nb"}],"inputs":[{"name":"a/b","content_base64":"AA=="}],"steps":[{"index":0,"type":"tool_call","tool":"t","parameters":[1,"x"],"output":"\u00e9","deterministic":true,"timestamp":"2026-01-01T00:00:00Z"}],"outputs":[{"name":"o","content":"x","confidence":"high"}],"environment":{"os":"l","tool_versions":{"t":"1"}}}`,
		`{"model":{"identifier":""},"steps":[{"type":"x"}],"inputs":[{"name":"../a"}]}`,
		`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[{"role":"user","parts":[{"type":"text","content":"a"},{"type":"image","media_type":"image/png","content_base64":"AAE="}]}],"inputs":[{"name":"p","seen":"partial","lines":[[1,1],[3,4]],"total_lines":9,"content":"a\nc\nd"},{"name":"n","seen":"name"},{"name":"w","media_type":"text/plain","content":"w"}],"steps":[{"type":"llm_call","reasoning":"r","usage":{"input_tokens":1,"output_tokens":0,"total_tokens":1},"error":"x"},{"type":"tool_call","tool":"t","agent":"sub","parent_step":0,"output_parts":[{"type":"document","media_type":"application/pdf","content_base64":"JVBERg=="}],"error":{"message":"m","exit_code":-1},"reasoning_base64":"AA=="},{"type":"tool_call","tool":"u","error":true}],"outputs":[{"name":"o.png","media_type":"image/png","content":"x"}]}`,
		`{"model":{"identifier":"m"},"steps":[{"type":"llm_call","output":"a","output_parts":[],"usage":{"x":1},"parent_step":5,"error":false}],"inputs":[{"name":"a","seen":"name","content":"x","lines":[[2,1]]}]}`,
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
		for _, c := range l.contents() {
			if c.kind == inline || c.kind == base64Text {
				r, err := c.open(nil)
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
		for _, c := range l.contents() {
			if c.kind == file || c.kind == ref {
				return
			}
		}
		want, err := l.Hash(nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := l.JSON()
		if err != nil {
			t.Fatal(err)
		}
		l2, err := Parse(b, Options{})
		if err != nil {
			t.Fatalf("the log printed does not parse: %v\n%s", err, b)
		}
		if got, err := l2.Hash(nil); err != nil || got != want {
			t.Fatalf("printed log hashes to %s (%v), want %s\n%s", got, err, want, b)
		}
	})
}
