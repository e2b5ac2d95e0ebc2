package codex

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// FuzzFailureText: what codexFailure makes of the part of an output
// failureText decodes is what it makes of the whole output, however the
// literal escapes it.
func FuzzFailureText(f *testing.F) {
	for _, s := range []string{
		"Chunk ID: 1a2b\nWall time: 0.5 seconds\nProcess exited with code 1\nOriginal token count: 12\nOutput:\nFAIL x\n",
		"Exit code: 0\nWall time: 1 seconds\nOutput:\nok\n",
		"execution error: sandbox denied\nOutput:\nexit code: 3",
		"Script failed\nOutput:\nboom",
		"{\"output\":\"x\\nOutput:\",\"metadata\":{\"exit_code\":2}}",
		"plain output\nOutput: not a header",
		"Exit code: 1\\\nOutput:\nafter an escaped backslash",
		"Process exited with code 1\nWall time\\nOutput: a backslash and n\nOutput:\nrest",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, unicodeNewlines bool) {
		if !utf8.ValidString(text) {
			return
		}
		lit, _ := json.Marshal(text)
		if unicodeNewlines {
			// Line breaks as \u000a: the header is then found by decoding
			// it all.
			lit = []byte(strings.ReplaceAll(string(lit), `\n`, `\u000a`))
		}
		whole := gjson.ParseBytes(lit).Str
		if whole != text {
			return // not a literal of text (the escaper's form)
		}
		part := failureText(string(lit))
		if !strings.HasPrefix(whole, part) {
			t.Fatalf("%q: %q is not its beginning", text, part)
		}
		f1, c1, m1 := codexFailure(part)
		f2, c2, m2 := codexFailure(whole)
		if f1 != f2 || c1.Raw != c2.Raw || m1 != m2 {
			t.Fatalf("%q: from %q %v %q %q, from the whole %v %q %q", text, part, f1, c1.Raw, m1, f2, c2.Raw, m2)
		}
	})
}

// TestCodexFailureTexts: each text Codex writes for a failed call is a
// failure, with the exit code it quotes; a success, a process still
// running and a tool's own output that merely mentions an exit code are
// not.
func TestCodexFailureTexts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text   string
		failed bool
		code   string
	}{
		{"Exit code: 2\nWall time: 0.4 seconds\nOutput:\nboom\n", true, "2"},
		{"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nok\n", false, "0"},
		{"Exit code: 1\nWall time: 0.1 seconds\nTotal output lines: 900\nOutput:\n…", true, "1"},
		{"Chunk ID: ab\nWall time: 0.8 seconds\nProcess exited with code 2\nOriginal token count: 3\nOutput:\nx", true, "2"},
		{"Chunk ID: ab\nWall time: 0.8 seconds\nProcess exited with code 0\nOutput:\nx", false, "0"},
		{"Chunk ID: ab\nWall time: 10.0 seconds\nProcess running with session ID 7\nOutput:\n", false, ""},
		{"Wall time: 0.0100 seconds\nProcess exited with code 127\nOutput:\nsh: nope: not found", true, "127"},
		{`{"output":"x","metadata":{"exit_code":3,"duration_seconds":0.1}}`, true, "3"},
		{`{"output":"x","metadata":{"exit_code":0,"duration_seconds":0.1}}`, false, "0"},
		{"failed in sandbox MacosSeatbelt with execution error: sandbox error: sandbox denied exec error, exit code: 1, stdout: , stderr: Operation not permitted", true, "1"},
		{"sandbox denied exec error, exit code: 2, stdout: , stderr: x", true, "2"},
		{"execution error: Sandbox(Denied { output: ExecToolCallOutput { exit_code: 126, stdout: StreamOutput { text: \"\" } } })", true, "126"},
		{"execution error: Io(Os { code: 2, kind: NotFound, message: \"No such file or directory\" })", true, ""},
		{"exec_command failed: CreateProcess { message: \"x\" }", true, ""},
		{"apply_patch verification failed: Failed to find expected lines in a.go", true, ""},
		{"patch rejected by user", true, ""},
		{"err: \"tool call timed out\"", true, ""},
		{"Script failed\nWall time 0.1 seconds\nOutput:\n\nScript error:\nReferenceError: x is not defined", true, ""},
		// A tool's own output that mentions an exit code is no header.
		{"Build log\nProcess exited with code 2\nOutput:\nx", false, ""},
		{"Success. Updated the following files:\nM a.go\n", false, ""},
		{"Exit code: two\nOutput:\n", false, ""},
	} {
		failed, code, _ := codexFailure(c.text)
		if failed != c.failed || code.Raw != c.code {
			t.Errorf("%q: failed %v, exit code %q; want %v, %q", c.text, failed, code.Raw, c.failed, c.code)
		}
	}
}
