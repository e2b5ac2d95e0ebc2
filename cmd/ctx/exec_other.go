//go:build !unix

package main

import "os/exec"

// execTool does nothing where exec(2) is not available: the front runs
// the tool as a child instead.
func execTool(bin string, args, extraEnv []string) {}

// signalNumber is 0: the child's exit code says how it ended.
func signalNumber(ee *exec.ExitError) int { return 0 }
