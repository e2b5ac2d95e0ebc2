//go:build !unix

package main

import (
	"os/exec"

	"github.com/ctx-tools/ctx/lib/cli"
)

// execTool does nothing where exec(2) is not available: the front runs
// the tool as a child instead.
func execTool(bin string, args, extraEnv []string) {}

// run runs the tool as a child process.
func run(env *cli.Env, verb, bin string, args, extraEnv []string) error {
	return child(env, verb, bin, args, extraEnv)
}

// signalNumber is 0: the child's exit code says how it ended.
func signalNumber(ee *exec.ExitError) int { return 0 }
