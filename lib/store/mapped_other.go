//go:build !linux

package store

// mapRegular reads the file: mapping is for Linux.
func mapRegular(name string, max int64) ([]byte, int64, error) { return readRegular(name, max) }
