package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }

func TestScripts(t *testing.T) {
	// The importers' own fixtures, for the round trips over them: one
	// tree of them all, wherever each format's importer lives.
	fixtures := sharedtest.FixtureTree(t, "../../lib", formats.Formats())
	e2e.Bin("ctx-pack") // builds the binaries
	p := e2e.Params("testdata/script")
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		env.Setenv("FIXTURES", fixtures)
		return setup(env)
	}
	testscript.Run(t, p)
}

func TestReasons(t *testing.T) {
	var rs []string
	for i := range 20 {
		rs = append(rs, fmt.Sprintf("record type %q (hook and tool progress): %d", fmt.Sprint("kind", i), i))
	}
	got := reasons(rs, 160)
	if len(got) > 200 {
		t.Errorf("reasons = %d bytes: %s", len(got), got)
	}
	if !strings.HasPrefix(got, rs[0]+", ") || !strings.HasSuffix(got, " more") {
		t.Errorf("reasons = %s", got)
	}
	if got := reasons(rs[:2], 160); got != rs[0]+", "+rs[1] {
		t.Errorf("two short reasons = %s", got)
	}
}
