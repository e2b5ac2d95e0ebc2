//go:build !linux

package packlog

import (
	"github.com/ctx-tools/ctx/lib/found"
)

// mapFile reads the file name under rule r.
func mapFile(name string, r found.Rule) (b []byte, release func(), err error) {
	b, err = found.ReadFile(name, r)
	return b, func() {}, err
}
