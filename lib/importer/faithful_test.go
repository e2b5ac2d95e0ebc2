package importer

import (
	"reflect"
	"testing"
)

// The fixtures of this file each cover a way a real agent's log was
// imported unfaithfully: a result dropped, a call doubled, a fact lost,
// structure flattened or text rewritten.
func init() { fixtures = append(fixtures, faithful...) }

var faithful = []fixture{
	{
		// Anthropic server tools answer within the model's own message:
		// every server_tool_use gets its web_search_tool_result,
		// web_fetch_tool_result, bash_code_execution_tool_result or
		// code_execution_tool_result; an *_error content or a non-zero
		// return_code is a failure. The second request repeats the first
		// turn, which is not added again.
		file: "anthropic/server-tools.json", format: Anthropic, model: "claude-sonnet-4-5-20250929",
		prompts: []string{"What changed in Go 1.26? Then compute 2**100 in bash.", "Thanks. And 3**50?"},
		steps: []wantStep{
			llm(ptr("Searching the release notes.\nGo 1.26 lets new take an expression.\n2**100 = 1267650600228229401496703205376.")),
			tool("web_search", `{"query":"Go 1.26 release notes"}`, ptr(`[{"type":"web_search_result","url":"https://go.dev/doc/go1.26","title":"Go 1.26 Release Notes","encrypted_content":"EqgfCioIARgBIiQ3","page_age":"February 10, 2026"},{"type":"web_search_result","url":"https://go.dev/blog/go1.26","title":"Go 1.26 is released","encrypted_content":"EpMCCioIARgBIiQ4","page_age":null}]`), false),
			tool("web_fetch", `{"url":"https://go.dev/doc/go1.26"}`, ptr(`{"type":"web_fetch_result","url":"https://go.dev/doc/go1.26","retrieved_at":"2026-03-01T09:00:02Z","content":{"type":"document","source":{"type":"text","media_type":"text/plain","data":"Go 1.26 Release Notes\nThe new(expr) form..."},"title":"Go 1.26 Release Notes"}}`), false),
			tool("bash_code_execution", `{"command":"python3 -c 'print(2**100)'"}`, ptr(`{"type":"bash_code_execution_result","stdout":"1267650600228229401496703205376\n","stderr":"","return_code":0,"content":[]}`), false),
			tool("bash_code_execution", `{"command":"cat /tmp/notes.txt"}`, ptr(`{"type":"bash_code_execution_result","stdout":"","stderr":"cat: /tmp/notes.txt: No such file or directory\n","return_code":1,"content":[]}`), true),
			tool("web_search", `{"query":"Go 1.26 new expression"}`, ptr(`{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}`), true),
			llm(ptr("3**50 = 717897987691852588770249.")),
			tool("code_execution", `{"code":"print(3**50)"}`, ptr(`{"type":"code_execution_result","stdout":"717897987691852588770249\n","stderr":"","return_code":0,"content":[]}`), false),
		},
		outputs: map[string]string{finalName: "3**50 = 717897987691852588770249."},
		check: func(t *testing.T, l *testLog, out []byte, rep Report) {
			if got := l.Steps[4].Metadata["exit_code"]; got != 1.0 {
				t.Errorf("exit code = %v", got)
			}
			if got := l.Steps[5].Metadata["error_message"]; got != "max_uses_exceeded" {
				t.Errorf("error message = %v", got)
			}
			if !reflect.DeepEqual(rep.Warnings, []string(nil)) {
				t.Errorf("warnings = %q", rep.Warnings)
			}
		},
	},
}
