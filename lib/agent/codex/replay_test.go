package codex

import (
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/replay/replaytest"
)

func TestCodexShellReads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	replaytest.Tree(t, dir, map[string]string{
		"a.txt":     "one\ntwo\nthree\n",
		"src/b.go":  "package b\n",
		"src/.hide": "h\n",
		"src/c.txt": "c",
		"notes.md":  "n\n",
		"Zebra.md":  "z\n",
	})
	ws := replaytest.Live(t, dir)
	tools := ReplayTools()
	run := func(tool, params, recorded string) string {
		t.Helper()
		return replaytest.Run(t, ws, tools[tool], tool, params, recorded)
	}
	const json0 = `{"output":"","metadata":{"exit_code":0,"duration_seconds":0.5}}`
	tests := []struct{ name, tool, params, recorded, want string }{
		{"cat via bash -lc", "shell", `{"command":["bash","-lc","cat a.txt"],"workdir":"."}`, json0,
			`{"output":"one\ntwo\nthree\n","metadata":{"exit_code":0,"duration_seconds":0.5}}`},
		{"cat argv", "shell", `{"command":["cat","src/b.go","src/c.txt"]}`, "", "package b\nc"},
		{"workdir", "shell", `{"command":["cat","b.go"],"workdir":"src","timeout_ms":1000}`, "", "package b\n"},
		{"sed -n", "shell_command", `{"command":"sed -n '2,3p' a.txt"}`, "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nold", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\ntwo\nthree\n"},
		{"sed one line", "exec_command", `{"cmd":"sed -n 2p a.txt"}`, "", "two\n"},
		{"head", "shell", `{"command":["sh","-c","head -n 1 a.txt"]}`, "", "one\n"},
		{"head -N", "shell", `{"command":["head","-2","a.txt"]}`, "", "one\ntwo\n"},
		{"nl -ba", "shell", `{"command":["nl","-ba","a.txt"]}`, "", "     1\tone\n     2\ttwo\n     3\tthree\n"},
		{"ls", "shell", `{"command":["ls"]}`, "", "Zebra.md\na.txt\nnotes.md\nsrc\n"},
		{"ls -A dir", "shell", `{"command":["ls","-A","src"]}`, "", ".hide\nb.go\nc.txt\n"},
		{"ls in another order", "shell", `{"command":["ls"]}`, "a.txt\nnotes.md\nsrc\nZebra.md\n", "skip: ls: the same 4 names in another order: ls sorts by the locale's collation, which the pack does not record"},
		{"pipe", "shell", `{"command":["bash","-lc","cat a.txt | wc -l"]}`, "", `skip: shell: not a plain command: splitting "cat a.txt | wc -l": "|" would mean something to a shell, and no shell runs it; quote it or name a script`},
		{"glob", "shell", `{"command":["bash","-lc","cat *.txt"]}`, "", `skip: shell: "cat *.txt" holds characters a shell would expand; only plain commands are replayed`},
		{"other program", "shell", `{"command":["python3","-c","print(1)"]}`, "", "skip: python3 is not one of the read-only commands replayed (cat, sed -n, head, nl -ba, ls, rg)"},
		{"sed script", "shell", `{"command":["sed","-n","s/a/b/p","a.txt"]}`, "", `skip: sed: sed script "s/a/b/p" is not replayed; only plain reads are`},
		{"ls -l", "shell", `{"command":["ls","-l"]}`, "", "skip: ls: option -l is not replayed; only plain reads are"},
		{"outside", "shell", `{"command":["cat","../x"]}`, "", `error: cat: path "../x" leads outside the working directory through ".."; only files inside the working directory are replayed`},
		{"missing file live", "shell", `{"command":["cat","nope"]}`, "", "error: cat: nope: no such file or directory"},
		{"rg", "shell", `{"command":["rg","o"]}`, "", "a.txt:one\na.txt:two\n"},
		{"rg -n in a dir", "shell", `{"command":["bash","-lc","rg -n -i PACKAGE src"]}`, "", "src/b.go:1:package b\n"},
		{"rg one file", "shell", `{"command":["rg","-n","t","a.txt"]}`, "", "2:two\n3:three\n"},
		{"rg -F", "shell", `{"command":["rg","-F","b.","src"]}`, "", ""},
		{"rg --files", "shell", `{"command":["rg","--files","src"]}`, "", "src/b.go\nsrc/c.txt\n"},
		{"rg in another order", "shell", `{"command":["rg","--files","src"]}`, "src/c.txt\nsrc/b.go\n", "skip: rg: the same 2 lines in another order: ripgrep searches files in parallel"},
		{"rg option", "shell", `{"command":["rg","-A","2","x"]}`, "", "skip: rg: option -A is not replayed; only plain reads are"},
		{"recorded failure", "shell", `{"command":["cat","a.txt"]}`, `{"output":"x","metadata":{"exit_code":1}}`, "skip: the recorded command exited with code 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := run(tt.tool, tt.params, tt.recorded); got != tt.want {
				t.Errorf("%s %s:\n got %q\nwant %q", tt.tool, tt.params, got, tt.want)
			}
		})
	}
	ws.Hermetic = true
	if got := run("shell", `{"command":["cat","gone.txt"]}`, ""); got != "skip: cat: gone.txt is not among the pack's inputs" {
		t.Errorf("hermetic missing file: %q", got)
	}
}

// TestCodexShellReadsPartial replays Codex's reads of files the pack holds
// in part: those whose lines are all known, and end in a line break, are
// printed from them; the others skip, saying which line is missing.
func TestCodexShellReadsPartial(t *testing.T) {
	t.Parallel()
	ws := replaytest.Hermetic(t, map[string]string{"a.txt": "one\n"}, map[string]replaytest.Seen{
		"big.go":   {Lines: map[int]string{1: "l1", 2: "l2", 5: "l5", 6: "l6", 7: "l7"}, Total: 7},
		"open.txt": {Lines: map[int]string{2: "b", 3: "c"}},
		"name.go":  {},
	})
	ws.RecordedDir = "/w"
	tools := ReplayTools()
	const frame = "Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\n"
	tests := []struct{ name, params, recorded, want string }{
		{"sed of known lines", `{"cmd":"sed -n '5,6p' big.go"}`, frame + "old\n", frame + "l5\nl6\n"},
		{"sed absolute path", `{"cmd":"sed -n '1,2p' /w/big.go","workdir":"."}`, "", "l1\nl2\n"},
		{"head", `{"command":["bash","-lc","head -n 2 big.go"]}`, "", "l1\nl2\n"},
		{"dot path", `{"cmd":"sed -n '5,6p' ./big.go"}`, "", "l5\nl6\n"},
		{"nl | sed", `{"cmd":"nl -ba big.go | sed -n '5,6p'"}`, "", "     5\tl5\n     6\tl6\n"},
		{"nl | sed to the end", `{"cmd":"nl -ba big.go | sed -n '6,30p'"}`, "", "     6\tl6\n     7\tl7\n"},
		{"nl | head", `{"cmd":"nl -ba big.go | head -n 1"}`, "", "     1\tl1\n"},
		{"sed past the end", `{"cmd":"sed -n '9,12p' big.go"}`, "", ""},
		{"sed of lines unknown", `{"cmd":"sed -n '2,5p' big.go"}`, "", "skip: sed: big.go was seen only in part; line 3 is not in the pack"},
		{"sed to the last line", `{"cmd":"sed -n '6,20p' big.go"}`, "", "skip: sed: big.go was seen only in part; whether its last line ends in a line break is not in the pack"},
		{"length unknown", `{"cmd":"nl -ba open.txt"}`, "", "skip: nl: open.txt was seen only in part, and its length is not known"},
		{"past the known lines", `{"cmd":"sed -n '2,4p' open.txt"}`, "", "skip: sed: open.txt was seen only in part; line 4 is not in the pack"},
		{"within them", `{"cmd":"sed -n '2,3p' open.txt"}`, "", "b\nc\n"},
		{"cat of a part", `{"cmd":"cat big.go"}`, "", "skip: cat: big.go was seen only in part"},
		{"a name", `{"cmd":"head name.go"}`, "", "skip: head: name.go was seen only by name; its content is not in the pack"},
		{"nl into grep", `{"cmd":"nl -ba big.go | grep l1"}`, "", `skip: exec_command: not a plain command: splitting "nl -ba big.go | grep l1": "|" would mean something to a shell, and no shell runs it; quote it or name a script`},
		{"nl | sed of a whole file", `{"cmd":"nl -ba a.txt | sed -n '1,5p'"}`, "", "     1\tone\n"},
		{"sed of several files", `{"command":["sed","-n","1,2p","a.txt","big.go"]}`, "", "skip: sed: sed of several files is not replayed; only plain reads are"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tool := "exec_command"
			if strings.Contains(tt.params, `"command"`) {
				tool = "shell"
			}
			if got := replaytest.Run(t, ws, tools[tool], tool, tt.params, tt.recorded); got != tt.want {
				t.Errorf("%s %s:\n got %q\nwant %q", tool, tt.params, got, tt.want)
			}
		})
	}
}
