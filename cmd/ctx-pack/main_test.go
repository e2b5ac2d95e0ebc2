package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }

func TestScripts(t *testing.T) {
	// The importers' own fixtures, for the round trips over them.
	fixtures, err := filepath.Abs("../../lib/importer/testdata")
	if err != nil {
		t.Fatal(err)
	}
	e2e.Bin("ctx-pack") // builds the binaries
	p := e2e.Params("testdata/script")
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		env.Setenv("FIXTURES", fixtures)
		return setup(env)
	}
	testscript.Run(t, p)
}
