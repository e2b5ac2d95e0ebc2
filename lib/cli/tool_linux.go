package cli

import (
	"os/exec"
	"syscall"
)

// dieWithParent has cmd killed when the thread starting it exits.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
