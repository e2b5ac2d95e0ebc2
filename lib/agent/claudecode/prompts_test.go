package claudecode_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
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
	File: harnessFile, Format: claudecode.Name, Model: "claude-opus-4-7",
	Prompts: []string{
		"Build the project in the background and tell me when it is done",
		recordText(harnessFile, 7, 0), recordText(harnessFile, 9, 0), recordText(harnessFile, 10, 0),
		recordText(harnessFile, 11, 0), recordText(harnessFile, 12, 0), recordText(harnessFile, 13, 0),
		recordText(harnessFile, 15, 0), recordText(harnessFile, 16, 0),
		recordText(harnessFile, 17, 0), "Now run the tests",
		recordText(harnessFile, 18, 0), recordText(harnessFile, 21, 0),
	},
	Steps: []importtest.Step{
		importtest.LLM(nil),
		importtest.Tool("Bash", `{"command":"make build","description":"Build the project","run_in_background":true}`,
			importtest.Ptr("Command running in background with ID: b7k2q. Output is being written to: /tmp/claude-1000/-home-dev-proj/tasks/b7k2q.output"), false),
		importtest.LLM(importtest.Ptr("The build is running in the background.")),
		importtest.LLM(importtest.Ptr("The build finished (exit code 0).")),
		importtest.LLM(nil),
		importtest.Tool("Bash", `{"command":"go test ./...","description":"Run the tests"}`, importtest.Ptr("ok  \tproj\t0.012s"), false),
		importtest.LLM(importtest.Ptr("The tests pass.")),
	},
	Outputs: map[string]string{importer.FinalName: "The tests pass."},
	Warnings: []string{
		"1 record(s) taken as the harness's command by their leading <command-name> alone (nothing else in the record says the harness wrote it): line 10",
		"1 record(s) taken as the harness's command-output by their leading <local-command-stdout> alone (nothing else in the record says the harness wrote it): line 11",
		"1 record(s) taken as the harness's shell-input by their leading <bash-input> alone (nothing else in the record says the harness wrote it): line 12",
		"1 record(s) taken as the harness's shell-output by their leading <bash-stdout> alone (nothing else in the record says the harness wrote it): line 13",
		"2 record(s) taken as the harness's system-reminder by their leading <system-reminder> alone (nothing else in the record says the harness wrote it): line 16, line 17",
	},
	Check: func(t *testing.T, l *importtest.Log, out []byte, rep importer.Report) {
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
		// The compaction boundary before the summary (line 14) is kept
		// with it: its compactMetadata is in no other record.
		if bd, _ := pm[7].(map[string]any)["compact_boundary"].(map[string]any); bd["uuid"] != "u12" || bd["timestamp"] != "2026-05-01T02:03:00Z" ||
			!reflect.DeepEqual(bd["compactMetadata"], map[string]any{"trigger": "manual", "preTokens": float64(48211)}) {
			t.Errorf("metadata.prompts[7].compact_boundary = %v", bd)
		}
		// The split record: the reminder keeps only the record's uuid
		// and time; what the user typed keeps the rest.
		if m := pm[9].(map[string]any); len(m) != 4 || m["timestamp"] != "2026-05-01T02:03:05Z" {
			t.Errorf("split reminder metadata = %v", m)
		}
		if m := pm[10].(map[string]any); m["promptId"] != "p3" || m["timestamp"] != "2026-05-01T02:03:05Z" {
			t.Errorf("split prompt metadata = %v", m)
		}
		// The queue copies of the notification are not in the
		// conversation; they are counted.
		if rep.Records != 22 || rep.Mapped != 20 || !reflect.DeepEqual(rep.Reasons, []string{
			`record type "queue-operation" (input queue): 2`}) {
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
	t.Parallel()
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
		if k, _ := claudecode.HarnessText(c.text); k != c.kind {
			t.Errorf("harnessText(%q) = %q, want %q", c.text, k, c.kind)
		}
	}
}

// An interrupt is the harness's, said on stderr.
func TestHarnessInterrupt(t *testing.T) {
	t.Parallel()
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
	want := []string{`1 record(s) taken as the harness's interrupt by their text "[Request interrupted by user]" alone (nothing else in the record says the harness wrote it): line 3`}
	if !reflect.DeepEqual(rep.Warnings, want) {
		t.Errorf("warnings = %q, want %q", rep.Warnings, want)
	}
}

// TestHarnessWithoutOrigin: versions before origin was recorded leave
// only the text to go by. A notification is the harness's, said on
// stderr; a prompt whose text merely mentions a tag, or that a person
// typed before a reminder, is the user's.
func TestHarnessWithoutOrigin(t *testing.T) {
	t.Parallel()
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
		"1 record(s) taken as the harness's task-notification by their leading <task-notification> alone (nothing else in the record says the harness wrote it): line 3",
		"line 5: a user prompt holds text the harness writes (<system-reminder>) after other text; it is kept as the user's",
	}
	if !reflect.DeepEqual(rep.Warnings, want) {
		t.Errorf("warnings = %q", rep.Warnings)
	}
}

// TestHarnessOriginWins: a record whose origin says who wrote it needs no
// guess, nor one marked isMeta, even when it holds no text.
func TestHarnessOriginWins(t *testing.T) {
	t.Parallel()
	in := `{"type":"user","uuid":"a","sessionId":"s","origin":{"kind":"human"},"message":{"role":"user","content":"fix it"}}
{"type":"user","uuid":"b","sessionId":"s","origin":{"kind":"peer"},"message":{"role":"user","content":"Another Claude session sent a message: please rebase"}}
{"type":"user","uuid":"c","sessionId":"s","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>\n<task-id>q</task-id>\n</task-notification>"}}
{"type":"assistant","uuid":"d","sessionId":"s","message":{"id":"m1","model":"claude-opus-4-7","role":"assistant","content":[{"type":"text","text":"ok"}]}}
{"type":"user","uuid":"e","sessionId":"s","isMeta":true,"message":{"role":"user","content":""}}
`
	out, rep, err := formats.Import(claudecode.Name, []byte(in), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := importtest.Decode(t, out)
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
	t.Parallel()
	in := `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"explore"}}
{"type":"assistant","uuid":"u2","sessionId":"s","message":{"id":"m1","model":"claude-x","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"prompt":"look around"}}]}}
{"type":"user","uuid":"x1","isSidechain":true,"agentId":"ab","sessionId":"s","message":{"role":"user","content":"look around"}}
{"type":"user","uuid":"x2","parentUuid":"x1","isSidechain":true,"agentId":"ab","isMeta":true,"sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"Base directory for this skill: /s"}]}}
{"type":"assistant","uuid":"x3","parentUuid":"x2","isSidechain":true,"agentId":"ab","sessionId":"s","message":{"id":"m2","model":"claude-x","role":"assistant","content":[{"type":"text","text":"found"}]}}
{"type":"user","uuid":"u3","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"found"}]},"toolUseResult":{"agentId":"ab"}}
`
	out, _, err := formats.Import(claudecode.Name, []byte(in), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := importtest.Decode(t, out)
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
func importRoles(t *testing.T, in string) (*importtest.Log, importer.Report, []string) {
	t.Helper()
	out, rep, err := formats.Import(claudecode.Name, []byte(in), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := importtest.Decode(t, out)
	var roles []string
	for _, p := range l.Prompts {
		roles = append(roles, p.Role)
	}
	return l, rep, roles
}

func init() { fixtures = append(fixtures, queuedFixture) }

const queuedFile = "claude-code/queued.jsonl"

// Records other than user records that hold the only copy of what was
// said, as Claude Code 2.1 writes them: a prompt typed while a tool ran,
// which the turn took in (a queued_command attachment, line 5, beside
// its queue-operation records), a local command and its output shown to
// the user alone (system local_command records, lines 9-10), and a
// background task's notification the turn took in (line 16). A prompt
// queued until the turn ended is an ordinary user record (line 21) and
// its queue records are not a second copy. The other attachment (line
// 14), the turn_duration record (line 8) and the queue records are
// counted as skipped.
var queuedFixture = fixture{
	File: queuedFile, Format: claudecode.Name, Model: "claude-opus-4-7",
	Prompts: []string{
		"Move the tokenizer into its own package", "keep the exported names as they are",
		recordContent(queuedFile, 9), recordContent(queuedFile, 10),
		"Now add a test for empty input", gjson.Get(recordLine(queuedFile, 16), "attachment.prompt").Str,
		"then commit",
	},
	Steps: []importtest.Step{
		importtest.LLM(nil),
		importtest.Tool("Bash", `{"command":"go build ./...","description":"Build"}`, importtest.Ptr(""), false),
		importtest.LLM(importtest.Ptr("Moved; the exported names are unchanged.")),
		importtest.LLM(nil),
		importtest.Tool("Bash", `{"command":"go test ./...","description":"Run the tests","run_in_background":true}`, importtest.Ptr("Command running in background with ID: b9x."), false),
		importtest.LLM(importtest.Ptr("The tests pass.")),
		importtest.LLM(importtest.Ptr("Committed.")),
	},
	Outputs: map[string]string{importer.FinalName: "Committed."},
	Check: func(t *testing.T, l *importtest.Log, out []byte, rep importer.Report) {
		var got []string
		pm, _ := l.Metadata["prompts"].([]any)
		for i, p := range l.Prompts {
			m := pm[i].(map[string]any)
			k, _ := m["harness"].(string)
			got = append(got, p.Role+":"+k+":"+m["uuid"].(string)+"@"+m["timestamp"].(string))
		}
		want := []string{
			"user::u01@2026-06-02T09:00:00Z", "user::t01@2026-06-02T09:00:03Z",
			"harness:command:s02@2026-06-02T09:00:20Z", "harness:command-output:s03@2026-06-02T09:00:20Z",
			"user::u03@2026-06-02T09:00:30Z", "harness:task-notification:t03@2026-06-02T09:00:40Z",
			"user::u05@2026-06-02T09:00:42.6Z",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("prompts = %q\nwant      %q", got, want)
		}
		// The attachment's other members, and the system record's, stay
		// with the prompt; the prompt itself is not repeated there.
		if a := pm[1].(map[string]any)["attachment"]; !reflect.DeepEqual(a, map[string]any{
			"type": "queued_command", "commandMode": "prompt", "origin": map[string]any{"kind": "human"}}) {
			t.Errorf("metadata.prompts[1].attachment = %v", a)
		}
		if m := pm[3].(map[string]any); m["type"] != "system" || m["subtype"] != "local_command" || m["level"] != "info" || m["content"] != nil {
			t.Errorf("metadata.prompts[3] = %v", m)
		}
		if bytes.Count(out, []byte("keep the exported names as they are")) != 1 || bytes.Count(out, []byte("then commit")) != 1 {
			t.Error("a queued prompt is in the log twice")
		}
		if rep.Records != 22 || rep.Mapped != 14 || !reflect.DeepEqual(rep.Reasons, []string{
			`record type "attachment" (what Claude Code adds to a turn: reminders, hook output, file changes): 1`,
			`record type "queue-operation" (input queue): 6`,
			`record type "system" (turn_duration: status output): 1`}) {
			t.Errorf("report = %+v", rep)
		}
	},
}

// recordLine returns line n (1-based) of a fixture file.
func recordLine(file string, n int) string {
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		panic(err)
	}
	return string(bytes.Split(data, []byte("\n"))[n-1])
}

// recordContent returns the content member of a system record.
func recordContent(file string, n int) string {
	return gjson.Get(recordLine(file, n), "content").Str
}

// TestQueuedOnce: a queued prompt that the next user record repeats is
// kept once, from the user record; said on stderr when the user record
// does not say it was queued. A user record that only looks like a later
// copy (another prompt came between) leaves both.
func TestQueuedOnce(t *testing.T) {
	t.Parallel()
	in := `{"type":"user","uuid":"a","sessionId":"s","timestamp":"2026-06-02T09:00:00Z","message":{"role":"user","content":"fix the test"}}
{"type":"attachment","uuid":"b","sessionId":"s","timestamp":"2026-06-02T09:00:01Z","attachment":{"type":"queued_command","prompt":"and the lint","commandMode":"prompt"}}
{"type":"user","uuid":"c","sessionId":"s","timestamp":"2026-06-02T09:00:05Z","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}
{"type":"user","uuid":"d","sessionId":"s","timestamp":"2026-06-02T09:00:06Z","message":{"role":"user","content":"and the lint"}}
{"type":"attachment","uuid":"e","sessionId":"s","timestamp":"2026-06-02T09:00:07Z","attachment":{"type":"queued_command","prompt":"continue","commandMode":"prompt"}}
{"type":"user","uuid":"f","sessionId":"s","timestamp":"2026-06-02T09:00:08Z","promptSource":"queued","message":{"role":"user","content":"continue"}}
{"type":"attachment","uuid":"g","sessionId":"s","timestamp":"2026-06-02T09:00:09Z","attachment":{"type":"queued_command","prompt":"continue","commandMode":"prompt"}}
{"type":"user","uuid":"h","sessionId":"s","timestamp":"2026-06-02T09:00:10Z","message":{"role":"user","content":"stop"}}
{"type":"user","uuid":"i","sessionId":"s","timestamp":"2026-06-02T09:00:11Z","message":{"role":"user","content":"continue"}}
`
	l, rep, _ := importRoles(t, in)
	pm, _ := l.Metadata["prompts"].([]any)
	var got []string
	for i, p := range l.Prompts {
		got = append(got, p.Role+":"+p.Content+"@"+pm[i].(map[string]any)["uuid"].(string))
	}
	want := []string{"user:fix the test@a", "harness:[Request interrupted by user]@c", "user:and the lint@d",
		"user:continue@f", "user:continue@g", "user:stop@h", "user:continue@i"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("prompts = %q\nwant      %q", got, want)
	}
	if !reflect.DeepEqual(rep.Reasons, []string{`record type "attachment" (a queued_command whose prompt the next user record repeats): 2`}) ||
		rep.Records != 9 || rep.Mapped != 7 {
		t.Errorf("report = %+v", rep)
	}
	n := 0
	for _, w := range rep.Warnings {
		if strings.Contains(w, "prompt queued") {
			n++
			if w != "line 4: the prompt queued at line 2 is taken to be this user record, which has its text; it is kept once, from line 4" {
				t.Errorf("warning = %q", w)
			}
		}
	}
	if n != 1 {
		t.Errorf("warnings = %q", rep.Warnings)
	}
}

// TestLocalCommandOnce: a local_command record holding the text a user
// record holds at the same time is that record's copy; the same command
// run again later is a prompt of its own.
func TestLocalCommandOnce(t *testing.T) {
	t.Parallel()
	in := `{"type":"user","uuid":"a","sessionId":"s","timestamp":"2026-06-02T09:00:00Z","message":{"role":"user","content":"<local-command-stdout>Reconnected to db.</local-command-stdout>"}}
{"type":"system","subtype":"local_command","uuid":"b","sessionId":"s","timestamp":"2026-06-02T09:00:00Z","level":"info","content":"<local-command-stdout>Reconnected to db.</local-command-stdout>"}
{"type":"system","subtype":"local_command","uuid":"c","sessionId":"s","timestamp":"2026-06-02T09:00:09Z","level":"info","content":"<local-command-stdout>Reconnected to db.</local-command-stdout>"}
{"type":"system","subtype":"local_command","uuid":"d","sessionId":"s","timestamp":"2026-06-02T09:00:10Z","level":"info","content":"Status: ok"}
{"type":"system","subtype":"informational","uuid":"e","sessionId":"s","timestamp":"2026-06-02T09:00:11Z","level":"info","content":"Model changed"}
`
	l, rep, _ := importRoles(t, in)
	pm, _ := l.Metadata["prompts"].([]any)
	if len(l.Prompts) != 2 || pm[0].(map[string]any)["uuid"] != "a" || pm[1].(map[string]any)["uuid"] != "c" ||
		pm[1].(map[string]any)["harness"] != "command-output" || l.Prompts[1].Role != "harness" {
		t.Errorf("prompts = %+v, %v", l.Prompts, pm)
	}
	if !reflect.DeepEqual(rep.Reasons, []string{
		`record type "system" (informational: status output): 1`,
		`record type "system" (local_command whose content opens with no tag of a command or its output): 1`,
		`record type "system" (local_command: the same text, at the same time, as a user record): 1`}) || rep.Mapped != 2 {
		t.Errorf("report = %+v", rep)
	}
}

// TestQueuedShapes: a queued prompt with an image is a prompt of parts;
// a queued "!" command (another commandMode) is not known to reach the
// model and is skipped; a prompt of the wrong type is an error naming
// it; a turn that took in a prompt no attachment holds is said on stderr.
func TestQueuedShapes(t *testing.T) {
	t.Parallel()
	in := `{"type":"user","uuid":"a","sessionId":"s","message":{"role":"user","content":"look at this"}}
{"type":"attachment","uuid":"b","sessionId":"s","attachment":{"type":"queued_command","prompt":[{"type":"text","text":"this one"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}],"commandMode":"prompt"}}
{"type":"attachment","uuid":"c","sessionId":"s","attachment":{"type":"queued_command","prompt":"ls","commandMode":"bash"}}
{"type":"queue-operation","operation":"remove","reason":"absorbed_mid_turn","sessionId":"s","content":"and this"}
{"type":"queue-operation","operation":"remove","sessionId":"s","content":"never mind"}
`
	l, rep, _ := importRoles(t, in)
	if len(l.Prompts) != 2 || len(l.Prompts[1].Parts) != 2 || l.Prompts[1].Parts[0]["content"] != "this one" {
		t.Errorf("prompts = %+v", l.Prompts)
	}
	if !reflect.DeepEqual(rep.Reasons, []string{
		`record type "attachment" (a queued_command of another commandMode than prompt or task-notification, not known to reach the model): 1`,
		`record type "queue-operation" (input queue): 2`}) {
		t.Errorf("reasons = %q", rep.Reasons)
	}
	want := "1 prompt(s) queued while the agent worked were taken into its turn with no queued_command attachment; their text is only in the queue-operation record, not kept: line 4"
	if len(rep.Warnings) == 0 || rep.Warnings[0] != want {
		t.Errorf("warnings = %q", rep.Warnings)
	}
	_, _, err := formats.Import(claudecode.Name, []byte(strings.Replace(in, `"prompt":[`, `"prompt":7,"x":[`, 1)), importer.Options{})
	if err == nil || !strings.Contains(err.Error(), "line 2: attachment.prompt") {
		t.Errorf("err = %v", err)
	}
}

// TestCompactBoundary: a compact_boundary is kept with the summary whose
// parentUuid is its uuid; one no summary follows is counted as skipped.
func TestCompactBoundary(t *testing.T) {
	t.Parallel()
	in := `{"type":"user","uuid":"a","sessionId":"s","message":{"role":"user","content":"go on"}}
{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,"logicalParentUuid":"a","sessionId":"s","timestamp":"2026-06-02T09:00:04Z","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":155025}}
{"type":"user","uuid":"c","parentUuid":"b1","sessionId":"s","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation."}}
{"type":"system","subtype":"compact_boundary","uuid":"b2","parentUuid":null,"sessionId":"s","content":"Conversation compacted","compactMetadata":{"trigger":"manual","preTokens":9000}}
{"type":"user","uuid":"d","parentUuid":"x","sessionId":"s","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued, again."}}
`
	l, rep, _ := importRoles(t, in)
	pm, _ := l.Metadata["prompts"].([]any)
	if len(pm) != 3 {
		t.Fatalf("metadata.prompts = %v", pm)
	}
	bd, _ := pm[1].(map[string]any)["compact_boundary"].(map[string]any)
	if bd["uuid"] != "b1" || bd["timestamp"] != "2026-06-02T09:00:04Z" || bd["logicalParentUuid"] != "a" ||
		!reflect.DeepEqual(bd["compactMetadata"], map[string]any{"trigger": "auto", "preTokens": float64(155025)}) {
		t.Errorf("compact_boundary = %v", bd)
	}
	if _, ok := pm[2].(map[string]any)["compact_boundary"]; ok {
		t.Errorf("a boundary joined a summary that is not its own: %v", pm[2])
	}
	if rep.Mapped != 4 || !reflect.DeepEqual(rep.Reasons, []string{`record type "system" (compact_boundary with no compaction summary after it): 1`}) {
		t.Errorf("report = %+v", rep)
	}
}

// TestFileAttachment: the file Claude Code reads again after a compaction
// is a harness prompt of kind "file", its text the blocks rendered for the
// model; one with no rendered text is lost, and said so.
func TestFileAttachment(t *testing.T) {
	t.Parallel()
	in := `{"type":"user","uuid":"a","sessionId":"s","message":{"role":"user","content":"go on"}}
{"type":"attachment","uuid":"f","parentUuid":"a","sessionId":"s","attachment":{"type":"file","filename":"/w/a.txt","content":{"type":"text","file":{"filePath":"/w/a.txt","content":"one\n"}}},"rendered":[{"content":"<system-reminder>\nCalled the Read tool with the following input: {\"file_path\":\"/w/a.txt\"}\n</system-reminder>"},{"content":"<system-reminder>\nResult of calling the Read tool:\n1\tone\n</system-reminder>"}],"renderedRole":"user"}
{"type":"attachment","uuid":"g","parentUuid":"f","sessionId":"s","attachment":{"type":"file","filename":"/w/b.txt","content":{"type":"text","file":{"filePath":"/w/b.txt","content":"two\n"}}}}
`
	l, rep, roles := importRoles(t, in)
	if want := []string{"user", "harness"}; !reflect.DeepEqual(roles, want) {
		t.Fatalf("roles = %q, want %q", roles, want)
	}
	if want := "<system-reminder>\nCalled the Read tool with the following input: {\"file_path\":\"/w/a.txt\"}\n</system-reminder>\n<system-reminder>\nResult of calling the Read tool:\n1\tone\n</system-reminder>"; l.Prompts[1].Content != want {
		t.Errorf("the file's prompt = %q, want %q", l.Prompts[1].Content, want)
	}
	pm, _ := l.Metadata["prompts"].([]any)
	if m, _ := pm[1].(map[string]any); m["harness"] != "file" || m["type"] != "attachment" {
		t.Errorf("metadata.prompts[1] = %v", m)
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool {
		return strings.Contains(w, `"attachment/file without rendered text"`) && strings.Contains(w, "lost")
	}) {
		t.Errorf("warnings = %q", rep.Warnings)
	}
}
