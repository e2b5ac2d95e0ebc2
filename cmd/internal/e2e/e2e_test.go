package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestCommands runs the harness's own script commands against files the
// scripts make, without the ctx binaries.
func TestCommands(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                "testdata/script",
		Setup:              systemPath,
		Cmds:               commands(),
		RequireUniqueNames: true,
		UpdateScripts:      *update,
	})
}

// TestCommandsFail checks that each command fails a script when what it
// asserts is false: a check that cannot fail proves nothing.
func TestCommandsFail(t *testing.T) {
	files := "\n-- dir/obj-1 --\n-- dir/a.txt --\n-- hello.txt --\nhello\n"
	for _, tc := range []struct{ script, want string }{
		{"glob dir/tmp-*", "dir/tmp-* matches nothing"},
		{"glob dir/obj-* dir/tmp-*", "dir/tmp-* matches nothing"},
		{"! glob dir/obj-*", "dir/obj-* matches"},
		{"! glob dir/tmp-* dir/*.txt", "dir/*.txt matches"},
		{"! glob 'dir/['", "syntax error in pattern"},
		{"glob 'dir/['", "syntax error in pattern"},
		{"glob", "usage"},
		{"status 2 sh -c 'exit 3'", "exited 3, want 2"},
		{"status 0 sh -c 'exit 1'", "exited 1, want 0"},
		{"status 1 sh -c 'exit 0'", "exited 0, want 1"},
		{"! status 1 sh -c 'exit 1'", "usage"},
		{"status 0 no-such-program-here", "status:"},
		{"sha256 hello.txt 00", "sha256 of hello.txt is 5891b5b5"},
		{"! sha256 hello.txt 5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03", "want not"},
		{"exec echo '{}'\nsetenv-stdout H hash", "stdout has no hash"},
	} {
		t.Run(strings.Fields(tc.script)[0], func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "s.txtar")
			if err := os.WriteFile(name, []byte(tc.script+"\n"+files), 0o644); err != nil {
				t.Fatal(err)
			}
			ft := &fakeT{}
			testscript.RunT(ft, testscript.Params{Files: []string{name}, Setup: systemPath, Cmds: commands()})
			if !ft.failed {
				t.Fatalf("script %q passed, want a failure", tc.script)
			}
			if !strings.Contains(ft.log.String(), tc.want) {
				t.Fatalf("script %q failed without %q:\n%s", tc.script, tc.want, ft.log.String())
			}
		})
	}
}

// fakeT records a script's failure instead of failing the test.
type fakeT struct {
	failed bool
	log    strings.Builder
}

type stop struct{}

func (t *fakeT) Skip(a ...any)  { t.Log(a...); panic(stop{}) }
func (t *fakeT) Fatal(a ...any) { t.failed = true; t.Log(a...); panic(stop{}) }
func (t *fakeT) FailNow()       { t.failed = true; panic(stop{}) }
func (t *fakeT) Parallel()      {}
func (t *fakeT) Log(a ...any)   { fmt.Fprintln(&t.log, a...) }
func (t *fakeT) Verbose() bool  { return false }
func (t *fakeT) Run(_ string, f func(testscript.T)) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stop); !ok {
				panic(r)
			}
		}
	}()
	f(t)
}

// TestLint checks that Lint finds a pattern given to exists and an
// undeclared tool, and passes a script that declares what it runs.
func TestLint(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   []string // substrings of the error; none: no error
	}{
		{"! exists .ctx/tmp/obj-*\nexists a/[ab]\nexists plain\n", []string{"s.txtar:1: exists does not expand .ctx/tmp/obj-*", "s.txtar:2: exists does not expand a/[ab]"}},
		{"exec jq .a x.json\n", []string{"s.txtar:1: runs jq without declaring it"}},
		{"# jq in a comment\nexec sh -c 'cat x | jq -r .a'\n", []string{"s.txtar:2: runs jq"}},
		{"exec sh -c 'sha256sum x'\n", []string{"runs sha256sum"}},
		{"[!exec:jq] skip 'needs jq'\nexec sh -c 'cat x | jq -r .a'\n! exists plain\n", nil},
		{"exec sh -c 'echo jqx jq-like'\nstdout 'jq'\n", nil},
		{"[exec:jq] exec jq .a x.json\n[exec:jq] stdout .\n", nil},
		{"[exec:jq] exec jq .a x.json\nexec jq .b x.json\n", []string{"s.txtar:2: runs jq"}},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "s.txtar"), []byte(tc.script+"-- x.json --\n{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := Lint(dir)
		if len(tc.want) == 0 {
			if err != nil {
				t.Errorf("Lint(%q) = %v, want nil", tc.script, err)
			}
			continue
		}
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Lint(%q) = %v, want it to say %q", tc.script, err, w)
			}
		}
	}
}

// TestLintScripts lints every command's scripts.
func TestLintScripts(t *testing.T) {
	dirs, err := filepath.Glob("../../*/testdata/script")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no script directories found (%v)", err)
	}
	for _, d := range dirs {
		if err := Lint(d); err != nil {
			t.Error(err)
		}
	}
}

// systemPath gives the scripts the PATH the ctx scenarios get, less the
// binaries: sh is found even when the tests run with only Go on PATH.
func systemPath(env *testscript.Env) error {
	env.Setenv("PATH", SystemPath())
	return nil
}
