//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/ctx-tools/ctx/lib/cli"
)

// execTool replaces the front by bin (execve): from here on the process
// is the tool, with its own exit status and signals. It returns only when
// the exec failed, and the front then reports the failure itself.
func execTool(bin string, args, extraEnv []string) {
	argv := append([]string{bin}, args...)
	syscall.Exec(bin, argv, append(os.Environ(), extraEnv...))
}

// run becomes the tool when the front's streams are the process's own,
// and runs it as a child otherwise.
func run(env *cli.Env, verb, bin string, args, extraEnv []string) error {
	if env.Stdin == os.Stdin && env.Stdout == os.Stdout && env.Stderr == os.Stderr {
		execTool(bin, args, extraEnv)
	}
	return child(env, verb, bin, args, extraEnv)
}

// signalNumber is the signal that ended the child, 0 if none did.
func signalNumber(ee *exec.ExitError) int {
	var ws syscall.WaitStatus
	if st, ok := ee.Sys().(syscall.WaitStatus); ok {
		ws = st
	}
	if ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}
