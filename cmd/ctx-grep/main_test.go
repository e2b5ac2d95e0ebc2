package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/ctx-tools/ctx/internal/secrettest"
)

func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }

// TestScripts runs the scenarios, with secrettest's plant-secrets and
// no-secrets (see ctx-redact's scenarios) and one command of their own:
//
//	grep-planted ARG…  runs ctx-grep -F PART ARG… for every part of every
//	                   planted secret and fails unless each exits 1 (no
//	                   match)
func TestScripts(t *testing.T) {
	if err := e2e.Lint("testdata/script"); err != nil {
		t.Error(err)
	}
	p := e2e.Params("testdata/script")
	p.Cmds["plant-secrets"] = secrettest.PlantCmd
	p.Cmds["no-secrets"] = secrettest.NoSecretsCmd
	p.Cmds["grep-planted"] = grepPlanted
	testscript.Run(t, p)
}

func grepPlanted(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: grep-planted ARG…")
	}
	b, err := os.ReadFile(filepath.Join(ts.Getenv("WORK"), ".planted.json"))
	ts.Check(err)
	var corpus []secrettest.Secret
	ts.Check(json.Unmarshal(b, &corpus))
	n := 0
	for _, s := range corpus {
		for _, part := range s.Parts() {
			cmd := exec.Command(e2e.Bin("ctx-grep"), append([]string{"-F", part}, args...)...)
			cmd.Dir = ts.MkAbs(".")
			cmd.Env = append(os.Environ(), "CTX_STORE="+ts.Getenv("CTX_STORE"))
			out, err := cmd.Output()
			if code := cmd.ProcessState.ExitCode(); code != 1 {
				ts.Fatalf("ctx-grep found a part of the planted %s secret (exit %d, %v): %d bytes of output", s.Name, code, err, len(out))
			}
			n++
		}
	}
	ts.Logf("no match for any of %d planted secret parts", n)
}
