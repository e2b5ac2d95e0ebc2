package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/store"
)

type testCmd struct {
	Globals
	Arg      string `arg:"" optional:""`
	fail     error
	problems []error // given to Env.Problem before Run returns fail
	atLeast  int     // given to Env.AtLeast
}

func (c *testCmd) Run(env *Env) error {
	for _, p := range c.problems {
		env.Problem(p)
	}
	env.AtLeast(c.atLeast)
	if c.fail != nil {
		return c.fail
	}
	return env.Result(map[string]any{"b": 1, "a": c.Arg, "h": env.Human()})
}

func run(cmd *testCmd, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run("ctx-test", cmd, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRun(t *testing.T) {
	t.Parallel()
	code, out, _ := run(&testCmd{}, "x", "--human")
	if code != 0 || out != `{"a":"x","b":1,"h":true}`+"\n" {
		t.Fatalf("Run = %d, %q", code, out)
	}
	code, _, errs := run(&testCmd{}, "--nope")
	if code != ExitUsage || !strings.HasPrefix(errs, "ctx-test: error: unknown flag --nope\nctx-test: hint: see --help\n") {
		t.Fatalf("bad flag = %d, %q", code, errs)
	}
	code, out, _ = run(&testCmd{}, "--version")
	if code != 0 || !strings.HasPrefix(out, "ctx-test "+Version+" (") {
		t.Fatalf("--version = %d, %q", code, out)
	}
	code, out, _ = run(&testCmd{}, "--help")
	if code != 0 || !strings.Contains(out, "4  replay failed") {
		t.Fatalf("--help = %d, %q", code, out)
	}
}

// TestProblems checks that a command reporting several problems prints
// each and exits with the worst code, whatever it returns.
func TestProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cmd      *testCmd
		code     int
		stderr   string
		noStdout bool
	}{
		{&testCmd{problems: []error{Errorf(ExitFinding, "log a: bad"), fmt.Errorf("pack b: %w", store.ErrCorrupt)}},
			ExitError, "ctx-test: error: log a: bad\nctx-test: error: pack b: corrupt\n", false},
		{&testCmd{problems: []error{Errorf(ExitFinding, "one")}, atLeast: ExitOK},
			ExitFinding, "ctx-test: error: one\n", false},
		{&testCmd{atLeast: ExitFinding}, ExitFinding, "", false},
		{&testCmd{problems: []error{Exit(ExitFinding)}}, ExitFinding, "", false},
		{&testCmd{problems: []error{Errorf(ExitError, "read x")}, fail: Errorf(ExitFinding, "then y")},
			ExitError, "ctx-test: error: read x\nctx-test: error: then y\n", true},
		{&testCmd{problems: []error{Errorf(ExitFinding, "x")}, fail: Errorf(ExitUsage, "bad")},
			ExitUsage, "ctx-test: error: x\nctx-test: error: bad\n", true},
	} {
		code, out, errs := run(tc.cmd)
		if code != tc.code || errs != tc.stderr || tc.noStdout && out != "" {
			t.Errorf("problems %v, fail %v: exit %d, stderr %q, stdout %q; want %d, %q", tc.cmd.problems, tc.cmd.fail, code, errs, out, tc.code, tc.stderr)
		}
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		code int
		msg  string
	}{
		{fmt.Errorf("opening: %w", store.ErrNoStore), ExitError, "hint: run ctx-init"},
		{fmt.Errorf("pack x: %w", store.ErrNotFound), ExitError, "error: pack x: not found"},
		{&store.CorruptError{What: "object y", Err: errors.New("bad")}, ExitError, "hint: run ctx-verify --fsck"},
		{fmt.Errorf("%w %q", ref.ErrInvalid, "!"), ExitUsage, "invalid reference"},
		{&ref.AmbiguousError{Ref: "abcd"}, ExitError, "ambiguous"},
		{Errorf(ExitReplay, "step 3 failed"), ExitReplay, "error: step 3 failed"},
		{WithHint(Errorf(ExitFinding, "bad"), "try harder"), ExitFinding, "hint: try harder"},
		{Exit(ExitFinding), ExitFinding, ""},
		{errors.New("plain"), ExitError, "error: plain"},
	} {
		code, out, errs := run(&testCmd{fail: tc.err})
		if code != tc.code || out != "" || (tc.msg == "" && errs != "") || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: code %d, stderr %q; want %d, %q", tc.err, code, errs, tc.code, tc.msg)
		}
	}
}

func TestColourTerm(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"TERM": "xterm-256color"}, true},
		{map[string]string{"TERM": "xterm", "NO_COLOR": ""}, true},
		{map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, false},
		{map[string]string{"TERM": "dumb"}, false},
		{map[string]string{}, false},
	} {
		if got := colourTerm(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("colourTerm(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}

// Piped, a command prints JSON unless --human; --human and --json
// together are a usage error. (Terminals: the ttyexec scenarios.)
func TestFormatFlags(t *testing.T) {
	t.Parallel()
	if code, out, _ := run(&testCmd{}, "x"); code != 0 || !strings.Contains(out, `"h":false`) {
		t.Errorf("piped = %d, %q", code, out)
	}
	if code, out, _ := run(&testCmd{}, "x", "--json"); code != 0 || !strings.Contains(out, `"h":false`) {
		t.Errorf("--json = %d, %q", code, out)
	}
	code, _, errs := run(&testCmd{}, "x", "--human", "--json")
	if code != ExitUsage || !strings.Contains(errs, "--human") || !strings.Contains(errs, "--json") {
		t.Errorf("--human --json = %d, %q", code, errs)
	}
}
