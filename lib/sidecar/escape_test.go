//go:build unix

package sidecar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckFilesSymlinkOut: a symlink in DIR leading outside it is
// refused in words, not os.Root's.
func TestCheckFilesSymlinkOut(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	os.Mkdir(dir, 0o755)
	os.Symlink(t.TempDir(), filepath.Join(dir, "src"))
	err := CheckFiles(dir, []string{"src/a.go"}, ".sigstore.json")
	if err == nil || !strings.Contains(err.Error(), "src is or passes through a symlink leading outside the directory") || strings.Contains(err.Error(), "statat") {
		t.Errorf("error %v", err)
	}
}
