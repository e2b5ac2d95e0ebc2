//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// execTool replaces the front by bin (execve): from here on the process
// is the tool, with its own exit status and signals. It returns only when
// the exec failed, and the front then runs the tool as a child.
func execTool(bin string, args, extraEnv []string) {
	argv := append([]string{bin}, args...)
	syscall.Exec(bin, argv, append(os.Environ(), extraEnv...))
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
