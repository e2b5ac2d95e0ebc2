package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/ctx-tools/ctx/cmd/internal/ocitest"
	"github.com/ctx-tools/ctx/internal/secrettest"
)

func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }

// TestScripts runs the scenarios, with two commands of their own:
//
//	plant-secrets   writes secrettest's files, holding fake secrets made
//	                now, into the working directory, and the secrets to
//	                $WORK/.planted.json
//	no-secrets ARG… fails if any planted secret is in ARG: stdout, stderr,
//	                a file, or every file under a directory
func TestScripts(t *testing.T) {
	if err := e2e.Lint("testdata/script"); err != nil {
		t.Error(err)
	}
	p := ocitest.Params("testdata/script")
	p.Cmds["plant-secrets"] = secrettest.PlantCmd
	p.Cmds["no-secrets"] = secrettest.NoSecretsCmd
	testscript.Run(t, p)
}
