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

// readRegular returns the content of the regular store file name when it
// holds at most max bytes; for a larger file it returns nil and the size,
// having read nothing. Its errors are OpenFile's.
func readRegular(name string, max int64) ([]byte, int64, error) {
	return readRegularFile(name, max)
}
