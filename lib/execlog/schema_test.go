package execlog

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/manifest"
)

// TestParseExtendedProblems covers the checks of the extended fields:
// each bad log gives exactly these problems.
func TestParseExtendedProblems(t *testing.T) {
	t.Parallel()
	const head = `{"model":{"identifier":"m"},`
	for _, tc := range []struct {
		name, log string
		want      []string
	}{
		{"output and parts", head + `"steps":[{"type":"llm_call","output":"a","output_parts":[{"type":"text","content":"b"}]}]}`,
			[]string{"1:38: steps[0]: give only one of output_parts and output, output_base64, output_path, output_ref"}},
		{"empty parts", head + `"steps":[],"prompts":[{"role":"user","parts":[]}]}`,
			[]string{`1:74: prompts[0].parts: must not be empty`}},
		{"part type", head + `"steps":[],"prompts":[{"role":"user","parts":[{"type":"video","content":"x"}]}]}`,
			[]string{`1:83: prompts[0].parts[0].type: "video" is not one of text, image, document, audio, file`}},
		{"part content", head + `"steps":[],"prompts":[{"role":"user","parts":[{"type":"image"}]}]}`,
			[]string{`1:75: prompts[0].parts[0].content: required field is missing (or one of content_base64, path, content_ref)`}},
		{"parts and content", head + `"steps":[],"prompts":[{"role":"user","content":"a","parts":[{"type":"text","content":"b"}]}]}`,
			[]string{`1:51: prompts[0]: give only one of parts and content, content_base64, path, content_ref`}},
		{"media type", head + `"steps":[],"outputs":[{"name":"o","content":"x","media_type":"png"}]}`,
			[]string{`1:90: outputs[0].media_type: "png" is not a media type (like image/png)`}},
		{"seen", head + `"steps":[],"inputs":[{"name":"a","content":"x","seen":"half"}]}`,
			[]string{`1:83: inputs[0].seen: seen "half" is not "partial" or "name" (omit it for a whole file)`}},
		{"partial without lines", head + `"steps":[],"inputs":[{"name":"a","content":"x","seen":"partial"}]}`,
			[]string{`1:83: inputs[0].seen: seen "partial" needs lines, the ranges [from, to] that were seen`}},
		{"lines out of order", head + `"steps":[],"inputs":[{"name":"a","content":"x","seen":"partial","lines":[[3,4],[2,2]]}]}`,
			[]string{`1:83: inputs[0].seen: lines[1] [2, 2] does not follow the range before it`}},
		{"lines shape", head + `"steps":[],"inputs":[{"name":"a","content":"x","seen":"partial","lines":[[1],[2,"3"]]}]}`,
			[]string{`1:102: inputs[0].lines[0]: expected [from, to], two line numbers`, `1:109: inputs[0].lines[1][1]: expected an integer line number`}},
		{"total below lines", head + `"steps":[],"inputs":[{"name":"a","content":"x","seen":"partial","lines":[[1,5]],"total_lines":3}]}`,
			[]string{`1:83: inputs[0].seen: total_lines 3 is less than the last line seen, 5`}},
		{"lines on a whole file", head + `"steps":[],"inputs":[{"name":"a","content":"x","lines":[[1,1]]}]}`,
			[]string{`1:50: inputs[0]: lines and total_lines need seen "partial" (this input records the whole file)`}},
		{"name only with content", head + `"steps":[],"inputs":[{"name":"a","seen":"name","content":"x","size":1}]}`,
			[]string{`1:86: inputs[0].content: an input seen only by name has no content`, `1:97: inputs[0].size: an input seen only by name has no content`}},
		{"parent_step", head + `"steps":[{"type":"llm_call"},{"type":"llm_call","parent_step":1}]}`,
			[]string{"1:91: steps[1].parent_step: 1 is not the index of an earlier step"}},
		{"agent", head + `"steps":[{"type":"llm_call","agent":""}]}`,
			[]string{`1:65: steps[0].agent: must not be empty (omit it for the main agent)`}},
		{"error false", head + `"steps":[{"type":"llm_call","error":false}]}`,
			[]string{`1:65: steps[0].error: false is not an error: omit error when the step did not fail`}},
		{"error shape", head + `"steps":[{"type":"llm_call","error":{"message":"","code":2}},{"type":"llm_call","error":1}]}`,
			[]string{`1:76: steps[0].error.message: must not be empty (omit it)`, `1:86: steps[0].error.code: unknown field`, `1:117: steps[1].error: expected true, a message string or an object, got number`}},
		{"usage", head + `"steps":[{"type":"llm_call","usage":{"input_tokens":-1,"output_tokens":1.5,"cost":3}}]}`,
			[]string{`1:81: steps[0].usage.input_tokens: must not be negative`, `1:100: steps[0].usage.output_tokens: expected integer, got number`, `1:111: steps[0].usage.cost: unknown field (usage holds input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens, total_tokens; other counters go in the step's metadata)`}},
		{"file and directory", head + `"steps":[],"inputs":[{"name":"readme.md/x","content":"x"},{"name":"readme.md","content":"y"}]}`,
			[]string{`1:58: inputs[0].name: "readme.md/x" needs "readme.md" to be a directory, but inputs[1] is that file`}},
		{"total_lines zero", head + `"steps":[],"inputs":[{"name":"a","content":"x","seen":"partial","lines":[[1,1]],"total_lines":0}]}`,
			[]string{`1:123: inputs[0].total_lines: must be at least 1`}},
		{"reasoning twice", head + `"steps":[{"type":"llm_call","reasoning":"a","reasoning_base64":"YQ=="}]}`,
			[]string{"1:38: steps[0]: give only one of reasoning, reasoning_base64, reasoning_path, reasoning_ref (got reasoning and reasoning_base64)"}},
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

// A partially seen input holds exactly as many lines as its ranges cover.
func TestCheckStorePartialLines(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for content, ok := range map[string]bool{
		`a\nb\nc\n`: true, `a\nb\nc`: true, `a\n\nc`: true, `a\nb\n`: false, `a\nb\nc\nd`: false, ``: false,
	} {
		log := `{"model":{"identifier":"m"},"steps":[],"inputs":[{"name":"a","seen":"partial","lines":[[1,2],[7,7]],"content":"` + content + `"}]}`
		l, err := Parse([]byte(log), Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = l.CheckStore(s)
		if (err == nil) != ok {
			t.Errorf("content %q: CheckStore = %v, want ok=%v", content, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), "inputs[0].content: content has ") {
			t.Errorf("content %q: error %q does not say which content", content, err)
		}
	}
}

// JSON leaves out what is empty, keeps a system prompt given as a string a
// string, and prints one read from a pack as an object, as ctx-fork does.
func TestJSONForm(t *testing.T) {
	t.Parallel()
	l := &Log{Model: manifest.Model{Identifier: "m"}, SystemPrompt: Text("be brief"), Steps: []Step{{Type: manifest.LLMCall, Output: Quoted([]byte(`"a\u00e9"`))}}}
	b, err := l.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"model":{"identifier":"m"},"steps":[{"deterministic":false,"index":0,"output":"aé","type":"llm_call"}],"system_prompt":"be brief"}`; string(b) != want {
		t.Errorf("JSON = %s\nwant %s", b, want)
	}
	l.SystemPrompt = Bytes([]byte("be brief"))
	l.Created = "2026-01-01T00:00:00Z"
	l.Environment.OS = "linux"
	if b, _ := l.JSON(); !strings.Contains(string(b), `"system_prompt":{"content":"be brief"}`) || !strings.Contains(string(b), `"environment":{"os":"linux"}`) {
		t.Errorf("JSON = %s", b)
	}
	l.Steps[0].Output = Quoted([]byte(`"\ud800"`))
	if _, err := l.JSON(); err == nil {
		t.Error("a lone surrogate printed without error")
	}
}
