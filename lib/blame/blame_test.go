package blame

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/store"
)

// session describes a pack to make: its session id, directory, inputs
// (name → content) and edit steps (tool, parameters), at minute offsets.
type session struct {
	id, cwd string
	created string
	inputs  map[string]string
	partial map[string]string // inputs seen in part: their first lines
	steps   []step
	note    string // more metadata, beside the session's
}

type step struct {
	tool     string
	params   map[string]any
	observed []any // the files the step was seen to change on disk
}

func pack(t testing.TB, s *store.Store, ss session) digest.Digest {
	t.Helper()
	if ss.created == "" {
		ss.created = "2026-01-01T10:00:00Z"
	}
	if ss.cwd == "" {
		ss.cwd = "/home/u/proj"
	}
	log := map[string]any{
		"created":  ss.created,
		"model":    map[string]any{"identifier": "claude-opus-4-5"},
		"prompts":  []any{map[string]any{"role": "user", "content": "do it"}},
		"metadata": map[string]any{"session": map[string]any{"sessionId": ss.id, "cwd": ss.cwd}},
	}
	if ss.note != "" {
		log["metadata"].(map[string]any)["note"] = ss.note
	}
	var inputs []any
	for n, c := range ss.inputs {
		inputs = append(inputs, map[string]any{"name": n, "content": c})
	}
	for n, c := range ss.partial {
		k := len(splitText(c))
		inputs = append(inputs, map[string]any{"name": n, "content": c, "seen": "partial", "lines": [][2]int{{1, k}}})
	}
	if inputs != nil {
		log["inputs"] = inputs
	}
	base := strings.TrimSuffix(ss.created, "Z")
	var steps []any
	for i, st := range ss.steps {
		js := map[string]any{
			"index": i, "type": "tool_call", "tool": st.tool, "parameters": st.params,
			"output": "ok", "deterministic": false,
			"timestamp": fmt.Sprintf("%s.%03dZ", base, i+1),
		}
		if st.observed != nil {
			js["observed"] = st.observed
		}
		steps = append(steps, js)
	}
	log["steps"] = steps
	b, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	l, err := execlog.Parse(b, execlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := l.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	return m.Hash
}

func write(path, content string) step {
	return step{tool: "Write", params: map[string]any{"file_path": path, "content": content}}
}

func replace(path, old, new string) step {
	return step{tool: "Edit", params: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
}

// shell is a Bash step that was seen to change files on disk: each
// name's content after it, "" for a file it deleted, "\x00" for one
// whose content was not kept.
func shell(command string, files ...string) step {
	var obs []any
	for i := 0; i+1 < len(files); i += 2 {
		switch files[i+1] {
		case "":
			obs = append(obs, map[string]any{"name": files[i], "deleted": true})
		case "\x00":
			obs = append(obs, map[string]any{"name": files[i], "skipped": "binary"})
		default:
			obs = append(obs, map[string]any{"name": files[i], "content": files[i+1]})
		}
	}
	return step{tool: "Bash", params: map[string]any{"command": command}, observed: obs}
}

// mustBlame blames file with nothing known of its past.
func mustBlame(t testing.TB, ix *Index, file string, content []byte) []Line {
	t.Helper()
	ls, err := ix.Blame(file, content, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// want is the expected attribution of one line: "-" unknown, "P.S" agent
// (pack number P, step S), "~P.S" mixed, ">P.S" agent found by text,
// "^P.S" agent re-indented.
func describe(ls []Line, packs []digest.Digest) []string {
	num := map[string]int{}
	for i, p := range packs {
		num[p.String()] = i
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		if l.Origin == nil {
			out[i] = "-"
			continue
		}
		mark := ""
		switch {
		case l.By == ByMixed:
			mark = "~"
		case l.Moved:
			mark = ">"
		case l.Reindented:
			mark = "^"
		}
		out[i] = fmt.Sprintf("%s%d.%d", mark, num[l.Origin.Pack], l.Origin.Step)
	}
	return out
}

const hello = "def hello():\n    return 'Hello, World!'\n\n\ndef main():\n    print(hello())\n"

func TestBlame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		sessions []session
		file     string
		current  string
		want     []string
	}{{
		name: "a snapshot's edits that a more complete one recorded are not its own, nor are what they read",
		sessions: []session{
			{id: "s", inputs: map[string]string{"q.txt": "a line the session found in q.txt\n"}, steps: []step{
				replace("q.txt", "a line the session found in q.txt\n", "a line the session found in q.txt\nand one it added\n"),
				write("r.txt", "r\n"), write("t.txt", "t\n")}},
			{id: "s", inputs: map[string]string{"q.txt": "a line the session found in q.txt\n"}, steps: []step{
				replace("q.txt", "a line the session found in q.txt\n", "a line the session found in q.txt\nand one it added\n"),
				write("p.txt", "a line the session found in q.txt\nits own line of p.txt\n")}},
		},
		file:    "p.txt",
		current: "a line the session found in q.txt\nits own line of p.txt\n",
		want:    []string{"1.1", "1.1"},
	}, {
		name: "a shell step changes a line of a file the session read",
		sessions: []session{{id: "a", inputs: map[string]string{"conf.txt": "name = demo\nmode = slow\nlevel = 1\n"},
			steps: []step{shell("sed -i s/slow/fast/ conf.txt", "conf.txt", "name = demo\nmode = fast, warmed up\nlevel = 1\n")}}},
		file:    "conf.txt",
		current: "name = demo\nmode = fast, warmed up\nlevel = 1\n",
		want:    []string{"-", "0.0", "-"},
	}, {
		name: "a generator's file, moved, then changed by a person",
		sessions: []session{{id: "a", steps: []step{
			shell("sh gen.sh", "api.go", "package api\n\nfunc Version() string { return \"1.2.3\" }\nfunc Ping() string { return \"pong\" }\n"),
			shell("mv api.go client.go", "api.go", "", "client.go", "package api\n\nfunc Version() string { return \"1.2.3\" }\nfunc Ping() string { return \"pong\" }\n"),
			shell("echo '// client' >> client.go", "client.go", "package api\n\nfunc Version() string { return \"1.2.3\" }\nfunc Ping() string { return \"pong\" }\n// the client of the API\n"),
		}}},
		file:    "client.go",
		current: "// a person's header line\npackage api\n\nfunc Version() string { return \"1.2.3\" }\nfunc Ping() string { return \"PONG\" }\n// the client of the API\n",
		want:    []string{"-", "0.0", "0.0", "0.0", "~0.0", "0.2"},
	}, {
		name: "content not kept: unknown in place, found by text",
		sessions: []session{{id: "a", steps: []step{
			shell("sh gen.sh", "data.txt", "generated line one\ngenerated line two\n"),
			shell("sh pack.sh", "data.txt", "\x00"),
		}}},
		file:    "data.txt",
		current: "generated line one\na person's line\n",
		want:    []string{">0.0", "-"},
	}, {
		name:     "write then edit, unchanged since",
		sessions: []session{{id: "a", steps: []step{write("hello.py", hello), replace("hello.py", "    print(hello())\n", "    print(hello())\n    print('greeting done here')\n")}}},
		file:     "hello.py",
		current:  hello + "    print('greeting done here')\n",
		want:     []string{"0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "0.1"},
	}, {
		name:     "a person's line, a changed line, a re-indented line",
		sessions: []session{{id: "a", steps: []step{write("hello.py", hello)}}},
		file:     "hello.py",
		current:  "# by a person\ndef hello():\n    return 'Hello, Friend!'\n\n\ndef main():\n        print(hello())\n",
		want:     []string{"-", "0.0", "~0.0", "0.0", "0.0", "0.0", "^0.0"},
	}, {
		name: "a session edits a file a person wrote",
		sessions: []session{{id: "a", inputs: map[string]string{"app.py": "import os\nimport sys\n\nprint(os.getcwd())\n"},
			steps: []step{replace("app.py", "print(os.getcwd())\n", "print(os.getcwd(), sys.argv)\n")}}},
		file:    "app.py",
		current: "import os\nimport sys\n\nprint(os.getcwd(), sys.argv)\n",
		want:    []string{"-", "-", "-", "0.0"},
	}, {
		name: "two sessions, the second edits the first's file after a person did",
		sessions: []session{
			{id: "a", created: "2026-01-01T10:00:00Z", steps: []step{write("lib.go", "package lib\n\nfunc A() int { return 1 }\n")}},
			{id: "b", created: "2026-01-02T10:00:00Z", inputs: map[string]string{"lib.go": "package lib\n\n// A is one.\nfunc A() int { return 1 }\n"},
				steps: []step{replace("lib.go", "func A() int { return 1 }\n", "func A() int { return 1 }\n\nfunc B() int { return 2 }\n")}},
		},
		file:    "lib.go",
		current: "package lib\n\n// A is one.\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n",
		want:    []string{"0.0", "0.0", "-", "0.0", "1.0", "1.0"},
	}, {
		name: "a person changes an agent's line between two sessions",
		sessions: []session{
			{id: "a", created: "2026-01-01T10:00:00Z", steps: []step{write("e.go", "package e\n\nvar ErrGone = errors.New(\"gone away\")\n")}},
			{id: "b", created: "2026-01-02T10:00:00Z", inputs: map[string]string{"e.go": "package e\n\nvar ErrGone = errors.New(\"gone away for good\")\n"},
				steps: []step{replace("e.go", "package e\n", "// Package e errs.\npackage e\n")}},
		},
		file:    "e.go",
		current: "// Package e errs.\npackage e\n\nvar ErrGone = errors.New(\"gone away for good\")\n",
		want:    []string{"1.0", "0.0", "0.0", "~0.0"},
	}, {
		name: "a snapshot and its longer re-pack name the longer one",
		sessions: []session{
			{id: "a", steps: []step{write("x.txt", "first line of x\n")}},
			{id: "a", steps: []step{write("x.txt", "first line of x\n"), replace("x.txt", "first line of x\n", "first line of x\nsecond line of x\n")}},
		},
		file:    "x.txt",
		current: "first line of x\nsecond line of x\n",
		want:    []string{"1.0", "1.1"},
	}, {
		name: "lines a session read in part are not its own",
		sessions: []session{{id: "a", partial: map[string]string{"u.py": "def helper_two():\n    return 'two things'\n"},
			steps: []step{replace("u.py", "def helper_two():\n    return 'two things'\n", "def helper_two():\n    return 'two things'\ndef helper_three():\n")}}},
		file:    "u.py",
		current: "def helper_one():\ndef helper_two():\n    return 'two things'\ndef helper_three():\n",
		want:    []string{"-", "-", "-", ">0.0"},
	}, {
		name:     "a block moved within the file",
		sessions: []session{{id: "a", steps: []step{write("m.py", "def one():\n    return 'one value'\n\ndef two():\n    return 'two value'\n")}}},
		file:     "m.py",
		current:  "def two():\n    return 'two value'\n\ndef one():\n    return 'one value'\n",
		want:     []string{"0.0", "0.0", "0.0", ">0.0", ">0.0"},
	}, {
		name:     "an edit of a file no session saw matches by text",
		sessions: []session{{id: "a", steps: []step{replace("old.c", "int x;\n", "int x;\nint counter_of_things;\n")}}},
		file:     "old.c",
		current:  "int x;\nint counter_of_things;\n",
		want:     []string{"-", ">0.0"},
	}, {
		name:     "a line under 8 characters is not matched by its text, however many bytes",
		sessions: []session{{id: "a", steps: []step{replace("t.txt", "x\n", "x\nça été\nçà et là!\n")}}},
		file:     "t.txt",
		current:  "ça été\nçà et là!\n",
		want:     []string{"-", ">0.0"},
	}, {
		name: "apply_patch with paths under the session's directory",
		sessions: []session{{id: "c", cwd: "/home/u/proj", steps: []step{
			{tool: "apply_patch", params: map[string]any{"input": "*** Begin Patch\n*** Add File: /home/u/proj/src/new.rs\n+fn main() {\n+    println!(\"hi there\");\n+}\n*** End Patch\n"}},
			{tool: "apply_patch", params: map[string]any{"input": "*** Begin Patch\n*** Update File: src/new.rs\n@@\n fn main() {\n     println!(\"hi there\");\n+    println!(\"and again\");\n }\n*** End Patch\n"}},
		}}},
		file:    "src/new.rs",
		current: "fn main() {\n    println!(\"hi there\");\n    println!(\"and again\");\n}\n",
		want:    []string{"0.0", "0.0", "0.1", "0.0"},
	}, {
		name:     "a Windows session's absolute paths",
		sessions: []session{{id: "w", cwd: `C:\Users\u\proj`, steps: []step{write(`c:\Users\u\proj\scripts\x.py`, "print('from windows')\n")}}},
		file:     "scripts/x.py",
		current:  "print('from windows')\n",
		want:     []string{"0.0"},
	}, {
		name:     "a session in a subdirectory of the work tree",
		sessions: []session{{id: "a", steps: []step{write("main.go", "package main\n\nfunc main() {}\n")}}},
		file:     "tools/gen/main.go",
		current:  "package main\n\nfunc main() {}\n",
		want:     []string{"0.0", "0.0", "0.0"},
	}, {
		name:     "a path outside the session's directory is not blamed",
		sessions: []session{{id: "a", steps: []step{write("/etc/hosts.txt", "127.0.0.1 localhost here\n")}}},
		file:     "etc/hosts.txt",
		current:  "127.0.0.1 localhost here\n",
		want:     []string{"-"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _, err := store.Init(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			var ps []digest.Digest
			for _, ss := range tt.sessions {
				ps = append(ps, pack(t, s, ss))
			}
			ix, _, err := New(s, ps)
			if err != nil {
				t.Fatal(err)
			}
			got := describe(mustBlame(t, ix, tt.file, []byte(tt.current)), ps)
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("manifests: got  %v\nwant %v", got, tt.want)
			}
			dir := t.TempDir()
			for run := range 2 { // the file index, made, then read
				ix, err := openLazy(s, dir, ps)
				if err != nil {
					t.Fatal(err)
				}
				got := describe(mustBlame(t, ix, tt.file, []byte(tt.current)), ps)
				if strings.Join(got, " ") != strings.Join(tt.want, " ") {
					t.Errorf("file index, run %d: got  %v\nwant %v", run, got, tt.want)
				}
			}
		})
	}
}

func TestPackLines(t *testing.T) {
	t.Parallel()
	s, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := pack(t, s, session{id: "a", steps: []step{write("a.txt", "alpha line one\nalpha line two\n")}})
	b := pack(t, s, session{id: "b", created: "2026-01-02T00:00:00Z", steps: []step{write("b.txt", "beta line one\n")}})
	ix, _, err := New(s, []digest.Digest{a, b})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ix.PackLines("a.txt", []byte("alpha line one\na person's line\nalpha line two\nbeta line one\n\n"), []int{2, 3, 4, 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[a.String()] != 1 || got[b.String()] != 1 {
		t.Errorf("PackLines = %v", got)
	}
	if ps := SortedPacks(map[string]int{"x": 1, "y": 3, "w": 1}); strings.Join(ps, ",") != "y,w,x" {
		t.Errorf("SortedPacks = %v", ps)
	}
}

func TestRanges(t *testing.T) {
	t.Parallel()
	o1 := &Origin{Pack: "sha256:" + strings.Repeat("a", 64), Step: 1, Tool: "Write"}
	o2 := &Origin{Pack: o1.Pack, Step: 2, Tool: "Edit"}
	ls := []Line{{By: ByUnknown}, {By: ByUnknown}, {By: ByAgent, Origin: o1}, {By: ByAgent, Origin: o1}, {By: ByAgent, Origin: o2}, {By: ByMixed, Origin: o2}}
	var got []string
	for _, r := range Ranges("f", ls) {
		got = append(got, fmt.Sprintf("%d-%d:%s", r.Start, r.End, r.By))
	}
	if want := "1-2:unknown 3-4:agent 5-5:agent 6-6:mixed"; strings.Join(got, " ") != want {
		t.Errorf("Ranges = %v, want %s", got, want)
	}
}

func TestModelID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"claude-opus-4-5": "anthropic/claude-opus-4-5", "gpt-5.4": "openai/gpt-5.4", "o3-mini": "openai/o3-mini",
		"gemini-2.5-pro": "google/gemini-2.5-pro", "openai/gpt-4o": "openai/gpt-4o", "llama3": "llama3", "": "",
		"opus": "opus",
	} {
		if got := ModelID(in); got != want {
			t.Errorf("ModelID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"cat app.py", true},
		{"sed -n '1,40p' app.py | head", true},
		{"app.py", true},
		{"cat src/app.py", false},
		{"cat app.pyc", false},
		{"cat myapp.py", false},
	} {
		if got := inCommand(tc.s, "app.py"); got != tc.want {
			t.Errorf("inCommand(%q, app.py) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
