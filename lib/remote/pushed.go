package remote

import (
	"os"
	"path/filepath"

	"github.com/ctx-tools/ctx/lib/digest"
)

// Pushed reports whether the layout cache in dir (DefaultCacheDir) records
// that pack d was pushed from this account: ctx-push remembers every pack
// it pushed there. It is false with no cache.
func Pushed(dir string, d digest.Digest) bool {
	if dir == "" {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, d.Hex()+".json"))
	return err == nil && fi.Mode().IsRegular()
}
