package claudecode_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

// A record of a kind no list knows is skipped; when it holds work (a
// message, a call, a result, file content, usage) stderr names it as
// lost, with the count.
func TestUnknownKindHoldingWork(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}`,
		`{"type":"progress","uuid":"p1","sessionId":"s","data":{"type":"teammate_progress","message":{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a note"}]}}}}`,
		`{"type":"progress","uuid":"p2","sessionId":"s","data":{"type":"teammate_progress","message":{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"another"}]}}}}`,
		`{"type":"progress","uuid":"p3","sessionId":"s","data":{"type":"spinner_progress","frame":3}}`,
		`{"type":"future-record","uuid":"f1","sessionId":"s","payload":{"type":"tool_use","id":"t9","name":"Bash","input":{}}}`,
		`{"type":"assistant","uuid":"a1","sessionId":"s","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hello"}]}}`,
	}, "\n")
	_, rep, err := formats.Import(claudecode.Name, []byte(in), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`record type "future-record" (not a conversation record; it holds a tool call): 1`,
		`record type "progress" (spinner_progress: a data.type this importer does not know): 1`,
		`record type "progress" (teammate_progress: a data.type this importer does not know; it holds a message): 2`,
	}
	if strings.Join(rep.Reasons, "\n") != strings.Join(want, "\n") {
		t.Errorf("reasons:\n%s\nwant\n%s", strings.Join(rep.Reasons, "\n"), strings.Join(want, "\n"))
	}
	lost := []string{
		`1 record(s) of kind "future-record" hold a tool call, which is not imported: lost from the log`,
		`2 record(s) of kind "progress/teammate_progress" hold a message, which is not imported: lost from the log`,
	}
	for _, w := range lost {
		if !slices.Contains(rep.Warnings, w) {
			t.Errorf("warnings %q lack %q", rep.Warnings, w)
		}
	}
}

// Detect takes a Claude Code transcript whatever record type comes first.
func TestDetectClaudeCodeFirstRecords(t *testing.T) {
	for _, first := range []string{
		`{"type":"permission-mode","permissionMode":"default","sessionId":"s"}`,
		`{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}`,
		`{"type":"queue-operation","operation":"dequeue","timestamp":"2026-01-20T11:57:17.716Z","sessionId":"s"}`,
		`{"type":"summary","summary":"Fixing the build","leafUuid":"u"}`,
		`{"type":"custom-title","customTitle":"mine","sessionId":"s"}`,
		`{"type":"ai-title","aiTitle":"a title","sessionId":"s"}`,
		`{"type":"last-prompt","lastPrompt":"continue","sessionId":"s"}`,
		`{"type":"agent-name","agentName":"reviewer","sessionId":"s"}`,
		`{"type":"progress","data":{"type":"hook_progress"},"uuid":"p","sessionId":"s"}`,
	} {
		data := first + "\n" + `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n"
		if f, err := formats.Detect("", []byte(data)); f != claudecode.Name {
			t.Errorf("%s: Detect = %q, %v", first, f, err)
		}
	}
}
