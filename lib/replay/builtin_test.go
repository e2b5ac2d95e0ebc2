package replay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/internal/testsys"
)

// tree writes files (name → content) under dir; a content starting with
// "->" makes a symbolic link to the rest.
func tree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func liveWorkspace(t *testing.T, dir string) *Workspace {
	t.Helper()
	ws, err := OpenLive(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// runTool runs the executor for tool on params in ws and returns the
// output, or the error text prefixed with "error: ".
func runTool(t *testing.T, ws *Workspace, tool, params string) string {
	t.Helper()
	ex := Lookup(tool, nil, nil)
	if ex == nil {
		t.Fatalf("no executor for %s", tool)
	}
	var out bytes.Buffer
	var p jsontext.Value
	if params != "" {
		p = jsontext.Value(params)
	}
	if err := ex.Run(context.Background(), &Call{Tool: tool, Parameters: p, Workspace: ws}, &out); err != nil {
		return "error: " + err.Error()
	}
	return out.String()
}

var sampleTree = map[string]string{
	"README.md":           "# demo\nhello world\n",
	"src/main.go":         "package main\n\nfunc main() {\n\tprintln(\"Hello\")\n}\n",
	"src/util/strings.go": "package util\n// hello again\n",
	"src/util/data.bin":   "hello\x00binary\n",
	"src/notes.txt":       "no newline at end, hello",
	"docs/a.md":           "alpha\n",
	"docs/b.txt":          "beta\n",
	".git/config":         "hello from git\n",
	"empty.txt":           "",
}

func TestBuiltins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tree(t, dir, sampleTree)
	ws := liveWorkspace(t, dir)
	tests := []struct {
		name, tool, params, want string
	}{
		{"read path", "read_file", `{"path":"README.md"}`, "# demo\nhello world\n"},
		{"read file_path", "read_file", `{"file_path":"src/main.go"}`, sampleTree["src/main.go"]},
		{"read filename", "read_file", `{"filename":"./docs/../docs/a.md"}`, "error: read_file: path \"./docs/../docs/a.md\" leads outside the working directory through \"..\"; only files inside the working directory are replayed"},
		{"read dot slash", "read_file", `{"filename":"./docs/a.md"}`, "alpha\n"},
		{"read alias list_directory", "list_directory", `{"path":"docs"}`, "a.md\nb.txt\n"},
		{"read empty file", "read_file", `{"path":"empty.txt"}`, ""},
		{"read binary raw", "read_file", `{"path":"src/util/data.bin"}`, "hello\x00binary\n"},
		{"read spellings agree", "read_file", `{"path":"docs/a.md","file_path":"docs/a.md"}`, "alpha\n"},
		{"read spellings disagree", "read_file", `{"path":"docs/a.md","file_path":"docs/b.txt"}`, "error: read_file: parameters path and file_path disagree"},
		{"read offset", "read_file", `{"path":"src/main.go","offset":3}`, "func main() {\n\tprintln(\"Hello\")\n}\n"},
		{"read offset limit", "read_file", `{"path":"src/main.go","offset":3,"limit":1}`, "func main() {\n"},
		{"read limit", "read_file", `{"path":"src/main.go","limit":2}`, "package main\n\n"},
		{"read limit zero", "read_file", `{"path":"src/main.go","limit":0}`, ""},
		{"read offset past end", "read_file", `{"path":"src/main.go","offset":99}`, ""},
		{"read last line without newline", "read_file", `{"path":"src/notes.txt","offset":1,"limit":5}`, "no newline at end, hello"},
		{"read no path", "read_file", `{}`, "error: read_file: no path parameter (path, file_path or filename)"},
		{"read no params", "read_file", ``, "error: read_file: no path parameter (path, file_path or filename)"},
		{"read params not object", "read_file", `["README.md"]`, "error: read_file: parameters are an array, not an object"},
		{"read path not string", "read_file", `{"path":7}`, "error: read_file: parameter path: want a string, got 7"},
		{"read negative offset", "read_file", `{"path":"README.md","offset":-1}`, "error: read_file: parameter offset: want a non-negative integer, got -1"},
		{"read unknown param", "read_file", `{"path":"README.md","encoding":"latin1"}`, `error: read_file: unsupported parameter "encoding"; give an executor with --tool to replay this step`},
		{"read missing", "read_file", `{"path":"nope.txt"}`, "error: read_file: nope.txt: no such file or directory"},
		{"read directory", "read_file", `{"path":"src"}`, "error: read_file: src is a directory"},
		{"read absolute", "read_file", `{"path":"` + filepath.Join(dir, "README.md") + `"}`, `error: read_file: path "` + filepath.Join(dir, "README.md") + `" is absolute, outside the recorded working directory; only files inside the working directory are replayed`},
		{"read dotdot", "read_file", `{"path":"../secret"}`, `error: read_file: path "../secret" leads outside the working directory through ".."; only files inside the working directory are replayed`},
		{"read empty path", "read_file", `{"path":""}`, `error: read_file: path is empty`},

		{"ls root", "list_dir", `{}`, ".git/\nREADME.md\ndocs/\nempty.txt\nsrc/\n"},
		{"ls sub", "list_dir", `{"path":"src"}`, "main.go\nnotes.txt\nutil/\n"},
		{"ls ignore", "list_dir", `{"path":"docs","ignore":["*.txt"]}`, "a.md\n"},
		{"ls file", "list_dir", `{"path":"README.md"}`, "error: list_dir: README.md: not a directory"},
		{"ls dotdot", "list_dir", `{"path":".."}`, `error: list_dir: path ".." leads outside the working directory through ".."; only files inside the working directory are replayed`},
		{"ls bad ignore", "list_dir", `{"ignore":["["]}`, `error: list_dir: ignore pattern "[": syntax error in pattern`},

		{"glob star", "glob", `{"pattern":"*.md"}`, "README.md\n"},
		{"glob doublestar", "glob", `{"pattern":"**/*.go"}`, "src/main.go\nsrc/util/strings.go\n"},
		{"glob braces", "glob", `{"pattern":"docs/*.{md,txt}"}`, "docs/a.md\ndocs/b.txt\n"},
		{"glob base path", "glob", `{"pattern":"**/*.go","path":"src/util"}`, "src/util/strings.go\n"},
		{"glob doublestar everything skips .git", "glob", `{"pattern":"**"}`, "README.md\ndocs/a.md\ndocs/b.txt\nempty.txt\nsrc/main.go\nsrc/notes.txt\nsrc/util/data.bin\nsrc/util/strings.go\n"},
		{"glob no match", "glob", `{"pattern":"*.rs"}`, ""},
		{"glob no pattern", "glob", `{}`, "error: glob: no pattern parameter"},
		{"glob escaping pattern", "glob", `{"pattern":"../*"}`, `error: glob: pattern: path "../*" leads outside the working directory through ".."; only files inside the working directory are replayed`},
		{"glob absolute path", "glob", `{"pattern":"*","path":"/etc"}`, `error: glob: path "/etc" is absolute, outside the recorded working directory; only files inside the working directory are replayed`},

		{"grep content", "grep", `{"pattern":"hello"}`, "README.md:2:hello world\nsrc/notes.txt:1:no newline at end, hello\nsrc/util/strings.go:2:// hello again\n"},
		{"grep ignore case no numbers", "grep", `{"pattern":"HELLO","-i":true,"-n":false,"path":"src"}`, "src/main.go:\tprintln(\"Hello\")\nsrc/notes.txt:no newline at end, hello\nsrc/util/strings.go:// hello again\n"},
		{"grep files", "grep", `{"pattern":"hello","output_mode":"files_with_matches"}`, "README.md\nsrc/notes.txt\nsrc/util/strings.go\n"},
		{"grep content in a directory", "grep", `{"pattern":"l","output_mode":"content","path":"docs"}`, "docs/a.md:1:alpha\n"},
		{"grep count counts lines", "grep", `{"pattern":"i","output_mode":"count","path":"src/main.go"}`, "src/main.go:3\n"},
		{"grep glob filter", "grep", `{"pattern":"hello","glob":"*.go"}`, "src/util/strings.go:2:// hello again\n"},
		{"grep glob filter with slash", "grep", `{"pattern":"a","glob":"docs/*.txt"}`, "docs/b.txt:1:beta\n"},
		{"grep single file", "grep", `{"pattern":"^func","path":"src/main.go"}`, "src/main.go:3:func main() {\n"},
		{"grep head limit", "grep", `{"pattern":"hello","head_limit":1}`, "README.md:2:hello world\n"},
		{"grep bad regexp", "grep", `{"pattern":"("}`, "error: grep: pattern: error parsing regexp: missing closing ): `(`"},
		{"grep bad mode", "grep", `{"pattern":"a","output_mode":"json"}`, `error: grep: output_mode "json" is not content, files_with_matches or count`},
		{"grep unsupported context", "grep", `{"pattern":"a","-C":2}`, `error: grep: unsupported parameter "-C"; give an executor with --tool to replay this step`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := runTool(t, ws, tt.tool, tt.params); got != tt.want {
				t.Errorf("%s %s:\n got %q\nwant %q", tt.tool, tt.params, got, tt.want)
			}
		})
	}
}

// TestConfinement places a file just outside the workspace and tries every
// way out: none may read it.
func TestConfinement(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	parent := t.TempDir()
	const secret = "TOP SECRET just outside the workspace\n"
	tree(t, parent, map[string]string{
		"secret.txt":    secret,
		"other/x.txt":   "other\n",
		"ws/inside.txt": "inside\n",
		"ws/up":         "->../secret.txt",
		"ws/abs":        "->" + filepath.Join(parent, "secret.txt"),
		"ws/updir":      "->..",
		"ws/sub/deep":   "->../../other",
		"ws/ok":         "->inside.txt",
	})
	ws := liveWorkspace(t, filepath.Join(parent, "ws"))
	escapes := []struct{ tool, params string }{
		{"read_file", `{"path":"../secret.txt"}`},
		{"read_file", `{"path":"sub/../../secret.txt"}`},
		{"read_file", `{"path":"` + filepath.Join(parent, "secret.txt") + `"}`},
		{"read_file", `{"path":"up"}`},
		{"read_file", `{"path":"abs"}`},
		{"read_file", `{"path":"updir/secret.txt"}`},
		{"read_file", `{"path":"sub/deep/x.txt"}`},
		{"list_dir", `{"path":"updir"}`},
		{"list_dir", `{"path":"../"}`},
		{"glob", `{"pattern":"*","path":"updir"}`},
		{"grep", `{"pattern":"SECRET","path":"up"}`},
		{"grep", `{"pattern":"SECRET","path":"updir"}`},
		{"grep", `{"pattern":"SECRET","path":".."}`},
	}
	for _, e := range escapes {
		got := runTool(t, ws, e.tool, e.params)
		if !strings.HasSuffix(got, "leads outside the workspace") && !strings.HasSuffix(got, "only files inside the working directory are replayed") || strings.Contains(got, "SECRET") || strings.Contains(got, "other") {
			t.Errorf("%s %s escaped the workspace: %q", e.tool, e.params, got)
		}
	}
	// Links that stay inside work; walks list links but do not follow them.
	if got := runTool(t, ws, "read_file", `{"path":"ok"}`); got != "inside\n" {
		t.Errorf("read_file through an inner link: %q", got)
	}
	if got := runTool(t, ws, "grep", `{"pattern":"SECRET|other"}`); got != "" {
		t.Errorf("grep over the workspace found %q", got)
	}
	if got := runTool(t, ws, "glob", `{"pattern":"**"}`); got != "abs\ninside.txt\nok\nsub/deep\nup\nupdir\n" {
		t.Errorf("glob ** = %q", got)
	}
}

func TestReadFIFODoesNotBlock(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs on Windows")
	}
	dir := t.TempDir()
	if err := testsys.Mkfifo(filepath.Join(dir, "pipe")); err != nil {
		t.Skip("mkfifo:", err)
	}
	ws := liveWorkspace(t, dir)
	done := make(chan string, 1)
	go func() { done <- runTool(t, ws, "read_file", `{"path":"pipe"}`) }()
	select {
	case got := <-done:
		if got != "error: read_file: pipe is not a regular file" {
			t.Errorf("read_file on a FIFO: %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("read_file blocked on a FIFO")
	}
}

func TestGlobMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "a/b.go", false},
		{"**/*.go", "a.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"a/**", "a/b/c", true},
		{"a/**", "b/c", false},
		{"a/**/c", "a/c", true},
		{"a/**/c", "a/x/y/c", true},
		{"a/**/c", "a/x/y/d", false},
		{"*.{js,ts}", "x.ts", true},
		{"*.{js,ts}", "x.tsx", false},
		{"{src,lib}/**/*.{go,md}", "lib/x/y.md", true},
		{"{a,{b,c}}.txt", "c.txt", true},
		{"{a}.txt", "{a}.txt", true},
		{"[ab].txt", "b.txt", true},
		{"?.txt", "ab.txt", false},
	}
	for _, tt := range tests {
		m, err := CompileGlob(tt.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		if got := m.Match(tt.name); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
	if _, err := CompileGlob(strings.Repeat("{a,b,c}", 8)); err == nil {
		t.Error("an exponential brace pattern compiled")
	}
	if _, err := CompileGlob("a/[/b"); err == nil {
		t.Error("a bad pattern compiled")
	}
}

func TestGlobMatchManyDoubleStars(t *testing.T) {
	t.Parallel()
	m, err := CompileGlob(strings.Repeat("**/a/", 12) + "b")
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(strings.Repeat("a/", 200), "/")
	done := make(chan bool, 1)
	go func() { done <- m.Match(name) }()
	select {
	case got := <-done:
		if got {
			t.Error("matched a name without b")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("matching backtracks exponentially")
	}
	if !m.Match(strings.Repeat("a/", 12) + "b") {
		t.Error("no match for the shortest name")
	}
}

func FuzzGlob(f *testing.F) {
	f.Add("**/*.{go,md}", "a/b/c.go")
	f.Add("a/**/[bc]?/*", "a/x/by/z")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		m, err := CompileGlob(pattern)
		if err != nil {
			return
		}
		m.Match(name)
	})
}

func TestExpandBraces(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		want    []string
	}{
		{"a", []string{"a"}},
		{"{a,b}", []string{"a", "b"}},
		{"x{a,b}y{1,2}", []string{"xay1", "xay2", "xby1", "xby2"}},
		{"{a,{b,c}d}", []string{"a", "bd", "cd"}},
		{"{x{a,b}}", []string{"{xa}", "{xb}"}},
		{"{a}", []string{"{a}"}},
		{"{a,b", []string{"{a,b"}},
		{"a,b}", []string{"a,b}"}},
		{`\{a,b}`, []string{`\{a,b}`}},
		{`{a\,b,c}`, []string{`a\,b`, "c"}},
		{"{,a}", []string{"", "a"}},
	}
	for _, tt := range tests {
		got, err := expandBraces(tt.pattern)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("expandBraces(%q) = %q, %v; want %q", tt.pattern, got, err, tt.want)
		}
	}
	for _, bad := range []string{strings.Repeat("{a,b}", 11), strings.Repeat("{a,b}", maxBraceGroups+1)} {
		if _, err := expandBraces(bad); err == nil {
			t.Errorf("expandBraces of %d bytes of groups accepted", len(bad))
		}
	}
}

// TestExpandBracesMemory: a recorded pattern of 25,000 {a,b} groups (once
// about 2 GB) is refused having allocated little more than its size.
func TestExpandBracesMemory(t *testing.T) {
	for _, p := range []string{strings.Repeat("{a,b}", 25000), strings.Repeat("{", 25000) + strings.Repeat("a,b}", 25000), strings.Repeat("x", 1<<20) + "{a,b}"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := CompileGlob(p)
		runtime.ReadMemStats(&after)
		if err != nil && len(err.Error()) > 300 {
			t.Errorf("the error quotes %d bytes of the pattern", len(err.Error()))
		}
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(20*len(p)+1<<20); got > limit {
			t.Errorf("compiling a pattern of %d bytes allocated %d bytes (limit %d)", len(p), got, limit)
		}
	}
}
