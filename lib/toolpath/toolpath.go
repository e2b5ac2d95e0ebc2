// Package toolpath finds the programs of the ctx toolkit: ctx-VERB beside
// the running executable first, then on PATH. It imports only the
// standard library, so that the ctx front, which must start fast, can use
// it.
package toolpath

import (
	"os"
	"os/exec"
	"path/filepath"
)

// Find returns the path of the ctx tool name (ctx-redact).
func Find(name string) (string, error) {
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), name); isExecutable(p) {
			return p, nil
		}
	}
	return exec.LookPath(name)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
