// Package e2e runs the end-to-end testscript scenarios of the ctx binaries.
//
// Every binary under cmd/ is built once per test process (with -race when
// the tests run with -race) into a temporary directory put first on PATH,
// so scripts drive the real programs through real pipes:
//
//	exec ctx-init
//	exec ctx-pack log.json
//	stdin stdout
//	exec ctx-show
//
// Scripts also get:
//
//	status N CMD [ARGS...]  run CMD like exec and require exit code N
//	sha256 FILE HEX         require FILE's SHA-256 to be HEX ($VAR expands)
//	setenv-stdout NAME [GJSON]
//	                        set $NAME to the trimmed stdout of the last
//	                        command, or to a gjson path of its first line;
//	                        the @hex modifier strips "sha256:" (hash|@hex)
package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/internal/sharedtest"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// Main builds the binaries, runs the tests and removes the binaries; call
// it from TestMain: func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }.
func Main(m *testing.M) int {
	buildOnce.Do(build)
	if binDir != "" {
		defer os.RemoveAll(binDir)
	}
	return m.Run()
}

// Race reports whether the binaries are built with the race detector,
// whose shadow memory makes resident-memory figures meaningless.
const Race = raceEnabled

// Bin returns the path of a built binary, for tests that drive processes
// directly (concurrency, crashes).
func Bin(name string) string {
	buildOnce.Do(build)
	return filepath.Join(binDir, name)
}

// Run runs the scripts in dir (usually "testdata/script").
func Run(t *testing.T, dir string) {
	t.Helper()
	buildOnce.Do(build)
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	testscript.Run(t, Params(dir))
}

// Params returns the testscript parameters Run uses, for callers that
// want to adjust them.
func Params(dir string) testscript.Params {
	return testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			env.Setenv("CTX_STORE", "")
			env.Setenv("SOURCE_DATE_EPOCH", "")
			env.Setenv("NO_COLOR", "1")
			if d, err := sharedtest.Path(); err == nil {
				env.Setenv("SHARED", d)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "shared" {
				_, err := sharedtest.Path()
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status":        cmdStatus,
			"sha256":        cmdSHA256,
			"setenv-stdout": cmdSetenvStdout,
		},
		RequireUniqueNames: true,
	}
}

func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("status: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

func cmdSHA256(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: sha256 file hex")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	sum := sha256.Sum256(b)
	got := hex.EncodeToString(sum[:])
	want := strings.TrimPrefix(args[1], "sha256:")
	if (got == want) == neg {
		ts.Fatalf("sha256 of %s is %s, want %s%s", args[0], got, map[bool]string{true: "not "}[neg], want)
	}
}

func init() {
	gjson.AddModifier("hex", func(json, arg string) string {
		return strings.Replace(json, "sha256:", "", 1)
	})
}

func cmdSetenvStdout(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: setenv-stdout NAME [gjson-path]")
	}
	out := ts.ReadFile("stdout")
	val := strings.TrimSpace(out)
	if len(args) == 2 {
		line, _, _ := strings.Cut(out, "\n")
		r := gjson.Get(line, args[1])
		if !r.Exists() {
			ts.Fatalf("stdout has no %s", args[1])
		}
		val = r.String()
	}
	ts.Setenv(args[0], val)
}

func build() {
	root, err := sharedtest.ModuleRoot()
	if err != nil {
		buildErr = err
		return
	}
	binDir, err = os.MkdirTemp("", "ctx-e2e-bin-")
	if err != nil {
		buildErr = err
		return
	}
	args := []string{"build", "-o", binDir + string(os.PathSeparator)}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "./cmd/...")
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		buildErr = fmt.Errorf("building the ctx binaries: %v\n%s", err, out.String())
	}
}
