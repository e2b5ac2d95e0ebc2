package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func init() { fixtures = append(fixtures, harnessFixture) }

// recordText returns the text of a record of a JSON Lines file (line n,
// 1-based): its message content when that is a string, else its block-th
// text block. The fixture's prompts are read from the source so that the
// test says they are the source's bytes, unchanged.
func recordText(file string, n, block int) string {
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		panic(err)
	}
	c := gjson.GetBytes(bytes.Split(data, []byte("\n"))[n-1], "message.content")
	if c.Type == gjson.String {
		return c.Str
	}
	return c.Array()[block].Get("text").Str
}

const harnessFile = "claude-code/harness.jsonl"

// The records Claude Code writes into the conversation itself, as Claude
// Code 2.1 writes them: a background command's task-notification
// (origin.kind "task-notification"), the caveat, slash command and its
// output a local command leaves, a "!" shell command and its output, a
// compaction summary, system reminders (alone, and before what the user
// typed), an expanded skill (isMeta) and an automatic continuation. Each
// is a prompt with role harness and its kind, its text unchanged; the
// user's own prompts keep role user. What only the text tells apart is
// named in a warning.
var harnessFixture = fixture{
	file: harnessFile, format: ClaudeCode, model: "claude-opus-4-7",
	prompts: []string{
		"Build the project in the background and tell me when it is done",
		recordText(harnessFile, 7, 0), recordText(harnessFile, 9, 0), recordText(harnessFile, 10, 0),
		recordText(harnessFile, 11, 0), recordText(harnessFile, 12, 0), recordText(harnessFile, 13, 0),
		recordText(harnessFile, 15, 0), recordText(harnessFile, 16, 0),
		recordText(harnessFile, 17, 0), "Now run the tests",
		recordText(harnessFile, 18, 0), recordText(harnessFile, 21, 0),
	},
	steps: []wantStep{
		llm(nil),
		tool("Bash", `{"command":"make build","description":"Build the project","run_in_background":true}`,
			ptr("Command running in background with ID: b7k2q. Output is being written to: /tmp/claude-1000/-home-dev-proj/tasks/b7k2q.output"), false),
		llm(ptr("The build is running in the background.")),
		llm(ptr("The build finished (exit code 0).")),
		llm(nil),
		tool("Bash", `{"command":"go test ./...","description":"Run the tests"}`, ptr("ok  \tproj\t0.012s"), false),
		llm(ptr("The tests pass.")),
	},
	outputs: map[string]string{finalName: "The tests pass."},
	warnings: []string{
		"1 user record(s) taken as the harness's command by their leading <command-name> alone (nothing else in the record says the harness wrote it): line 10",
		"1 user record(s) taken as the harness's command-output by their leading <local-command-stdout> alone (nothing else in the record says the harness wrote it): line 11",
		"1 user record(s) taken as the harness's shell-input by their leading <bash-input> alone (nothing else in the record says the harness wrote it): line 12",
		"1 user record(s) taken as the harness's shell-output by their leading <bash-stdout> alone (nothing else in the record says the harness wrote it): line 13",
		"2 user record(s) taken as the harness's system-reminder by their leading <system-reminder> alone (nothing else in the record says the harness wrote it): line 16, line 17",
	},
	check: func(t *testing.T, l *testLog, out []byte, rep Report) {
		wantRoles := []string{"user", "harness", "harness", "harness", "harness", "harness", "harness",
			"harness", "harness", "harness", "user", "harness", "harness"}
		wantKinds := []any{nil, "task-notification", "command-caveat", "command", "command-output",
			"shell-input", "shell-output", "compact-summary", "system-reminder", "system-reminder", nil,
			"meta", "auto-continuation"}
		wantUUIDs := []string{"u01", "u05", "u07", "u08", "u09", "u10", "u11", "u13", "u14", "u15", "u15", "u16", "u19"}
		var roles []string
		for _, p := range l.Prompts {
			roles = append(roles, p.Role)
		}
		if !reflect.DeepEqual(roles, wantRoles) {
			t.Errorf("roles = %q\nwant    %q", roles, wantRoles)
		}
		pm, _ := l.Metadata["prompts"].([]any)
		if len(pm) != len(wantKinds) {
			t.Fatalf("metadata.prompts = %v", pm)
		}
		for i, m := range pm {
			m := m.(map[string]any)
			if m["index"] != float64(i) || m["harness"] != wantKinds[i] || m["uuid"] != wantUUIDs[i] {
				t.Errorf("metadata.prompts[%d] = %v; want harness %v, uuid %s", i, m, wantKinds[i], wantUUIDs[i])
			}
		}
		// The record's own marks stay in the prompt's metadata.
		if m := pm[1].(map[string]any); !reflect.DeepEqual(m["origin"], map[string]any{"kind": "task-notification"}) || m["promptSource"] != "system" {
			t.Errorf("task-notification metadata = %v", m)
		}
		if m := pm[7].(map[string]any); m["isCompactSummary"] != true || m["isVisibleInTranscriptOnly"] != true {
			t.Errorf("compact summary metadata = %v", m)
		}
		// The split record: the reminder keeps only the record's uuid
		// and time; what the user typed keeps the rest.
		if m := pm[9].(map[string]any); len(m) != 4 || m["timestamp"] != "2026-05-01T02:03:05Z" {
			t.Errorf("split reminder metadata = %v", m)
		}
		if m := pm[10].(map[string]any); m["promptId"] != "p3" || m["timestamp"] != "2026-05-01T02:03:05Z" {
			t.Errorf("split prompt metadata = %v", m)
		}
		// The queue copies of the notification and the compaction
		// boundary are not in the conversation; they are counted.
		if rep.Records != 22 || rep.Mapped != 19 || !reflect.DeepEqual(rep.Reasons, []string{
			`record type "queue-operation" (input queue): 2`,
			`record type "system" (local command and status output): 1`}) {
			t.Errorf("report = %+v", rep)
		}
		if bytes.Contains(out, []byte("\x1b")) || !bytes.Contains(out, []byte(`Kept model as \u001b[1mDefault`)) {
			t.Error("the command output's escape sequence is not kept as it is")
		}
	},
}

// TestHarnessText: a tag counts where a text opens with it; an interrupt
// only as the whole text.
func TestHarnessText(t *testing.T) {
	for _, c := range []struct{ text, kind string }{
		{"[Request interrupted by user]", "interrupt"},
		{"[Request interrupted by user for tool use]", "interrupt"},
		{"[Request interrupted by user] and then", ""},
		{"why was the [Request interrupted by user]?", ""},
		{"<task-notification>\n<task-id>x</task-id>\n</task-notification>", "task-notification"},
		{"  \n<task-notification>x", "task-notification"},
		{"<command-message>review</command-message>\n<command-name>/review</command-name>", "command"},
		{"<command-name>/clear</command-name>", "command"},
		{"<local-command-stderr>no</local-command-stderr>", "command-output"},
		{"<bash-stderr>(eval):1: not found</bash-stderr>", "shell-output"},
		{`<system-reminder priority="x">y</system-reminder>`, "system-reminder"},
		{"<command-names>x", ""},
		{"<command-name", ""},
		{"please explain <command-name> to me", ""},
		{"/compact keep the plan", ""},
		{"", ""},
	} {
		if k, _ := harnessText(c.text); k != c.kind {
			t.Errorf("harnessText(%q) = %q, want %q", c.text, k, c.kind)
		}
	}
}

// An interrupt is the harness's, said on stderr.
func TestHarnessInterrupt(t *testing.T) {
	in := `{"type":"user","uuid":"a","sessionId":"s","message":{"role":"user","content":"fix the test"}}
{"type":"assistant","uuid":"b","sessionId":"s","message":{"id":"m1","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"Looking."}]}}
{"type":"user","uuid":"c","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}
{"type":"user","uuid":"d","sessionId":"s","message":{"role":"user","content":"no, the other one"}}
`
	l, rep, roles := importRoles(t, in)
	if want := []string{"user", "harness", "user"}; !reflect.DeepEqual(roles, want) {
		t.Errorf("roles = %q, want %q", roles, want)
	}
	if l.Prompts[1].Content != "[Request interrupted by user]" {
		t.Errorf("the interrupt's text = %q", l.Prompts[1].Content)
	}
	want := []string{`1 user record(s) taken as the harness's interrupt by their text "[Request interrupted by user]" alone (nothing else in the record says the harness wrote it): line 3`}
	if !reflect.DeepEqual(rep.Warnings, want) {
		t.Errorf("warnings = %q, want %q", rep.Warnings, want)
	}
}

// TestHarnessWithoutOrigin: versions before origin was recorded leave
// only the text to go by. A notification is the harness's, said on
// stderr; a prompt whose text merely mentions a tag, or that a person
// typed before a reminder, is the user's.
func TestHarnessWithoutOrigin(t *testing.T) {
	in := `{"type":"user","uuid":"a","sessionId":"s","version":"2.0.76","message":{"role":"user","content":"run the linter in the background"}}
{"type":"assistant","uuid":"b","sessionId":"s","message":{"id":"m1","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"Started."}]}}
{"type":"user","uuid":"c","sessionId":"s","version":"2.0.76","message":{"role":"user","content":"<task-notification>\n<task-id>a7f</task-id>\n<status>completed</status>\n<summary>Agent \"Lint\" finished</summary>\n</task-notification>"}}
{"type":"user","uuid":"d","sessionId":"s","version":"2.0.76","message":{"role":"user","content":"what does <task-notification> mean?"}}
{"type":"user","uuid":"e","sessionId":"s","version":"2.0.76","message":{"role":"user","content":[{"type":"text","text":"and this"},{"type":"text","text":"<system-reminder>x</system-reminder>"}]}}
`
	l, rep, roles := importRoles(t, in)
	if !reflect.DeepEqual(roles, []string{"user", "harness", "user", "user"}) {
		t.Errorf("roles = %q", roles)
	}
	if l.Prompts[3].Content != "and this\n<system-reminder>x</system-reminder>" {
		t.Errorf("prompts[3] = %q", l.Prompts[3].Content)
	}
	want := []string{
		"1 user record(s) taken as the harness's task-notification by their leading <task-notification> alone (nothing else in the record says the harness wrote it): line 3",
		"line 5: a user prompt holds text the harness writes (<system-reminder>) after other text; it is kept as the user's",
	}
	if !reflect.DeepEqual(rep.Warnings, want) {
		t.Errorf("warnings = %q", rep.Warnings)
	}
}

// TestHarnessOriginWins: a record whose origin says who wrote it needs no
// guess, nor one marked isMeta, even when it holds no text.
func TestHarnessOriginWins(t *testing.T) {
	in := `{"type":"user","uuid":"a","sessionId":"s","origin":{"kind":"human"},"message":{"role":"user","content":"fix it"}}
{"type":"user","uuid":"b","sessionId":"s","origin":{"kind":"peer"},"message":{"role":"user","content":"Another Claude session sent a message: please rebase"}}
{"type":"user","uuid":"c","sessionId":"s","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>\n<task-id>q</task-id>\n</task-notification>"}}
{"type":"assistant","uuid":"d","sessionId":"s","message":{"id":"m1","model":"claude-opus-4-7","role":"assistant","content":[{"type":"text","text":"ok"}]}}
{"type":"user","uuid":"e","sessionId":"s","isMeta":true,"message":{"role":"user","content":""}}
`
	out, rep, err := Import(ClaudeCode, []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := decode(t, out)
	pm, _ := l.Metadata["prompts"].([]any)
	var got []string
	for i, p := range l.Prompts {
		k, _ := pm[i].(map[string]any)["harness"].(string)
		got = append(got, p.Role+":"+k)
	}
	if !reflect.DeepEqual(got, []string{"user:", "harness:peer", "harness:task-notification", "harness:meta"}) {
		t.Errorf("prompts = %q", got)
	}
	if len(rep.Warnings) != 0 {
		t.Errorf("warnings = %q", rep.Warnings)
	}
}

// TestHarnessInSubagent: a subagent's own records the harness wrote are
// kept with its prompt, marked as the harness's; the Task's prompt is
// still found, and nothing is a prompt of the main agent.
func TestHarnessInSubagent(t *testing.T) {
	in := `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"explore"}}
{"type":"assistant","uuid":"u2","sessionId":"s","message":{"id":"m1","model":"claude-x","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"prompt":"look around"}}]}}
{"type":"user","uuid":"x1","isSidechain":true,"agentId":"ab","sessionId":"s","message":{"role":"user","content":"look around"}}
{"type":"user","uuid":"x2","parentUuid":"x1","isSidechain":true,"agentId":"ab","isMeta":true,"sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"Base directory for this skill: /s"}]}}
{"type":"assistant","uuid":"x3","parentUuid":"x2","isSidechain":true,"agentId":"ab","sessionId":"s","message":{"id":"m2","model":"claude-x","role":"assistant","content":[{"type":"text","text":"found"}]}}
{"type":"user","uuid":"u3","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"found"}]},"toolUseResult":{"agentId":"ab"}}
`
	out, _, err := Import(ClaudeCode, []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := decode(t, out)
	if len(l.Prompts) != 1 || l.Prompts[0].Content != "explore" {
		t.Errorf("prompts = %+v", l.Prompts)
	}
	s := l.Steps[2]
	ap, _ := s.Metadata["agent_prompts"].([]any)
	if s.Agent != "ab" || s.ParentStep == nil || *s.ParentStep != 1 || len(ap) != 2 {
		t.Fatalf("subagent step = %+v", s)
	}
	first, second := ap[0].(map[string]any), ap[1].(map[string]any)
	if first["content"] != "look around" || first["role"] != nil ||
		second["content"] != "Base directory for this skill: /s" || second["role"] != "harness" || second["harness"] != "meta" {
		t.Errorf("agent prompts = %v", ap)
	}
	if strings.Contains(string(out), `"role":"user","content":"look around"`) {
		t.Error("the subagent's prompt is a prompt of the main agent")
	}
}

// importRoles imports the Claude Code transcript in and returns the log,
// the report and the role of each prompt.
func importRoles(t *testing.T, in string) (*testLog, Report, []string) {
	t.Helper()
	out, rep, err := Import(ClaudeCode, []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := decode(t, out)
	var roles []string
	for _, p := range l.Prompts {
		roles = append(roles, p.Role)
	}
	return l, rep, roles
}
