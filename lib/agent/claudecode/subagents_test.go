package claudecode_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

// Newer Claude Code versions write a subagent's records to
// <session>/subagents/agent-<id>.jsonl, not to the session's transcript:
// read with it, they are the steps of the subagent the Task call started;
// a bad line names its file.
func TestClaudeCodeSubagentFiles(t *testing.T) {
	t.Parallel()
	main := strings.Join([]string{
		`{"type":"user","uuid":"u1","sessionId":"s","cwd":"/p","message":{"role":"user","content":"explore"}}`,
		`{"type":"assistant","uuid":"a1","sessionId":"s","cwd":"/p","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"description":"look","prompt":"look around","subagent_type":"Explore"}}]}}`,
		`{"type":"user","uuid":"u2","sessionId":"s","cwd":"/p","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"found it"}]},"toolUseResult":{"agentId":"ab12","status":"completed"}}`,
	}, "\n") + "\n"
	sub := strings.Join([]string{
		`{"type":"user","uuid":"x1","isSidechain":true,"agentId":"ab12","sessionId":"s","cwd":"/p","message":{"role":"user","content":"look around"}}`,
		`{"type":"assistant","uuid":"x2","isSidechain":true,"agentId":"ab12","sessionId":"s","cwd":"/p","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"text","text":"found it"}]}}`,
	}, "\n") + "\n"

	dir := t.TempDir()
	transcript := filepath.Join(dir, "s.jsonl")
	if err := os.MkdirAll(filepath.Join(dir, "s", "subagents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s", "subagents", "agent-ab12.jsonl"), []byte(sub), 0o644); err != nil {
		t.Fatal(err)
	}
	subs, err := claudecode.Subagents(transcript)
	if err != nil || len(subs) != 1 || subs[0].Name != "s/subagents/agent-ab12.jsonl" || string(subs[0].Data) != sub {
		t.Fatalf("Subagents = %+v, %v", subs, err)
	}
	if none, err := claudecode.Subagents(filepath.Join(dir, "other.jsonl")); err != nil || len(none) != 0 {
		t.Errorf("a session without subagents: %+v, %v", none, err)
	}

	out, _, err := formats.Import(claudecode.Name, []byte(main), importer.Options{Subagents: subs})
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Prompts []json.RawMessage
		Steps   []struct {
			Type       string
			Tool       string
			Agent      string
			ParentStep *int `json:"parent_step"`
			Output     any
		}
	}
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Prompts) != 1 {
		t.Errorf("prompts = %d, want 1: the subagent's prompt is not the user's", len(l.Prompts))
	}
	type brief struct {
		Type, Tool, Agent string
		Parent            int
	}
	var got []brief
	for _, s := range l.Steps {
		p := -1
		if s.ParentStep != nil {
			p = *s.ParentStep
		}
		got = append(got, brief{s.Type, s.Tool, s.Agent, p})
	}
	want := []brief{{"llm_call", "", "", -1}, {"tool_call", "Task", "", -1}, {"llm_call", "", "ab12", 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("steps:\n got %+v\nwant %+v", got, want)
	}

	bad := []importer.File{{Name: "s/subagents/agent-ab12.jsonl", Data: []byte(sub + "{oops\n" + sub)}}
	if _, _, err := formats.Import(claudecode.Name, []byte(main), importer.Options{Subagents: bad}); err == nil || !strings.Contains(err.Error(), "s/subagents/agent-ab12.jsonl: line 3") {
		t.Errorf("a bad line in a subagent's file: %v", err)
	}
}

// A subagent's records, read from its own transcript, are put in their
// place in time: its steps come between the Task call that started it
// and what the session did after, and the files it read are followed in
// that order too (it read a.txt before the session rewrote it, so what it
// read is an input).
func TestClaudeCodeSubagentInterleaved(t *testing.T) {
	t.Parallel()
	main := strings.Join([]string{
		`{"type":"user","uuid":"u1","sessionId":"s","cwd":"/p","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"explore, then fix"}}`,
		`{"type":"assistant","uuid":"a1","sessionId":"s","cwd":"/p","timestamp":"2026-03-01T10:00:01Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"description":"look","prompt":"look around","subagent_type":"Explore"}}]}}`,
		`{"type":"user","uuid":"u2","sessionId":"s","cwd":"/p","timestamp":"2026-03-01T10:00:05Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt says old"}]},"toolUseResult":{"agentId":"ab12","status":"completed"}}`,
		`{"type":"assistant","uuid":"a2","sessionId":"s","cwd":"/p","timestamp":"2026-03-01T10:00:06Z","message":{"id":"m3","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t2","name":"Write","input":{"file_path":"/p/a.txt","content":"new\n"}}]}}`,
		`{"type":"user","uuid":"u3","sessionId":"s","cwd":"/p","timestamp":"2026-03-01T10:00:07Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"ok"}]},"toolUseResult":{"type":"update","filePath":"/p/a.txt","content":"new\n","originalFile":null}}`,
		`{"type":"assistant","uuid":"a3","sessionId":"s","cwd":"/p","timestamp":"2026-03-01T10:00:08Z","message":{"id":"m4","role":"assistant","model":"claude-x","content":[{"type":"text","text":"fixed"}]}}`,
	}, "\n") + "\n"
	sub := strings.Join([]string{
		`{"type":"user","uuid":"x1","isSidechain":true,"agentId":"ab12","sessionId":"s","cwd":"/p","timestamp":"2026-03-01T10:00:02Z","message":{"role":"user","content":"look around"}}`,
		`{"type":"assistant","uuid":"x2","isSidechain":true,"agentId":"ab12","sessionId":"s","cwd":"/p","timestamp":"2026-03-01T10:00:03Z","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"r1","name":"Read","input":{"file_path":"/p/a.txt"}}]}}`,
		`{"type":"user","uuid":"x3","isSidechain":true,"agentId":"ab12","sessionId":"s","cwd":"/p","timestamp":"2026-03-01T10:00:04Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"r1","content":"     1\told"}]},"toolUseResult":{"type":"text","file":{"filePath":"/p/a.txt","content":"old\n","numLines":1,"startLine":1,"totalLines":1}}}`,
	}, "\n") + "\n"
	l, got := importWithSubagent(t, main, sub)
	want := []string{"llm_call  ", "tool_call Task ", "llm_call  ab12", "tool_call Read ab12", "llm_call  ", "tool_call Write ", "llm_call  "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("steps:\n got %q\nwant %q", got, want)
	}
	if p := l.Steps[2].ParentStep; p == nil || *p != 1 {
		t.Errorf("the subagent's first step has parent %v, want the Task step 1", p)
	}
	if len(l.Inputs) != 1 || l.Inputs[0].Name != "a.txt" || l.Inputs[0].Content != "old\n" {
		t.Errorf("inputs = %+v, want a.txt as the subagent read it", l.Inputs)
	}
}

// A subagent's records never go before the Task call that started it,
// whatever their clocks say; records without a time keep their place.
func TestClaudeCodeSubagentAfterItsTask(t *testing.T) {
	t.Parallel()
	main := strings.Join([]string{
		`{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"explore"}}`,
		`{"type":"assistant","uuid":"a1","sessionId":"s","timestamp":"2026-03-01T10:00:01Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"prompt":"look around"}}]}}`,
		`{"type":"user","uuid":"u2","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"done"}]},"toolUseResult":{"agentId":"ab12"}}`,
		`{"type":"assistant","uuid":"a2","sessionId":"s","message":{"id":"m3","role":"assistant","model":"claude-x","content":[{"type":"text","text":"ok"}]}}`,
	}, "\n") + "\n"
	sub := strings.Join([]string{
		`{"type":"user","uuid":"x1","isSidechain":true,"agentId":"ab12","sessionId":"s","timestamp":"2026-03-01T09:59:00Z","message":{"role":"user","content":"look around"}}`,
		`{"type":"assistant","uuid":"x2","isSidechain":true,"agentId":"ab12","sessionId":"s","timestamp":"2026-03-01T09:59:01Z","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"text","text":"done"}]}}`,
	}, "\n") + "\n"
	l, got := importWithSubagent(t, main, sub)
	// The session's records after the Task call have no time: they
	// stay after it, and the subagent's (earlier by its clock) go first.
	want := []string{"llm_call  ", "tool_call Task ", "llm_call  ab12", "llm_call  "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("steps:\n got %q\nwant %q", got, want)
	}
	if p := l.Steps[2].ParentStep; p == nil || *p != 1 {
		t.Errorf("the subagent's step has parent %v, want the Task step 1", p)
	}
}

// subagentLog is the part of an imported log the subagent tests read.
type subagentLog struct {
	Steps []struct {
		Type, Tool, Agent string
		ParentStep        *int `json:"parent_step"`
	}
	Inputs []struct{ Name, Content string }
}

// importWithSubagent imports the transcript main with sub as its
// subagent ab12's, and returns the log and each step as "type tool agent".
func importWithSubagent(t *testing.T, main, sub string) (*subagentLog, []string) {
	t.Helper()
	out, _, err := formats.Import(claudecode.Name, []byte(main), importer.Options{Subagents: []importer.File{{Name: "s/subagents/agent-ab12.jsonl", Data: []byte(sub)}}})
	if err != nil {
		t.Fatal(err)
	}
	var l subagentLog
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, s := range l.Steps {
		steps = append(steps, s.Type+" "+s.Tool+" "+s.Agent)
	}
	return &l, steps
}
