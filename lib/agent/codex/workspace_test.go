package codex

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/manifest"
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
	inputs, outputs, skipped := codexWorkspace([]byte(strings.Join(lines, "\n")+"\n"), "/p").Files()
	if want := []execlog.File{{Name: "src/a.py", Content: execlog.Text("x = 1\nprint(x)\n")}}; !reflect.DeepEqual(inputs, want) {
		t.Errorf("inputs = %+v, want %+v", inputs, want)
	}
	if want := []execlog.Output{{Name: "src/a.py", Content: execlog.Text("x = 2\nprint(x)\n")}, {Name: "src/new.py", Content: execlog.Text("y = 4\n")}}; !reflect.DeepEqual(outputs, want) {
		t.Errorf("outputs = %+v, want %+v", outputs, want)
	}
	if want := []string{
		`command "cat gone.py" exited with code 1; what it printed is not recorded`,
		`command "cat b.py | head": cat: a pipeline is not a plain read; what it printed is not recorded`,
		"apply_patch of unknown.py: the file's content before the patch is not known; its final content is not recorded",
	}; !reflect.DeepEqual(skipped, want) {
		t.Errorf("skipped = %q, want %q", skipped, want)
	}
}

// codexCall is a shell call and its result in the forms Codex has
// recorded them: exec_command's {"cmd": SCRIPT} with a text frame
// ("Process exited with code N"), shell's {"command": [bash, -lc, SCRIPT]}
// with a JSON result, and shell_command's {"command": SCRIPT} with an
// "Exit code:" header.
func codexCall(id, form, script, exit, output string) []string {
	enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	var args, result string
	switch form {
	case "exec_command":
		args = enc(map[string]any{"cmd": script, "workdir": "/p", "yield_time_ms": 1000, "max_output_tokens": 6000})
		result = "Chunk ID: 1a2b3c\nWall time: 0.0100 seconds\nProcess exited with code " + exit + "\nOriginal token count: 12\nOutput:\n" + output
	case "shell":
		args = enc(map[string]any{"command": []string{"bash", "-lc", script}, "workdir": "/p", "timeout_ms": 10000})
		result = `{"output":` + enc(output) + `,"metadata":{"exit_code":` + exit + `,"duration_seconds":0.1}}`
	case "shell_command":
		args = enc(map[string]any{"command": script, "workdir": "/p"})
		result = "Exit code: " + exit + "\nWall time: 0.1 seconds\nOutput:\n" + output
	}
	return []string{
		codexItem(map[string]any{"type": "function_call", "name": form, "call_id": id, "arguments": args}),
		codexItem(map[string]any{"type": "function_call_output", "call_id": id, "output": result}),
	}
}

func codexPatch(id, patch string) []string {
	return []string{
		codexItem(map[string]any{"type": "custom_tool_call", "name": "apply_patch", "call_id": id, "input": patch}),
		codexItem(map[string]any{"type": "custom_tool_call_output", "call_id": id, "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM x\n"}),
	}
}

func TestCodexPartialReads(t *testing.T) {
	t.Parallel()
	const big = "l1\nl2\nl3\nl4\nl5\nl6\nl7\n"
	var lines []string
	add := func(l []string) { lines = append(lines, l...) }
	// Parts of big.go, merged: 1-2, 5-6, 3-4 through nl, and 6-20, which
	// shows the file ends at line 7 with a line break: big.go is then
	// known whole.
	add(codexCall("1", "exec_command", "sed -n '1,2p' big.go", "0", "l1\nl2\n"))
	add(codexCall("2", "shell", "sed -n 5,6p big.go", "0", "l5\nl6\n"))
	add(codexCall("3", "shell_command", "nl -ba big.go | sed -n '3,4p'", "0", "     3\tl3\n     4\tl4\n"))
	add(codexCall("4", "exec_command", "sed -n '6,20p' big.go", "0", "l6\nl7\n"))
	// head of a file shorter than asked, without a final line break:
	// the whole file, byte for byte.
	add(codexCall("5", "exec_command", "head -n 40 short.txt", "0", "a\nb"))
	// sed -n '1,Bp' printing nothing: an empty file.
	add(codexCall("6", "shell", "sed -n '1,50p' empty.txt", "0", ""))
	// nl -ba of a whole file: its lines and length, but not whether its
	// last line ends in a line break.
	add(codexCall("7", "exec_command", "nl -ba n.txt", "0", "     1\tx\n     2\t\n"))
	// A part, then the whole: the whole file.
	add(codexCall("8", "exec_command", "sed -n 2p w.txt", "0", "two\n"))
	add(codexCall("9", "exec_command", "cat w.txt", "0", "one\ntwo\n"))
	// A part, a patch that cannot be applied to what is known, then
	// reads of the patched file: no input change, then known again.
	add(codexCall("10", "exec_command", "head -n 1 p.py", "0", "x = 1\n"))
	add(codexPatch("11", "*** Begin Patch\n*** Update File: p.py\n@@\n-x = 1\n+x = 2\n*** End Patch"))
	add(codexCall("12", "exec_command", "sed -n '1,1p' p.py", "0", "x = 2\n"))
	add(codexCall("13", "exec_command", "cat p.py", "0", "x = 2\ny\n"))
	add(codexPatch("14", "*** Begin Patch\n*** Update File: p.py\n@@\n-y\n+z\n*** End Patch"))
	// A file read whole, patched, then read in part: the lines agree.
	add(codexCall("15", "exec_command", "cat q.py", "0", "a\nb\n"))
	add(codexPatch("16", "*** Begin Patch\n*** Update File: q.py\n@@\n-b\n+c\n*** End Patch"))
	add(codexCall("17", "exec_command", "sed -n '2,9p' q.py", "0", "c\n"))
	// A file written, then changed by a command: its content is lost.
	add(codexPatch("18", "*** Begin Patch\n*** Add File: r.go\n+package  r\n*** End Patch"))
	add(codexCall("19", "exec_command", "gofmt -w r.go", "0", ""))
	add(codexCall("20", "exec_command", "head -n 1 r.go", "0", "package r\n"))
	// Skipped, with reasons.
	add(codexCall("21", "exec_command", "sed -n '1,5p' gone.go", "2", "sed: can't read gone.go: No such file or directory\n"))
	add(codexCall("22", "exec_command", "sed -n '1,5p' big.go | grep l", "0", "l1\n"))
	add(codexCall("23", "exec_command", "sed -n '1,5p' a.go b.go", "0", "a\nb\n"))
	add(codexCall("23b", "exec_command", "cat a.go b.go", "0", "a\nb\n"))
	add(codexCall("24", "exec_command", "sed -n '1,5p' big.go > /tmp/x", "0", ""))
	add(codexCall("25", "exec_command", "nl -ba big.go | sed -n '1,2p'", "0", "1\tl1\n2\tl2\n"))
	add(codexCall("26", "exec_command", "sed -n '1,2p' big.go", "0", "l1\nl2\nl3\n"))
	add(codexCall("27", "exec_command", "sed -n '9,12p' big.go", "0", ""))
	add(codexCall("28", "exec_command", "cat src/*.go", "0", "x\n"))
	add(codexCall("29", "exec_command", "head -n 3 /etc/passwd", "0", "root\n"))
	lines = append(lines,
		codexItem(map[string]any{"type": "function_call", "name": "exec_command", "call_id": "30", "arguments": `{"cmd":"sed -n '1,3p' big.go"}`}),
		codexItem(map[string]any{"type": "function_call_output", "call_id": "30", "output": "Chunk ID: 9\nWall time: 1.0 seconds\nProcess running with session ID 4\nOutput:\nl1\n"}),
		codexItem(map[string]any{"type": "function_call", "name": "shell", "call_id": "31", "arguments": `{"command":["sed","-n","1,3p","big.go"],"workdir":"/p"}`}),
		codexItem(map[string]any{"type": "function_call_output", "call_id": "31", "output": `{"output":"Total output lines: 3\n\nl1\n[... omitted 1 of 3 lines ...]\n","metadata":{"exit_code":0}}`}),
	)
	add(codexCall("33", "exec_command", "cd src && sed -n '1,2p' big.go", "0", "l1\nl2\n"))
	// A file read whole that grew since: the input stays what was read.
	add(codexCall("34", "exec_command", "cat g.txt", "0", "a\n"))
	add(codexCall("35", "exec_command", "sed -n '2,2p' g.txt", "0", "b\n"))
	add(codexCall("36", "exec_command", "cat g.txt", "0", "a\nb\n"))
	// Anything else is no read, and says nothing.
	add(codexCall("32", "exec_command", "go test ./...", "1", "FAIL\n"))

	inputs, outputs, skipped := codexWorkspace([]byte(strings.Join(lines, "\n")+"\n"), "/p").Files()
	want := []execlog.File{
		{Name: "big.go", Content: execlog.Text(big)},
		{Name: "short.txt", Content: execlog.Text("a\nb")},
		{Name: "empty.txt", Content: execlog.Text("")},
		{Name: "n.txt", Content: execlog.Text("x\n\n"), Seen: manifest.SeenPartial, Lines: [][2]int64{{1, 2}}, TotalLines: 2},
		{Name: "w.txt", Content: execlog.Text("one\ntwo\n")},
		{Name: "p.py", Content: execlog.Text("x = 1\n"), Seen: manifest.SeenPartial, Lines: [][2]int64{{1, 1}}},
		{Name: "q.py", Content: execlog.Text("a\nb\n")},
		{Name: "g.txt", Content: execlog.Text("a\n")},
	}
	if !reflect.DeepEqual(inputs, want) {
		t.Errorf("inputs:\n got %+v\nwant %+v", inputs, want)
	}
	if want := []execlog.Output{{Name: "p.py", Content: execlog.Text("x = 2\nz\n")}, {Name: "q.py", Content: execlog.Text("a\nc\n")}}; !reflect.DeepEqual(outputs, want) {
		t.Errorf("outputs = %+v, want %+v", outputs, want)
	}
	wantSkipped := []string{
		"apply_patch of p.py: the file's content before the patch is not known; its final content is not recorded",
		`command "head -n 1 r.go" shows other lines of r.go than the session knew it to hold: it changed in a way the rollout does not show; its content is no longer known`,
		`command "sed -n '1,5p' gone.go" exited with code 2; what it printed is not recorded`,
		`command "sed -n '1,5p' big.go | grep l": sed: a pipeline is not a plain read; what it printed is not recorded`,
		`command "sed -n '1,5p' a.go b.go": sed: sed of several files is not a plain read; what it printed is not recorded`,
		`command "cat a.go b.go" reads 2 files, and its output does not say where each ends; what it printed is not recorded`,
		`command "sed -n '1,5p' big.go > /tmp/x" is not a plain read (splitting "sed -n '1,5p' big.go > /tmp/x": ">" would mean something to a shell, and no shell runs it; quote it or name a script); what it printed is not recorded`,
		`command "nl -ba big.go | sed -n '1,2p'": line 1 printed does not start with its number 1 as nl -ba writes it; what it printed is not recorded`,
		`command "sed -n '1,2p' big.go": 3 lines printed where at most 2 were asked for; what it printed is not recorded`,
		`command "sed -n '9,12p' big.go" printed nothing: big.go has fewer than 9 lines, which a partial input cannot record`,
		`command "cat src/*.go" holds characters a shell would expand; what it printed is not recorded`,
		"head of /etc/passwd: not a file under the working directory",
		`command "sed -n '1,3p' big.go": the result records no exit code; what it printed is not recorded`,
		`command "sed -n 1,3p big.go": Codex shortened its output; what it printed is not recorded`,
		`command "cd src && sed -n '1,2p' big.go" is not a plain read (splitting "cd src && sed -n '1,2p' big.go": "&" would mean something to a shell, and no shell runs it; quote it or name a script); what it printed is not recorded`,
		`command "sed -n '2,2p' g.txt" shows other lines of g.txt than the session knew it to hold: it changed in a way the rollout does not show; its content is no longer known`,
	}
	if !reflect.DeepEqual(skipped, wantSkipped) {
		t.Errorf("skipped:\n got %q\nwant %q", skipped, wantSkipped)
	}
}

// codexWorkspace reads a whole Codex rollout as codexWorkspaceReader does.
func codexWorkspace(data []byte, root string) *importer.Workspace {
	r := newCodexWorkspaceReader(root)
	r.read(data)
	return r.w
}
