//go:build !linux

package store

// newUnnamed reports that unnamed temporary files are not used here.
func newUnnamed(string) (tempObject, bool) { return nil, false }
