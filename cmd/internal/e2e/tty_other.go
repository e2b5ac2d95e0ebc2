//go:build !linux

package e2e

import "github.com/rogpeppe/go-internal/testscript"

// ttyAvailable: ttyexec is built on Linux pseudo-terminals only.
func ttyAvailable() bool { return false }

func cmdTtyexec(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("ttyexec needs Linux pseudo-terminals: guard the script with [!tty] skip")
}
