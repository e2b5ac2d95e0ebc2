//go:build !unix

package e2e

import "os"

// cacheDir returns a fresh directory: without flock the binaries are not
// shared between test processes.
func cacheDir(root, mode string) (dir string, unlock func(), err error) {
	dir, err = os.MkdirTemp("", "ctx-e2e-"+mode+"-")
	return dir, func() {}, err
}
