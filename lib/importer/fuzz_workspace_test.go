package importer

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/execlog"
)

// FuzzWorkspace imports arbitrary Claude Code and Codex sessions, seeded
// with sessions that read (whole and in part: Read with offset, sed -n,
// head, nl -ba), list, write, edit and patch files: none may
// panic, and whatever inputs and outputs the workspace adds must be a log
// ctx-pack accepts (clean unique names, partial inputs whose lines agree
// with their content).
func FuzzWorkspace(f *testing.F) {
	for _, name := range []string{"workspace/claude-code", "workspace/codex", "codex/reads"} {
		data, err := os.ReadFile("testdata/" + name + ".jsonl")
		if err != nil {
			f.Fatal(err)
		}
		codex := name != "workspace/claude-code"
		f.Add(data, codex)
		// Each line alone, so that the fuzzer starts from small inputs.
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			f.Add(line, codex)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, codex bool) {
		format := ClaudeCode
		if codex {
			format = Codex
		}
		out, _, err := Import(format, data, Options{})
		if err != nil {
			return
		}
		l, err := execlog.Parse(out, execlog.Options{})
		if err != nil {
			t.Fatalf("ctx-pack would reject the output: %v\n%s", err, out)
		}
		for _, in := range l.Inputs {
			if strings.HasPrefix(in.Name, "/") {
				t.Fatalf("input %q is not relative", in.Name)
			}
		}
	})
}

// FuzzParseHook reads arbitrary bytes as a hook payload: no panic, and a
// payload it accepts names a transcript.
func FuzzParseHook(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","transcript_path":"/t/s.jsonl","cwd":"/p","hook_event_name":"Stop"}`))
	f.Add([]byte(`{"type":"agent-turn-complete","thread-id":"x"}`))
	f.Add([]byte("{\"type\":\"user\"}\n{}"))
	home := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ParseHook(data, home)
		if err == nil && h != nil && h.Transcript == "" {
			t.Fatalf("payload %q accepted without a transcript", data)
		}
	})
}
