//go:build unix

package replay

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes cancelling cmd kill its whole process group, so a
// timed-out executor's children do not outlive it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
