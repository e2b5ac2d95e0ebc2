package claudecode

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/manifest"
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
	inputs, outputs, skipped := claudeCodeWorkspace([]byte(strings.Join(lines, "\n")+"\n"), root).Files()
	want := []execlog.File{
		{Name: "a.txt", Content: execlog.Text("one\ntwo\n")},
		{Name: "big.txt", Content: execlog.Text("x\ny\n"), Seen: manifest.SeenPartial, Lines: [][2]int64{{10, 11}}, TotalLines: 50},
		{Name: "src/b.go", Content: execlog.Text("package a\nvar a = 1 + 1\n")},
	}
	if !reflect.DeepEqual(inputs, want) {
		t.Errorf("inputs = %+v, want %+v", inputs, want)
	}
	if want := []execlog.Output{{Name: "new.txt", Content: execlog.Text("v2\n")}, {Name: "src/b.go", Content: execlog.Text("package c\nvar a = 2 + 2\n")}}; !reflect.DeepEqual(outputs, want) {
		t.Errorf("outputs = %+v, want %+v", outputs, want)
	}
	wantSkipped := []string{
		"Read of /etc/hosts: not a file under the working directory",
		"Edit of c.txt: the file's content before the edit is not known; its final content is not recorded",
		"NotebookEdit of n.ipynb: notebook edits are not applied; its final content is not recorded",
	}
	if !reflect.DeepEqual(skipped, wantSkipped) {
		t.Errorf("skipped:\n got %q\nwant %q", skipped, wantSkipped)
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
	inputs, outputs, skipped := claudeCodeWorkspace([]byte(strings.Join(lines, "\n")+"\n"), "/p").Files()
	if len(inputs) != 0 {
		t.Errorf("inputs = %+v, want none: the file was first seen being written", inputs)
	}
	if want := []execlog.Output{{Name: "f.ex", Content: execlog.Text("x = 3\ny = 2\nz = 5\n")}}; !reflect.DeepEqual(outputs, want) {
		t.Errorf("outputs = %+v, want the final content %+v", outputs, want)
	}
	if len(skipped) != 0 {
		t.Errorf("skipped = %q, want none", skipped)
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
	_, outputs, skipped := claudeCodeWorkspace([]byte(strings.Join(lines, "\n")+"\n"), "/p").Files()
	if want := []execlog.Output{{Name: "n.ipynb", Content: execlog.Text(`{"cells":[]}`)}}; !reflect.DeepEqual(outputs, want) {
		t.Errorf("outputs = %+v, want only n.ipynb as last written", outputs)
	}
	if len(skipped) != 2 || !strings.HasPrefix(skipped[0], "Edit of a.txt: old_string is not in the file") {
		t.Errorf("skipped = %q", skipped)
	}
}
