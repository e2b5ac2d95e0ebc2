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

// FuzzApplyPatch applies arbitrary patches to arbitrary files: no panic,
// and an applied update is empty or ends in a newline, as apply_patch
// writes it.
func FuzzApplyPatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@ ctx\n-x\n+y\n*** End of File\n*** End Patch", "ctx\nx\n")
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** Update File: c\n*** Move to: d\n@@\n+z\n*** End Patch", "")
	f.Add("<<'EOF'\n*** Begin Patch\n*** Update File: a\n keep\n-\n+\n*** End Patch\nEOF", "keep\n\n")
	f.Fuzz(func(t *testing.T, patch, original string) {
		ops, err := parsePatch(patch)
		if err != nil {
			return
		}
		for _, op := range ops {
			if op.kind != "update" {
				continue
			}
			out, err := applyChunks(original, op.chunks)
			if err == nil && out != "" && !strings.HasSuffix(out, "\n") {
				t.Fatalf("applied update %q does not end in a newline", out)
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
