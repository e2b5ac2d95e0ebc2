package importer

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
)

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

	w := codexWorkspace([]byte(strings.Join(lines, "\n")+"\n"), "/p")
	want := []wsFile{
		{name: "big.go", content: big},
		{name: "short.txt", content: "a\nb"},
		{name: "empty.txt", content: ""},
		{name: "n.txt", seen: seenPartial, known: map[int]string{1: "x", 2: ""}, total: 2},
		{name: "w.txt", content: "one\ntwo\n"},
		{name: "p.py", seen: seenPartial, known: map[int]string{1: "x = 1"}},
		{name: "q.py", content: "a\nb\n"},
		{name: "g.txt", content: "a\n"},
	}
	if !reflect.DeepEqual(w.inputs, want) {
		t.Errorf("inputs:\n got %+v\nwant %+v", w.inputs, want)
	}
	var outputs []wsFile
	for _, name := range w.outputs {
		outputs = append(outputs, wsFile{name: name, content: w.current[name]})
	}
	if want := []wsFile{{name: "p.py", content: "x = 2\nz\n"}, {name: "q.py", content: "a\nc\n"}}; !reflect.DeepEqual(outputs, want) {
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
	if !reflect.DeepEqual(w.skipped, wantSkipped) {
		t.Errorf("skipped:\n got %q\nwant %q", w.skipped, wantSkipped)
	}
}

// TestCodexReadsFixture imports a rollout whose file reads take the forms
// Codex records (exec_command with a text frame, shell with a JSON
// result): three reads cover src/parse.go to its end, so it is known
// whole and its patch gives an output; two reads of docs/notes.md make a
// partial input of two ranges; go.mod, shorter than head asked, is whole;
// a failed read is named.
func TestCodexReadsFixture(t *testing.T) {
	t.Parallel()
	const path = "testdata/codex/reads.jsonl"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := Import(Codex, data, Options{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/codex/reads.golden.json", canon.Indent(out))
	l, err := execlog.Parse(out, execlog.Options{})
	if err != nil {
		t.Fatalf("ctx-pack would reject the log: %v", err)
	}
	var got []string
	for _, in := range l.Inputs {
		got = append(got, fmt.Sprintf("%s %q %v %d", in.Name, in.Seen, in.Lines, in.TotalLines))
	}
	want := []string{`src/parse.go "" [] 0`, `docs/notes.md "partial" [[1 3] [10 12]] 0`, `go.mod "" [] 0`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("inputs = %q, want %q", got, want)
	}
	wantWarnings := []string{
		`command "sed -n '1,40p' src/parse_test.go" exited with code 2; what it printed is not recorded`,
	}
	if got := gjson.GetBytes(out, `outputs.#(name=="src/parse.go").content`).String(); !strings.Contains(got, "\t\t\tout = append(out, f)\n") || !strings.HasPrefix(got, "package parse\n") {
		t.Errorf("output src/parse.go = %q, want the file as patched", got)
	}
	if !reflect.DeepEqual(rep.Warnings, wantWarnings) {
		t.Errorf("warnings:\n got %q\nwant %q", rep.Warnings, wantWarnings)
	}
}

// codexWorkspace reads a whole Codex rollout as codexWorkspaceReader does.
func codexWorkspace(data []byte, root string) *Workspace {
	r := newCodexWorkspaceReader(root)
	r.read(data)
	return r.w
}
