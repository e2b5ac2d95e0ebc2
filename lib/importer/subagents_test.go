package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Newer Claude Code versions write a subagent's records to
// <session>/subagents/agent-<id>.jsonl, not to the session's transcript:
// read with it, they are the steps of the subagent the Task call started;
// a bad line names its file.
func TestClaudeCodeSubagentFiles(t *testing.T) {
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
	subs, err := ClaudeCodeSubagents(transcript)
	if err != nil || len(subs) != 1 || subs[0].Name != "s/subagents/agent-ab12.jsonl" || string(subs[0].Data) != sub {
		t.Fatalf("ClaudeCodeSubagents = %+v, %v", subs, err)
	}
	if none, err := ClaudeCodeSubagents(filepath.Join(dir, "other.jsonl")); err != nil || len(none) != 0 {
		t.Errorf("a session without subagents: %+v, %v", none, err)
	}

	out, _, err := Import(ClaudeCode, []byte(main), Options{Subagents: subs})
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

	bad := []File{{Name: "s/subagents/agent-ab12.jsonl", Data: []byte(sub + "{oops\n" + sub)}}
	if _, _, err := Import(ClaudeCode, []byte(main), Options{Subagents: bad}); err == nil || !strings.Contains(err.Error(), "s/subagents/agent-ab12.jsonl: line 3") {
		t.Errorf("a bad line in a subagent's file: %v", err)
	}
}
