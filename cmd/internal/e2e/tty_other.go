//go:build !linux

package e2e

import "github.com/rogpeppe/go-internal/testscript"

func cmdTtyexec(ts *testscript.TestScript, neg bool, args []string) {
	ts.Skip("ttyexec needs Linux pseudo-terminals")
}
