//go:build !unix

package replay

import "os/exec"

// setProcessGroup leaves cmd as it is: cancelling kills the process only.
func setProcessGroup(cmd *exec.Cmd) {}
