package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ccUse builds an assistant transcript line making a tool call; ccResult
// the user line with its result.
func ccUse(id, name string, input any) string {
	b, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}})
	return string(b)
}

func ccResult(id string, isError bool, result any) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "toolUseResult": result, "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "…", "is_error": isError}}}})
	return string(b)
}

func readResult(path, content string, start, n, total int) map[string]any {
	return map[string]any{"type": "text", "file": map[string]any{"filePath": path, "content": content, "startLine": start, "numLines": n, "totalLines": total}}
}

func TestClaudeCodeWorkspace(t *testing.T) {
	t.Parallel()
	const root = "/p"
	lines := []string{
		// Read whole: an input.
		ccUse("1", "Read", map[string]any{"file_path": "/p/a.txt"}),
		ccResult("1", false, readResult("/p/a.txt", "one\ntwo\n", 1, 3, 3)),
		// Read in part: not recorded (said so).
		ccUse("2", "Read", map[string]any{"file_path": "/p/big.txt", "offset": 10, "limit": 2}),
		ccResult("2", false, readResult("/p/big.txt", "x\ny", 10, 2, 50)),
		// Written first: an output, not an input; then edited.
		ccUse("3", "Write", map[string]any{"file_path": "/p/new.txt", "content": "v1\n"}),
		ccResult("3", false, map[string]any{"type": "create", "filePath": "/p/new.txt", "content": "v1\n", "originalFile": nil}),
		ccUse("4", "Edit", map[string]any{"file_path": "/p/new.txt", "old_string": "v1", "new_string": "v2"}),
		ccResult("4", false, map[string]any{"filePath": "/p/new.txt", "originalFile": "v1\n"}),
		// Edit of a file never read: its original is recorded, so it is
		// an input too.
		ccUse("5", "MultiEdit", map[string]any{"file_path": "/p/src/b.go", "edits": []any{
			map[string]any{"old_string": "1", "new_string": "2", "replace_all": true},
			map[string]any{"old_string": "package a", "new_string": "package c"}}}),
		ccResult("5", false, map[string]any{"filePath": "/p/src/b.go", "originalFile": "package a\nvar a = 1 + 1\n"}),
		// A rejected write changes nothing.
		ccUse("6", "Write", map[string]any{"file_path": "/p/a.txt", "content": "rejected"}),
		ccResult("6", true, "User rejected tool use"),
		// Outside the working directory: said so.
		ccUse("7", "Read", map[string]any{"file_path": "/etc/hosts"}),
		ccResult("7", false, readResult("/etc/hosts", "h\n", 1, 2, 2)),
		// An edit whose original is unknown cannot be applied.
		ccUse("8", "Edit", map[string]any{"file_path": "/p/c.txt", "old_string": "a", "new_string": "b"}),
		ccResult("8", false, map[string]any{"filePath": "/p/c.txt"}),
		ccUse("9", "NotebookEdit", map[string]any{"notebook_path": "/p/n.ipynb", "new_source": "x"}),
		ccResult("9", false, map[string]any{}),
	}
	w := claudeCodeWorkspace([]byte(strings.Join(lines, "\n")+"\n"), root)
	want := []wsFile{
		{name: "a.txt", content: "one\ntwo\n"},
		{name: "big.txt", seen: seenPartial, known: map[int]string{10: "x", 11: "y"}, total: 50},
		{name: "src/b.go", content: "package a\nvar a = 1 + 1\n"},
	}
	if !reflect.DeepEqual(w.inputs, want) {
		t.Errorf("inputs = %+v, want %+v", w.inputs, want)
	}
	var outputs []wsFile
	for _, name := range w.outputs {
		outputs = append(outputs, wsFile{name: name, content: w.current[name]})
	}
	if want := []wsFile{{name: "new.txt", content: "v2\n"}, {name: "src/b.go", content: "package c\nvar a = 2 + 2\n"}}; !reflect.DeepEqual(outputs, want) {
		t.Errorf("outputs = %+v, want %+v", outputs, want)
	}
	wantSkipped := []string{
		"Read of /etc/hosts: not a file under the working directory",
		"Edit of c.txt: the file's content before the edit is not known; its final content is not recorded",
		"NotebookEdit of n.ipynb: notebook edits are not applied; its final content is not recorded",
	}
	if !reflect.DeepEqual(w.skipped, wantSkipped) {
		t.Errorf("skipped:\n got %q\nwant %q", w.skipped, wantSkipped)
	}
}

func TestParseHook(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	rollout := filepath.Join(home, "sessions", "2025", "01", "02", "rollout-2025-01-02T03-04-05-abc-123.jsonl")
	if err := os.MkdirAll(filepath.Dir(rollout), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rollout, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, data string
		want       *Hook
		err        string
	}{
		{"claude code stop", `{"session_id":"s","transcript_path":"/t/s.jsonl","cwd":"/p","hook_event_name":"Stop"}`,
			&Hook{Transcript: "/t/s.jsonl", Cwd: "/p", SessionID: "s", Event: "Stop"}, ""},
		{"relative transcript", `{"session_id":"s","transcript_path":"t.jsonl","cwd":"/p"}`,
			&Hook{Transcript: filepath.Join("/p", "t.jsonl"), Cwd: "/p", SessionID: "s"}, ""},
		{"empty transcript", `{"session_id":"s","transcript_path":""}`, nil, "hook payload: transcript_path is not a non-empty string"},
		{"codex notify", `{"type":"agent-turn-complete","thread-id":"abc-123","turn-id":"1","cwd":"/p"}`,
			&Hook{Transcript: rollout, Cwd: "/p", SessionID: "abc-123", Event: "agent-turn-complete", Within: filepath.Join(home, "sessions")}, ""},
		{"codex unknown thread", `{"type":"agent-turn-complete","thread-id":"zzz"}`, nil, "codex notify payload: no rollout of thread zzz under " + filepath.Join(home, "sessions")},
		{"codex bad thread", `{"type":"agent-turn-complete","thread-id":"../x"}`, nil, `codex notify payload: thread-id "../x" is not an id`},
		{"a transcript line", `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}`, nil, ""},
		{"a transcript", "{\"type\":\"user\"}\n{\"type\":\"assistant\"}\n", nil, ""},
		{"not json", "hello", nil, ""},
	}
	for _, tt := range tests {
		got, err := ParseHook([]byte(tt.data), home)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, %q; want %+v, %q", tt.name, got, msg, tt.want, tt.err)
		}
	}
}

// A file can change between the session's own writes (a formatter run by a
// hook, a shell command, the user): an Edit applies to the originalFile it
// records and a whole Read shows the file as it is, not to what the session
// last wrote.
func TestClaudeCodeWorkspaceChangedOutside(t *testing.T) {
	t.Parallel()
	lines := []string{
		ccUse("1", "Write", map[string]any{"file_path": "/p/f.ex", "content": "x = 1\ny=2\n"}),
		ccResult("1", false, map[string]any{"type": "create", "filePath": "/p/f.ex", "content": "x = 1\ny=2\n", "originalFile": nil}),
		// A hook reformatted the file: the Edit's originalFile says so.
		ccUse("2", "Edit", map[string]any{"file_path": "/p/f.ex", "old_string": "x = 1", "new_string": "x = 3"}),
		ccResult("2", false, map[string]any{"filePath": "/p/f.ex", "originalFile": "x = 1\ny = 2\n"}),
		// The user changed it again; a whole Read shows it.
		ccUse("3", "Read", map[string]any{"file_path": "/p/f.ex"}),
		ccResult("3", false, readResult("/p/f.ex", "x = 3\ny = 2\nz = 4\n", 1, 3, 3)),
		ccUse("4", "Edit", map[string]any{"file_path": "/p/f.ex", "old_string": "z = 4", "new_string": "z = 5"}),
		ccResult("4", false, map[string]any{"filePath": "/p/f.ex"}),
	}
	w := claudeCodeWorkspace([]byte(strings.Join(lines, "\n")+"\n"), "/p")
	if len(w.inputs) != 0 {
		t.Errorf("inputs = %+v, want none: the file was first seen being written", w.inputs)
	}
	if got, want := w.current["f.ex"], "x = 3\ny = 2\nz = 5\n"; got != want {
		t.Errorf("final content = %q, want %q", got, want)
	}
	if len(w.skipped) != 0 {
		t.Errorf("skipped = %q, want none", w.skipped)
	}
}

// A file the session wrote, then changed in a way ctx cannot follow (an
// Edit whose old_string is not there, a NotebookEdit), is no output: its
// final content is not known, and none is invented. A later Write makes it
// one again.
func TestClaudeCodeWorkspaceLostOutput(t *testing.T) {
	t.Parallel()
	lines := []string{
		ccUse("1", "Write", map[string]any{"file_path": "/p/a.txt", "content": "v1\n"}),
		ccResult("1", false, map[string]any{"type": "create", "filePath": "/p/a.txt", "content": "v1\n", "originalFile": nil}),
		ccUse("2", "Edit", map[string]any{"file_path": "/p/a.txt", "old_string": "absent", "new_string": "x"}),
		ccResult("2", false, map[string]any{"filePath": "/p/a.txt"}),
		ccUse("3", "Write", map[string]any{"file_path": "/p/n.ipynb", "content": "{}"}),
		ccResult("3", false, map[string]any{"type": "create", "filePath": "/p/n.ipynb", "content": "{}", "originalFile": nil}),
		ccUse("4", "NotebookEdit", map[string]any{"notebook_path": "/p/n.ipynb", "new_source": "x"}),
		ccResult("4", false, map[string]any{}),
		ccUse("5", "Write", map[string]any{"file_path": "/p/n.ipynb", "content": "{\"cells\":[]}"}),
		ccResult("5", false, map[string]any{"type": "update", "filePath": "/p/n.ipynb", "content": "{\"cells\":[]}", "originalFile": nil}),
	}
	w := claudeCodeWorkspace([]byte(strings.Join(lines, "\n")+"\n"), "/p")
	if !reflect.DeepEqual(w.outputs, []string{"n.ipynb"}) || w.current["n.ipynb"] != `{"cells":[]}` {
		t.Errorf("outputs = %q (n.ipynb holds %q), want only n.ipynb as last written", w.outputs, w.current["n.ipynb"])
	}
	if len(w.skipped) != 2 || !strings.HasPrefix(w.skipped[0], "Edit of a.txt: old_string is not in the file") {
		t.Errorf("skipped = %q", w.skipped)
	}
}
