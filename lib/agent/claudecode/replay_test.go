package claudecode

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/replay/replaytest"
)

var projectTree = map[string]string{
	"README.md":            "# demo\nhello world\n",
	"src/main.go":          "package main\n\n// hello\nfunc main() {\n\tprintln(\"Hello\")\n}\n",
	"src/util/strings.go":  "package util\n// hello again\n",
	"src/util/data.bin":    "hello\x00binary\n",
	".hidden/x.go":         "package x // hello\n",
	"__pycache__/m.pyc":    "x",
	".git/config":          "hello\n",
	"docs/a.md":            "alpha\nbeta\ngamma\ndelta\nepsilon\n",
	"empty.txt":            "",
	"src/long.txt":         string(bytes.Repeat([]byte("x"), 600)) + "\n",
	"src/util/deep/z.go":   "package deep\n",
	"src/util/deep/z_test": "hello\n",
}

// runClaude runs Claude Code's tool on params in ws, with recorded as the
// step's recorded output, and returns the output, "skip: reason" or
// "error: message".
func runClaude(t *testing.T, ws *replay.Workspace, tool, params, recorded string) string {
	t.Helper()
	return replaytest.Run(t, ws, ReplayTools()[tool], tool, params, recorded)
}

func TestClaudeCodeTools(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	replaytest.Tree(t, dir, projectTree)
	// Modification times, oldest first: docs/a.md, src/main.go, README.md;
	// the rest at the same, older time.
	old := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return err
	})
	for i, name := range []string{"docs/a.md", "src/main.go", "README.md"} {
		ts := old.Add(time.Duration(i+1) * time.Hour)
		if err := os.Chtimes(filepath.Join(dir, name), ts, ts); err != nil {
			t.Fatal(err)
		}
	}
	ws := replaytest.Live(t, dir)
	tests := []struct {
		name, tool, params, recorded, want string
	}{
		{"read", "Read", `{"file_path":"README.md"}`, "", "     1→# demo\n     2→hello world\n     3→"},
		{"read keeps the recorded reminder", "Read", `{"file_path":"README.md","limit":1}`, "whatever" + ReadReminders[1], "     1→# demo" + ReadReminders[1]},
		{"read offset", "Read", `{"file_path":"docs/a.md","offset":4,"limit":1}`, "", "     4→delta"},
		{"read in the tab form the recording shows", "Read", `{"file_path":"README.md"}`, "1\t# other\n2\tx", "1\t# demo\n2\thello world\n3\t"},
		{"read in the padded tab form", "Read", `{"file_path":"docs/a.md","offset":4,"limit":1}`, "     9\tx", "     4\tdelta"},
		{"read empty", "Read", `{"file_path":"empty.txt"}`, "", "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"},
		{"read missing", "Read", `{"file_path":"nope"}`, "", "error: Read: nope: no such file or directory"},
		{"read outside", "Read", `{"file_path":"../x"}`, "", `error: Read: path "../x" leads outside the working directory through ".."; only files inside the working directory are replayed`},
		{"read pdf pages", "Read", `{"file_path":"a.pdf","pages":"1-2"}`, "", `skip: Read: pages "1-2" reads a PDF, which is not rendered`},
		{"read unknown parameter", "Read", `{"file_path":"README.md","encoding":"x"}`, "", `error: Read: unsupported parameter "encoding"; give an executor with --tool to replay this step`},

		{"glob oldest first", "Glob", `{"pattern":"**/*.md"}`, "", "docs/a.md\nREADME.md"},
		{"glob name at any depth", "Glob", `{"pattern":"*.go"}`, "", ".hidden/x.go\nsrc/util/deep/z.go\nsrc/util/strings.go\nsrc/main.go"},
		{"glob anchored", "Glob", `{"pattern":"src/*.go"}`, "", "src/main.go"},
		{"glob in path", "Glob", `{"pattern":"**/*.go","path":"src/util"}`, "", "src/util/deep/z.go\nsrc/util/strings.go"},
		{"glob none", "Glob", `{"pattern":"*.rs"}`, "", "No files found"},

		{"grep files newest first", "Grep", `{"pattern":"hello"}`, "", "Found 5 files\nREADME.md\nsrc/main.go\n.hidden/x.go\nsrc/util/deep/z_test\nsrc/util/strings.go"},
		{"grep files glob", "Grep", `{"pattern":"hello","glob":"*.go"}`, "", "Found 3 files\nsrc/main.go\n.hidden/x.go\nsrc/util/strings.go"},
		{"grep files type", "Grep", `{"pattern":"package","type":"go","path":"src"}`, "", "Found 3 files\nsrc/main.go\nsrc/util/deep/z.go\nsrc/util/strings.go"},
		{"grep none", "Grep", `{"pattern":"nothing here"}`, "", "No files found"},
		{"grep content", "Grep", `{"pattern":"hello","output_mode":"content","path":"src"}`, "", "src/main.go:3:// hello\nsrc/util/deep/z_test:1:hello\nsrc/util/strings.go:2:// hello again"},
		{"grep content single file", "Grep", `{"pattern":"a$","output_mode":"content","path":"docs/a.md","-n":false}`, "", "alpha\nbeta\ngamma\ndelta"},
		{"grep context", "Grep", `{"pattern":"gamma|epsilon","output_mode":"content","path":"docs","-B":1}`, "", "docs/a.md-2-beta\ndocs/a.md:3:gamma\ndocs/a.md-4-delta\ndocs/a.md:5:epsilon"},
		{"grep context groups", "Grep", `{"pattern":"^(alpha|epsilon)$","output_mode":"content","path":"docs/a.md","-C":1}`, "", "1:alpha\n2-beta\n--\n4-delta\n5:epsilon"},
		{"grep ignore case", "Grep", `{"pattern":"HELLO\\\"","output_mode":"content","-i":true,"path":"src/main.go"}`, "", "5:\tprintln(\"Hello\")"},
		{"grep count", "Grep", `{"pattern":"a","output_mode":"count","path":"docs"}`, "", "docs/a.md:4\n\nFound 4 total occurrences across 1 file."},
		{"grep head limit", "Grep", `{"pattern":"a","output_mode":"content","path":"docs","head_limit":2}`, "", "docs/a.md:1:alpha\ndocs/a.md:2:beta\n\n[Showing results with pagination = limit: 2]"},
		{"grep long line", "Grep", `{"pattern":"x","output_mode":"content","path":"src/long.txt"}`, "", "skip: Grep: line 1 of src/long.txt is longer than 500 bytes, which ripgrep omits with a notice that is not rendered"},
		{"grep long line listed", "Grep", `{"pattern":"xxx","path":"src"}`, "", "Found 1 file\nsrc/long.txt"},
		{"grep multiline", "Grep", `{"pattern":"a","multiline":true}`, "", "skip: Grep: multiline search is not rendered"},
		{"grep unknown type", "Grep", `{"pattern":"a","type":"cobol"}`, "", `skip: Grep: file type "cobol" is not rendered`},

		{"ls", "LS", `{"path":"."}`, "", "- ./\n  - README.md\n  - docs/\n    - a.md\n  - empty.txt\n  - src/\n    - long.txt\n    - main.go\n    - util/\n      - data.bin\n      - deep/\n        - z.go\n        - z_test\n      - strings.go\n\nNOTE: do any of the files above seem malicious? If so, you MUST refuse to continue work."},
		{"ls sub ignore", "LS", `{"path":"src/util","ignore":["*.bin"]}`, "", "- ./\n  - src/\n    - util/\n      - deep/\n        - z.go\n        - z_test\n      - strings.go\n\nNOTE: do any of the files above seem malicious? If so, you MUST refuse to continue work."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runClaude(t, ws, tt.tool, tt.params, tt.recorded); got != tt.want {
				t.Errorf("%s %s:\n got %q\nwant %q", tt.tool, tt.params, got, tt.want)
			}
		})
	}
	// An .ignore file would change what ripgrep searches.
	replaytest.Tree(t, dir, map[string]string{"docs/.ignore": "a.md\n"})
	if got := runClaude(t, ws, "Grep", `{"pattern":"a","path":"docs"}`, ""); got != "skip: Grep: ripgrep would apply the ignore rules of docs/.ignore, which are not rendered" {
		t.Errorf("ignore file: %q", got)
	}
}

// TestClaudeCodeHermetic checks what a workspace made of the pack's inputs
// can and cannot know: files seen by name are listed, files seen in part
// are read where their lines are known, and an order that depends on
// modification times is not claimed.
func TestClaudeCodeHermetic(t *testing.T) {
	t.Parallel()
	ws := replaytest.Hermetic(t, map[string]string{"a.go": "package a // hello\n", "b.go": "package b // hello\n"}, map[string]replaytest.Seen{
		"lib/c.go": {},
		"d.txt":    {Lines: map[int]string{3: "three", 4: "four"}, Total: 5},
	})
	ws.RecordedDir = "/w"
	tests := []struct {
		name, tool, params, recorded, want string
	}{
		{"glob lists names", "Glob", `{"pattern":"**/*.go"}`, "", "/w/a.go\n/w/b.go\n/w/lib/c.go"},
		{"glob order unknown", "Glob", `{"pattern":"*.go"}`, "/w/b.go\n/w/lib/c.go\n/w/a.go", "skip: the same 3 entries in another order: Glob lists files oldest first, and the pack does not record modification times"},
		{"glob other files diverge", "Glob", `{"pattern":"*.go"}`, "/w/b.go\n/w/a.go", "/w/a.go\n/w/b.go\n/w/lib/c.go"},
		{"read name only", "Read", `{"file_path":"lib/c.go"}`, "", "skip: Read: lib/c.go was seen only by name; its content is not in the pack"},
		{"read known lines", "Read", `{"file_path":"d.txt","offset":3,"limit":2}`, "", "     3→three\n     4→four"},
		{"read unknown lines", "Read", `{"file_path":"d.txt","offset":2,"limit":2}`, "", "skip: Read: d.txt was seen only in part; line 2 is not in the pack"},
		{"glob listing a file not in the pack", "Glob", `{"pattern":"**/*.go"}`, "/w/a.go\n/w/b.go\n/w/lib/c.go\n/w/lib/e.go", "skip: Glob: the recorded result names lib/e.go, which is not among the pack's inputs"},
		{"glob listing files it knows", "Glob", `{"pattern":"**/*.go"}`, "/w/a.go\n/w/lib/c.go", "/w/a.go\n/w/b.go\n/w/lib/c.go"},
		{"grep files relative", "Grep", `{"pattern":"hello","glob":"[ab].go"}`, "Found 1 file\na.go", "Found 2 files\na.go\nb.go"},
		{"grep files unrecorded", "Grep", `{"pattern":"hello","glob":"[ab].go"}`, "", "Found 2 files\na.go\nb.go"},
		{"grep files naming a file not in the pack", "Grep", `{"pattern":"hello","glob":"[ab].go"}`, "Found 2 files\n.beads/x.jsonl\na.go", "skip: Grep: the recorded result names .beads/x.jsonl, which is not among the pack's inputs"},
		{"grep a file not in the pack", "Grep", `{"pattern":"x","path":"src/nowhere.css"}`, "", "skip: Grep: src/nowhere.css is not among the pack's inputs"},
		{"read a file not in the pack", "Read", `{"file_path":"src/nowhere.go"}`, "", "skip: Read: src/nowhere.go is not among the pack's inputs"},
		{"read outside the working directory", "Read", `{"file_path":"/tmp/task.output"}`, "", "skip: Read: /tmp/task.output is outside the recorded working directory /w; the pack holds only files under it"},
		{"read to the end", "Read", `{"file_path":"d.txt","offset":3}`, "", "skip: Read: d.txt was seen only in part; line 5 is not in the pack"},
		{"grep over a name", "Grep", `{"pattern":"hello"}`, "", "skip: Grep: d.txt was seen only in part, so what it holds is not known"},
		{"glob absolute pattern", "Glob", `{"pattern":"/w/lib/*.go"}`, "", "/w/lib/c.go"},
		{"glob absolute pattern without wildcard", "Glob", `{"pattern":"/w/a.go"}`, "", "/w/a.go"},
		{"glob absolute pattern elsewhere", "Glob", `{"pattern":"/etc/*.conf"}`, "", `error: Glob: pattern: path "/etc" is absolute, outside the recorded working directory; only files inside the working directory are replayed`},
		{"grep a directory of names", "Grep", `{"pattern":"x","path":"lib"}`, "", "skip: Grep: the files under lib were seen only by name or in part, so what they hold is not known"},
		{"grep beside it", "Grep", `{"pattern":"hello","glob":"[ab].go"}`, "Found 2 files\n/w/a.go\n/w/b.go", "Found 2 files\n/w/a.go\n/w/b.go"},
		// Claude Code prints a matching line's path relative to its
		// working directory, a context line's as ripgrep gave it; older
		// versions printed both absolute, newer ones both relative: the
		// recorded output chooses among these.
		{"grep content", "Grep", `{"pattern":"hello","glob":"[ab].go","output_mode":"content"}`, "", "a.go:1:package a // hello\nb.go:1:package b // hello"},
		{"grep content recorded absolute", "Grep", `{"pattern":"hello","glob":"[ab].go","output_mode":"content"}`, "/w/a.go:1:x\n/w/b.go:1:y", "/w/a.go:1:package a // hello\n/w/b.go:1:package b // hello"},
		{"ls lists names", "LS", `{}`, "", "- /w/\n  - a.go\n  - b.go\n  - d.txt\n  - lib/\n    - c.go\n\nNOTE: do any of the files above seem malicious? If so, you MUST refuse to continue work."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := runClaude(t, ws, tt.tool, tt.params, tt.recorded); got != tt.want {
				t.Errorf("%s %s:\n got %q\nwant %q", tt.tool, tt.params, got, tt.want)
			}
		})
	}
}

// A context line keeps the path ripgrep printed (absolute under a recorded
// working directory) unless the recording shows Claude Code shortening
// context lines too; a matching line's path is shortened unless the
// recording shows it absolute.
func TestGrepPrefixes(t *testing.T) {
	t.Parallel()
	ws := &replay.Workspace{RecordedDir: "/w"}
	tests := []struct{ recorded, match, context string }{
		{"", "d/a.go", "/w/d/a.go"},
		{"d/a.go:2:x\n/w/d/a.go-3-y", "d/a.go", "/w/d/a.go"},
		{"d/a.go-1-w\nd/a.go:2:x", "d/a.go", "d/a.go"},
		{"/w/d/a.go:2:x\n/w/d/a.go-3-y", "/w/d/a.go", "/w/d/a.go"},
	}
	for _, tt := range tests {
		m, c := grepPrefixes(ws, "d/a.go", []byte(tt.recorded))
		if m != tt.match || c != tt.context {
			t.Errorf("recorded %q: prefixes %q, %q; want %q, %q", tt.recorded, m, c, tt.match, tt.context)
		}
	}
	text := [][]byte{[]byte("w"), []byte("x"), []byte("y")}
	got, err := rgContext(text, []int{1}, "d/a.go", "/w/d/a.go", false, true, 1, 1, false)
	if want := []string{"/w/d/a.go-1-w", "d/a.go:2:x", "/w/d/a.go-3-y"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("rgContext = %q, %v; want %q", got, err, want)
	}
}

// replayed replays a pack of inputs and steps, recorded in env, with
// Claude Code's tools and its answers to edits, as ctx-replay does.
func replayed(t *testing.T, inputs map[string]string, steps []replaytest.Step, env manifest.Environment) *replay.Report {
	t.Helper()
	s, m := replaytest.Pack(t, inputs, steps, env)
	rep, err := replay.Run(context.Background(), s, m, replay.Options{TempDir: t.TempDir(), Agents: ReplayTools(), Edits: EditAnswerers()})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

var here = manifest.Environment{OS: runtime.GOOS, Runtime: runtime.Version()}

// Claude Code's tools replayed whole: matched, skipped outside the working
// directory, and without drift when the recorded version is theirs.
func TestReplayStatuses(t *testing.T) {
	t.Parallel()
	hashOf := func(s string) string { return digest.Of([]byte(s)).String() }
	env := here
	env.ToolVersions = map[string]string{"Glob": ReplayVersion, "Grep": "claude-code-1.0"}
	rep := replayed(t, map[string]string{"src/main.py": "print('hi')\n"}, []replaytest.Step{
		{Tool: "Glob", Params: `{"pattern":"**/*.py"}`, Out: "src/main.py", Det: true},
		{Tool: "Glob", Params: `{"pattern":"*.md","path":"~/.claude/commands"}`, Out: "No files found", Det: true},
		{Tool: "Grep", Params: `{"pattern":"hi"}`, Out: "Found 1 file\nsrc/main.py", Det: true},
	}, env)
	type brief struct {
		Status           replay.Status
		Expected, Actual string
		Reason           string
	}
	var got []brief
	for _, s := range rep.Steps {
		got = append(got, brief{s.Status, s.Expected, s.Actual, s.Reason})
	}
	want := []brief{
		{replay.Matched, hashOf("src/main.py"), hashOf("src/main.py"), ""},
		{replay.Skipped, hashOf("No files found"), "", `Glob: path "~/.claude/commands" is under a home directory (~), outside the recorded working directory; only files inside the working directory are replayed`},
		{replay.Matched, hashOf("Found 1 file\nsrc/main.py"), hashOf("Found 1 file\nsrc/main.py"), ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("steps:\n got %+v\nwant %+v", got, want)
	}
	wantDrift := []replay.Drift{{Type: replay.DriftToolVersion, Tool: "Grep", Expected: "claude-code-1.0", Actual: ReplayVersion}}
	if !reflect.DeepEqual(rep.Drift, wantDrift) {
		t.Errorf("drift:\n got %+v\nwant %+v", rep.Drift, wantDrift)
	}
}

// A Glob of a directory the pack does not hold says nothing about the
// session: skipped, never failed.
func TestGlobOfDirectoryNotInPack(t *testing.T) {
	t.Parallel()
	rep := replayed(t, map[string]string{"src/a.go": "package a\n"}, []replaytest.Step{
		{Tool: "Glob", Params: `{"pattern":"**/*.go","path":"vendor/lib"}`, Out: "No files found", Det: true},
		{Tool: "Glob", Params: `{"pattern":"*.go","path":"src"}`, Out: "src/a.go", Det: true},
	}, here)
	if r := rep.Steps[0]; r.Status != replay.Skipped || r.Reason != "Glob: vendor/lib is not among the pack's inputs" {
		t.Errorf("step 0: %s (%s)", r.Status, r.Reason)
	}
	if r := rep.Steps[1]; r.Status != replay.Matched {
		t.Errorf("step 1: %s (%s)", r.Status, r.Reason)
	}
}
