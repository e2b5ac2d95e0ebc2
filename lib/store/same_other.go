//go:build !unix

package store

import (
	"bytes"
	"os"
)

// sameContent reports whether the file name holds exactly b; a missing
// file is fs.ErrNotExist.
func sameContent(name string, b []byte) (bool, error) {
	got, err := os.ReadFile(name)
	if err != nil {
		return false, err
	}
	return bytes.Equal(got, b), nil
}
