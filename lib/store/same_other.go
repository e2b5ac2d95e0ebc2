//go:build !unix

package store

import "bytes"

// sameContent reports whether the file name holds exactly b; a missing
// file is fs.ErrNotExist.
func sameContent(name string, b []byte) (bool, error) {
	got, err := ReadFile(name, int64(len(b))+1)
	if err != nil {
		return false, err
	}
	return bytes.Equal(got, b), nil
}
