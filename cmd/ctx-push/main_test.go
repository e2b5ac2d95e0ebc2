package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/ctx-tools/ctx/cmd/internal/ocitest"
)

func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }

// TestScripts runs the scenarios against an in-process registry
// ($REGISTRY) and, where installed, Debian's docker-registry.
func TestScripts(t *testing.T) {
	if _, err := os.Stat(e2e.Bin("ctx-pull")); err != nil {
		t.Fatalf("the ctx binaries did not build: %v", err)
	}
	testscript.Run(t, ocitest.Params("testdata/script"))
}
