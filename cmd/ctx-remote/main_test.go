package main

import (
	"os"
	"testing"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
)

func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }

func TestScripts(t *testing.T) { e2e.Run(t, "testdata/script") }
