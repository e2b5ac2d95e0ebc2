package importer

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func codexItem(item map[string]any) string {
	b, _ := json.Marshal(map[string]any{"timestamp": "2025-01-01T00:00:00Z", "type": "response_item", "payload": item})
	return string(b)
}

func TestCodexWorkspace(t *testing.T) {
	t.Parallel()
	args := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	patch := "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x = 1\n+x = 2\n*** Add File: src/new.py\n+y = 3\n*** Update File: unknown.py\n@@\n-a\n+b\n*** End Patch"
	lines := []string{
		codexItem(map[string]any{"type": "function_call", "name": "shell", "call_id": "1",
			"arguments": args(map[string]any{"command": []string{"bash", "-lc", "cat src/a.py"}, "workdir": "/p"})}),
		codexItem(map[string]any{"type": "function_call_output", "call_id": "1",
			"output": args(map[string]any{"output": "x = 1\nprint(x)\n", "metadata": map[string]any{"exit_code": 0, "duration_seconds": 0.1}})}),
		// A failed cat shows nothing.
		codexItem(map[string]any{"type": "function_call", "name": "shell", "call_id": "2",
			"arguments": args(map[string]any{"command": []string{"cat", "gone.py"}, "workdir": "/p"})}),
		codexItem(map[string]any{"type": "function_call_output", "call_id": "2",
			"output": args(map[string]any{"output": "cat: gone.py: No such file or directory\n", "metadata": map[string]any{"exit_code": 1}})}),
		// A read through a pipe is not a plain read.
		codexItem(map[string]any{"type": "function_call", "name": "shell", "call_id": "3",
			"arguments": args(map[string]any{"command": []string{"bash", "-lc", "cat b.py | head"}, "workdir": "/p"})}),
		codexItem(map[string]any{"type": "function_call_output", "call_id": "3", "output": "Exit code: 0\nOutput:\nb\n"}),
		codexItem(map[string]any{"type": "custom_tool_call", "name": "apply_patch", "call_id": "4", "input": patch}),
		codexItem(map[string]any{"type": "custom_tool_call_output", "call_id": "4", "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM src/a.py\nA src/new.py\n"}),
		// A heredoc apply_patch through the shell, after cd.
		codexItem(map[string]any{"type": "function_call", "name": "shell", "call_id": "5",
			"arguments": args(map[string]any{"command": []string{"bash", "-lc", "cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: new.py\n@@\n-y = 3\n+y = 4\n*** End Patch\nEOF"}, "workdir": "/p"})}),
		codexItem(map[string]any{"type": "function_call_output", "call_id": "5",
			"output": args(map[string]any{"output": "Success. Updated the following files:\nM src/new.py\n", "metadata": map[string]any{"exit_code": 0}})}),
	}
	w := codexWorkspace([]byte(strings.Join(lines, "\n")+"\n"), "/p")
	if want := []wsFile{{name: "src/a.py", content: "x = 1\nprint(x)\n"}}; !reflect.DeepEqual(w.inputs, want) {
		t.Errorf("inputs = %+v, want %+v", w.inputs, want)
	}
	var outputs []wsFile
	for _, name := range w.outputs {
		outputs = append(outputs, wsFile{name: name, content: w.current[name]})
	}
	if want := []wsFile{{name: "src/a.py", content: "x = 2\nprint(x)\n"}, {name: "src/new.py", content: "y = 4\n"}}; !reflect.DeepEqual(outputs, want) {
		t.Errorf("outputs = %+v, want %+v", outputs, want)
	}
	if want := []string{
		`command "cat gone.py" exited with code 1; what it printed is not recorded`,
		`command "cat b.py | head": cat: a pipeline is not a plain read; what it printed is not recorded`,
		"apply_patch of unknown.py: the file's content before the patch is not known; its final content is not recorded",
	}; !reflect.DeepEqual(w.skipped, want) {
		t.Errorf("skipped = %q, want %q", w.skipped, want)
	}
}
