package replay

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"prog", []string{"prog"}, ""},
		{"  prog  a\tb\n c ", []string{"prog", "a", "b", "c"}, ""},
		{`prog 'a b' "c d"`, []string{"prog", "a b", "c d"}, ""},
		{`prog 'it''s' x`, []string{"prog", "its", "x"}, ""},
		{`prog "a \"q\" \$HOME \\ \n"`, []string{"prog", `a "q" $HOME \ \n`}, ""},
		{`prog a\ b \'c`, []string{"prog", "a b", "'c"}, ""},
		{`prog '' ""`, []string{"prog", "", ""}, ""},
		{`prog '$x|y;z'`, []string{"prog", "$x|y;z"}, ""},
		{`prog *.go ~/x`, []string{"prog", "*.go", "~/x"}, ""},
		{"prog a\\\nb", []string{"prog", "ab"}, ""},
		{"", nil, `splitting "": no command`},
		{"   ", nil, `splitting "   ": no command`},
		{`prog 'a`, nil, `splitting "prog 'a": unterminated '`},
		{`prog "a`, nil, `splitting "prog \"a": unterminated "`},
		{`prog | tee x`, nil, `splitting "prog | tee x": "|" would mean something to a shell, and no shell runs it; quote it or name a script`},
		{`prog $HOME`, nil, `splitting "prog $HOME": "$" would mean something to a shell, and no shell runs it; quote it or name a script`},
		{`a;b`, nil, `splitting "a;b": ";" would mean something to a shell, and no shell runs it; quote it or name a script`},
		{"prog `id`", nil, "splitting \"prog `id`\": \"`\" would mean something to a shell, and no shell runs it; quote it or name a script"},
	}
	for _, tt := range tests {
		got, err := Split(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("Split(%q) error = %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Split(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestParseToolFlag(t *testing.T) {
	t.Parallel()
	name, c, err := ParseToolFlag("fetch=./bin/fetch --fast 'a b'", "/home/u/proj", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if name != "fetch" || !reflect.DeepEqual(c.Argv, []string{filepath.Join("/home/u/proj", "bin/fetch"), "--fast", "a b"}) || c.Timeout != 5*time.Second || c.Ver != "" {
		t.Errorf("got %s %+v", name, c)
	}
	if _, c, _ := ParseToolFlag("x=jq -c .", "/d", 0); c.Argv[0] != "jq" {
		t.Errorf("a program on PATH became %s", c.Argv[0])
	}
	for spec, want := range map[string]string{
		"fetch":     `parsing --tool "fetch": want NAME=CMD`,
		"=prog":     `parsing --tool "=prog": want NAME=CMD`,
		"fetch=":    `parsing --tool fetch: splitting "": no command`,
		"f=a && b":  `parsing --tool f: splitting "a && b": "&" would mean something to a shell, and no shell runs it; quote it or name a script`,
		"f=prog 'a": `parsing --tool f: splitting "prog 'a": unterminated '`,
	} {
		if _, _, err := ParseToolFlag(spec, "/d", 0); err == nil || err.Error() != want {
			t.Errorf("ParseToolFlag(%q) = %v, want %s", spec, err, want)
		}
	}
}

func TestConfigTools(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"version":1,"hash":"sha256","other":{"x":1},"tools":{
		"fetch":{"command":["./tools/fetch","--quiet"],"version":"2.1","timeout":"5s"},
		"jq":{"command":["jq","-c","."]}}}`)
	got, err := ConfigTools(raw, "/proj")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*Command{
		"fetch": {Argv: []string{filepath.Join("/proj", "tools/fetch"), "--quiet"}, Ver: "2.1", Timeout: 5 * time.Second},
		"jq":    {Argv: []string{"jq", "-c", "."}, Timeout: DefaultTimeout},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ConfigTools:\n got %+v\nwant %+v", got, want)
	}
	if got, err := ConfigTools([]byte(`{"version":1,"hash":"sha256"}`), "/proj"); err != nil || len(got) != 0 {
		t.Errorf("no tools: %v, %v", got, err)
	}
	for raw, want := range map[string]string{
		`{"tools":[]}`:                                       "reading tools from config.json: tools: ",
		`{"tools":{"a":{"command":[]}}}`:                     "reading tools from config.json: tools.a.command: want a non-empty array of strings",
		`{"tools":{"a":{}}}`:                                 "reading tools from config.json: tools.a.command: want a non-empty array of strings",
		`{"tools":{"a":{"command":"prog"}}}`:                 "reading tools from config.json: tools.a: ",
		`{"tools":{"a":{"command":["p"],"timeout":"soon"}}}`: `reading tools from config.json: tools.a.timeout: "soon" is not a positive duration such as "30s"`,
		`{"tools":{"a":{"command":["p"],"timeout":"-1s"}}}`:  `reading tools from config.json: tools.a.timeout: "-1s" is not a positive duration such as "30s"`,
		`{"tools":{"a":{"command":["p"],"env":{}}}}`:         "reading tools from config.json: tools.a: ",
	} {
		if _, err := ConfigTools([]byte(raw), "/proj"); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ConfigTools(%s) = %v, want %s…", raw, err, want)
		}
	}
}

func runCommand(t *testing.T, c *Command, tool string, index int, params string) (string, error) {
	t.Helper()
	ws := liveWorkspace(t, t.TempDir())
	if err := os.WriteFile(filepath.Join(ws.Dir, "in.txt"), []byte("workspace file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var p jsontext.Value
	if params != "" {
		p = jsontext.Value(params)
	}
	err := c.Run(context.Background(), &Call{Tool: tool, Index: index, Parameters: p, Workspace: ws}, &out)
	return out.String(), err
}

func TestCommand(t *testing.T) {
	echo := writeScript(t, "echo.sh", `printf '%s|%s|' "$CTX_TOOL" "$CTX_STEP_INDEX"; cat; printf '|'; cat in.txt`)
	out, err := runCommand(t, &Command{Argv: []string{echo}}, "my tool", 7, `{ "b": 2, "a": [1, 2.50] }`)
	if err != nil {
		t.Fatal(err)
	}
	// Parameters arrive canonical; the command runs in the workspace.
	if want := `my tool|7|{"a":[1,2.5],"b":2}|workspace file` + "\n"; out != want {
		t.Errorf("output = %q, want %q", out, want)
	}
	if out, _ := runCommand(t, &Command{Argv: []string{echo}}, "t", 0, ""); out != "t|0|{}|workspace file\n" {
		t.Errorf("no parameters: output = %q", out)
	}

	fail := writeScript(t, "fail.sh", `cat >/dev/null; echo partial; for i in 1 2 3 4 5 6 7; do echo "line $i" >&2; done; echo >&2; exit 3`)
	_, err = runCommand(t, &Command{Argv: []string{fail}}, "t", 0, `{}`)
	if want := "fail.sh: exit status 3: line 3 | line 4 | line 5 | line 6 | line 7"; err == nil || err.Error() != want {
		t.Errorf("failing command: %v, want %s", err, want)
	}

	_, err = runCommand(t, &Command{Argv: []string{filepath.Join(t.TempDir(), "nope")}}, "t", 0, `{}`)
	if err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("missing program: %v", err)
	}
}

// TestCommandTimeout gives a command that blocks until killed a short
// timeout: nothing but the timeout can end it, however slow the machine.
func TestCommandTimeout(t *testing.T) {
	t.Parallel()
	slow := writeScript(t, "slow.sh", `exec sleep 600`)
	_, err := runCommand(t, &Command{Argv: []string{slow}, Timeout: 100 * time.Millisecond}, "t", 0, `{}`)
	if want := "slow.sh timed out after 100ms"; err == nil || err.Error() != want {
		t.Errorf("timeout: %v, want %s", err, want)
	}
}

// expiry is a context whose deadline passes when the test says so, not
// at a time a loaded machine might reach before the command is ready.
type expiry struct {
	context.Context
	done chan struct{}
}

func (e *expiry) Done() <-chan struct{} { return e.done }

func (e *expiry) Err() error {
	select {
	case <-e.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestCommandTimeoutKillsChildren lets the deadline pass once the command
// has started a child and written to stderr: the reason ends with that
// stderr, and the child dies with the command. Every process of the
// group holds the write end of the stdout pipe, so its end of file says
// that none survived.
func TestCommandTimeoutKillsChildren(t *testing.T) {
	t.Parallel()
	slow := writeScript(t, "slow.sh", `echo starting >&2; sleep 600 & echo ready; wait`)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := &expiry{Context: context.Background(), done: make(chan struct{})}
	call := &Call{Tool: "t", Workspace: liveWorkspace(t, t.TempDir())}
	ran := make(chan error, 1)
	go func() {
		defer w.Close()
		ran <- (&Command{Argv: []string{slow}, Timeout: time.Hour}).Run(ctx, call, w)
	}()
	out := bufio.NewReader(r)
	if line, err := out.ReadString('\n'); line != "ready\n" {
		close(ctx.done)
		t.Fatalf("the command said %q, %v; want ready", line, err)
	}
	close(ctx.done)
	if err, want := <-ran, "slow.sh timed out after 1h0m0s: starting"; err == nil || err.Error() != want {
		t.Errorf("timeout: %v, want %s", err, want)
	}
	eof := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, out)
		eof <- err
	}()
	select {
	case <-eof:
	case <-time.After(time.Minute): // a bound on a hang, not a race: a survivor sleeps 600s
		t.Fatal("a child of the timed-out command survived it")
	}
}

func TestReplayWithCommand(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	upper := writeScript(t, "upper.sh", `f=$(sed -n 's/.*"path":"\([^"]*\)".*/\1/p'); tr a-z A-Z < "$f"`)
	m := p.pack(map[string]string{"a.txt": "hello\n"}, []step{
		{tool: "shout", params: `{"path":"a.txt"}`, out: "HELLO\n", det: true},
		{tool: "shout", params: `{"path":"missing.txt"}`, out: "", det: true},
		{tool: "read_file", params: `{"path":"a.txt"}`, out: "HELLO\n", det: true},
	}, here)
	rep := replay(t, p, m, Options{Tools: map[string]Executor{
		"shout":     &Command{Argv: []string{upper}, Ver: "1"},
		"read_file": &Command{Argv: []string{upper}},
	}})
	got := briefs(rep)
	if got[0].Status != Matched || got[2].Status != Matched {
		t.Errorf("user executors: %+v", got)
	}
	if got[1].Status != Failed || !strings.HasPrefix(got[1].Reason, "upper.sh: exit status 2: ") || !strings.Contains(got[1].Reason, "missing.txt") {
		t.Errorf("failing step: %+v", got[1])
	}
	if rep.Fidelity != Lost {
		t.Errorf("fidelity = %s, want failed", rep.Fidelity)
	}
}

// FuzzSplit checks that Split never panics and that quoting each word in
// single quotes splits back to the same words.
func FuzzSplit(f *testing.F) {
	f.Add(`prog 'a b' "c\"d" e\ f`)
	f.Add(`"unterminated`)
	f.Fuzz(func(t *testing.T, line string) {
		words, err := Split(line)
		if err != nil {
			return
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
		}
		again, err := Split(strings.Join(quoted, " "))
		if err != nil || !reflect.DeepEqual(again, words) {
			t.Fatalf("Split(%q) = %q, but re-quoted it splits into %q, %v", line, words, again, err)
		}
	})
}
