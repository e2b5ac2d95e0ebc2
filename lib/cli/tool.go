package cli

import (
	"os"
	"os/exec"
	"path/filepath"
)

// Tool returns the path of another ctx tool (ctx-redact): beside the
// running executable first, then on PATH. The ctx front finds the
// commands it runs this way, and a tool that hands work to another (so
// as not to link its dependencies) too.
func Tool(name string) (string, error) {
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
