// Package e2e runs the end-to-end testscript scenarios of the ctx binaries.
//
// Every binary under cmd/ is built with `go build -o DIR/ ./cmd/...` into one
// directory per checkout and build mode (with -race when the tests run with
// -race), shared by every test process and every later run, and put first on
// PATH, so scripts drive the real programs through real pipes:
//
//	exec ctx-init
//	exec ctx-pack log.json
//	stdin stdout
//	exec ctx-show
//
// The go command relinks only the binaries whose sources changed (it
// compares the build ID recorded in the existing file), and a file lock
// keeps concurrent test processes from building at once, so
// `go test ./...` links each binary at most once; a build error fails every
// test that needs the binaries. The build runs inside the tests after they
// have looked at every source file of the module, so the go command's test
// cache reruns every package's scenarios when any command's source
// changes. The directory lives under the user's cache
// directory (os.UserCacheDir, else the temporary directory):
// ctx-e2e/<hash of the module root>/{race,plain}.
//
// # Adding a binary
//
// A new command cmd/ctx-NAME is built and put on PATH for every package's
// scripts with no change here. Its own scenarios need only
// cmd/ctx-NAME/main_test.go:
//
//	package main
//
//	import (
//		"os"
//		"testing"
//
//		"github.com/ctx-tools/ctx/cmd/internal/e2e"
//	)
//
//	func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }
//
//	func TestScripts(t *testing.T) { e2e.Run(t, "testdata/script") }
//
// and scenarios in cmd/ctx-NAME/testdata/script/*.txtar. Tests that need
// separate processes they control (concurrency, signals, /proc) start
// e2e.Bin("ctx-NAME"), or e2e.PlainBin for a binary without the race
// detector (memory figures).
//
// # Script commands
//
// Beyond testscript's own, scripts get:
//
//	status N CMD [ARGS...]  run CMD like exec and require exit code N
//	sha256 FILE HEX         require FILE's SHA-256 to be HEX ($VAR expands)
//	setenv-stdout NAME [GJSON]
//	                        set $NAME to the trimmed stdout of the last
//	                        command, or to a gjson path of its first line;
//	                        the @hex modifier strips "sha256:" (hash|@hex)
//	glob PATTERN...         require some file to match each pattern (path.Match
//	                        syntax, relative to the working directory);
//	                        `! glob` requires none to: testscript's exists
//	                        does not expand patterns
//	ttyexec [-answer PROMPT TEXT] CMD [ARGS...]
//	                        run CMD like exec but with its stdout on a
//	                        pseudo-terminal (Linux), as a person sees it;
//	                        it gets PATH, HOME, TERM, NO_COLOR, CTX_STORE
//	                        and the other variables of ttyEnv. -answer
//	                        makes the terminal its stdin and controlling
//	                        one too, and types TEXT once PROMPT shows
//
// and the conditions [shared] (../shared/testdata is present) and [tty]
// (ttyexec can open pseudo-terminals) beside testscript's built-in ones. A script that runs a program of Tools (jq,
// sha256sum, …) declares it, `[!exec:jq] skip 'needs jq, which is not
// installed'`; Run fails a script that does not, or that gives exists a
// pattern (see Lint).
//
// # Updating scripts
//
// `go test ./cmd/... -update` (or CTX_E2E_UPDATE=1 in the environment)
// rewrites the stdout/stderr files that `cmp` compares in the txtar
// archives with what the programs print; review the diff before committing.
package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the files that cmp compares in the txtar scripts with the programs' output")

// Main runs the tests; call it from TestMain:
// func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }. The binaries are
// built by the first test that needs them, inside m.Run, where the go
// command sees which sources the result depends on (see noteSources); a
// build error fails every test that needs them.
func Main(m *testing.M) int {
	os.Setenv("GORACE", goRace())
	return m.Run()
}

// goRace returns $GORACE with atexit_sleep_ms=0: a binary built with -race
// otherwise sleeps a second before it exits, to let other goroutines
// report races, which made every command a script runs take a second.
// A race found still fails the command (exit 66).
// A GORACE that sets atexit_sleep_ms itself is kept as it is.
func goRace() string {
	v := os.Getenv("GORACE")
	if strings.Contains(v, "atexit_sleep_ms") {
		return v
	}
	return strings.TrimSpace(v + " atexit_sleep_ms=0")
}

// Race reports whether the binaries are built with the race detector,
// whose shadow memory makes resident-memory figures meaningless.
const Race = raceEnabled

// Bin returns the path of a built binary, for tests that drive processes
// directly (concurrency, crashes). It panics, failing the test, when the
// binaries do not build.
func Bin(name string) string {
	dir, err := binaries(raceEnabled)
	if err != nil {
		panic(err)
	}
	return filepath.Join(dir, name)
}

// PlainBin returns the path of a binary built without the race detector,
// as users run it, for measuring memory; it is Bin when the tests do not
// run with -race.
func PlainBin(t testing.TB, name string) string {
	t.Helper()
	if !raceEnabled {
		return Bin(name)
	}
	// Under -race only the binaries asked for are linked a second time.
	plainMu.Lock()
	b := plainBuilds[name]
	if b == nil {
		b = new(build)
		plainBuilds[name] = b
	}
	plainMu.Unlock()
	b.once.Do(func() { b.dir, b.err = buildAll(false, "./cmd/"+name) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return filepath.Join(b.dir, name)
}

var (
	plainMu     sync.Mutex
	plainBuilds = map[string]*build{}
)

// Run checks the scripts in dir (usually "testdata/script") with Lint and
// runs them.
func Run(t *testing.T, dir string) {
	t.Helper()
	if err := Lint(dir); err != nil {
		t.Error(err)
	}
	if _, err := binaries(raceEnabled); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, Params(dir))
}

// Params returns the testscript parameters Run uses, for callers that
// want to adjust them.
func Params(dir string) testscript.Params {
	bin, _ := binaries(raceEnabled)
	return testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+SystemPath())
			env.Setenv("CTX_STORE", "")
			env.Setenv("SOURCE_DATE_EPOCH", "")
			env.Setenv("NO_COLOR", "1")
			env.Setenv("GORACE", goRace())
			if d, err := sharedtest.Path(); err == nil {
				env.Setenv("SHARED", d)
			}
			if d, err := sharedtest.ModuleRoot(); err == nil {
				env.Setenv("CTX_ROOT", d) // for scripts that use files of the checkout (hooks)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "shared" {
				_, err := sharedtest.Path()
				return err == nil, nil
			}
			if cond == "tty" {
				return ttyAvailable(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds:               commands(),
		RequireUniqueNames: true,
		UpdateScripts:      *update || os.Getenv("CTX_E2E_UPDATE") != "",
	}
}

// SystemPath is $PATH, followed by the system's standard directories
// (/bin, /usr/bin) that it lacks and that hold sh: the scenarios call a
// POSIX sh and its usual tools, which every POSIX system has even when
// the PATH the tests run with holds only Go.
func SystemPath() string {
	path := os.Getenv("PATH")
	dirs := filepath.SplitList(path)
	for _, d := range []string{"/usr/local/bin", "/usr/bin", "/bin"} {
		if slices.Contains(dirs, d) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(d, "sh")); err == nil && !fi.IsDir() {
			path += string(os.PathListSeparator) + d
		}
	}
	return strings.TrimPrefix(path, string(os.PathListSeparator))
}

// commands returns the script commands the harness adds.
func commands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"status":        cmdStatus,
		"sha256":        cmdSHA256,
		"setenv-stdout": cmdSetenvStdout,
		"glob":          cmdGlob,
		"ttyexec":       cmdTtyexec,
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

// cmdGlob requires each pattern to match at least one file (or, negated,
// none). A malformed pattern is an error either way, so `! glob` cannot
// pass by accident.
func cmdGlob(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: glob pattern...")
	}
	for _, p := range args {
		matches, err := filepath.Glob(ts.MkAbs(p))
		if err != nil {
			ts.Fatalf("glob %s: %v", p, err)
		}
		switch {
		case neg && len(matches) > 0:
			ts.Fatalf("%s matches %s", p, strings.Join(matches, ", "))
		case !neg && len(matches) == 0:
			ts.Fatalf("%s matches nothing", p)
		}
	}
}

// Tools are the programs beyond a POSIX sh and its usual utilities that
// scripts may run; a script that runs one declares it with a condition,
// [!exec:NAME] skip '…', so that it skips where the program is missing.
var Tools = []string{"jq", "sha256sum", "timeout", "chromium", "git"}

// Lint reports script lines that cannot do what they say: `exists` with a
// pattern (exists does not expand it; use glob), and a program of Tools
// run by a script that does not declare it, either for the whole script
// ([!exec:jq] skip …) or on the line ([exec:jq] exec jq …).
func Lint(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range files {
		a, err := txtar.ParseFile(f)
		if err != nil {
			return err
		}
		script := string(a.Comment)
		for i, line := range strings.Split(script, "\n") {
			words := strings.Fields(line)
			var conds []string
			for len(words) > 0 && (strings.HasPrefix(words[0], "[") || words[0] == "!" || words[0] == "?") {
				conds = append(conds, words[0])
				words = words[1:]
			}
			if len(words) == 0 || strings.HasPrefix(words[0], "#") {
				continue
			}
			switch words[0] {
			case "exists":
				for _, w := range words[1:] {
					if strings.ContainsAny(w, "*?[") {
						errs = append(errs, fmt.Errorf("%s:%d: exists does not expand %s: use glob", f, i+1, w))
					}
				}
			case "exec", "status":
				for _, tool := range Tools {
					declared := strings.Contains(script, "[!exec:"+tool+"]") || slices.Contains(conds, "[exec:"+tool+"]")
					if runsTool(line, tool) && !declared {
						errs = append(errs, fmt.Errorf("%s:%d: runs %s without declaring it: add [!exec:%s] skip 'needs %s, which is not installed'", f, i+1, tool, tool, tool))
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}

// runsTool reports whether a command line mentions tool as a word, as
// `exec jq …` or `exec sh -c '… | jq …'` do.
func runsTool(line, tool string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], tool)
		if j < 0 {
			return false
		}
		j += i
		before, after := byte(' '), byte(' ')
		if j > 0 {
			before = line[j-1]
		}
		if k := j + len(tool); k < len(line) {
			after = line[k]
		}
		if strings.IndexByte(" \t'\"|;&(", before) >= 0 && strings.IndexByte(" \t'\";&)", after) >= 0 {
			return true
		}
		i = j + len(tool)
	}
}

// build holds one build mode's outcome, computed once per process.
type build struct {
	once sync.Once
	dir  string
	err  error
}

var builds [2]build // [0] plain, [1] race

// binaries builds (or finds up to date) the binaries of one build mode and
// returns their directory.
func binaries(race bool) (string, error) {
	b := &builds[0]
	if race {
		b = &builds[1]
	}
	b.once.Do(func() { b.dir, b.err = buildAll(race, "./cmd/...") })
	return b.dir, b.err
}

// buildAll builds the commands pkgs names (./cmd/... or one) into the
// cache directory of its build mode.
func buildAll(race bool, pkgs string) (string, error) {
	root, err := sharedtest.ModuleRoot()
	if err != nil {
		return "", fmt.Errorf("building the ctx binaries: finding the module root: %w", err)
	}
	if err := noteSources(root); err != nil {
		return "", fmt.Errorf("building the ctx binaries: %w", err)
	}
	mode := "plain"
	if race {
		mode = "race"
	}
	dir, unlock, err := cacheDir(root, mode)
	if err != nil {
		return "", fmt.Errorf("building the ctx binaries: %w", err)
	}
	defer unlock()
	args := []string{"build", "-o", dir + string(os.PathSeparator)}
	if race {
		args = append(args, "-race")
	}
	args = append(args, pkgs)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if !race {
		// The binaries users build: static, no cgo (kong's os/user would
		// otherwise link libc, and the dynamic loader costs each start).
		// The race detector needs cgo.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the ctx binaries (go %s): %v\n%s", strings.Join(args, " "), err, out)
	}
	// A binary whose command was removed must not keep answering scripts.
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		name := strings.TrimSuffix(e.Name(), ".exe")
		if fi, err := os.Stat(filepath.Join(root, "cmd", name)); err != nil || !fi.IsDir() {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return "", err
			}
		}
	}
	return dir, nil
}

// noteSources stats every file the binaries are built from. The go
// command records the files a test looks at and reuses a cached test
// result only while they are unchanged; without this, changing one
// command's source would not rerun the other packages' scenarios that
// drive it.
func noteSources(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") || name == "go.mod" || name == "go.sum" {
			_, err = os.Stat(path)
		}
		return err
	})
}

// cacheRoot returns the directory holding every checkout's binaries.
func cacheRoot() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "ctx-e2e")
	}
	return filepath.Join(os.TempDir(), "ctx-e2e")
}

// checkoutKey names a checkout's binaries by its module root, so
// worktrees side by side never share them.
func checkoutKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:8])
}
