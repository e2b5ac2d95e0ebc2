// Package sharedtest locates the shared test corpus that sits beside a
// checkout (../shared/testdata: RFC 8785 vectors, real agent logs, kernel
// pack fixtures). Tests that need it skip, saying why, when it is absent.
package sharedtest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the absolute path of ../shared/testdata/<sub> relative to the
// module root, or skips t when that directory does not exist.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	root, err := Path()
	if err != nil {
		t.Skipf("shared test corpus not found: %v", err)
	}
	dir := filepath.Join(root, sub)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("shared test corpus %s is absent (clone ../shared beside the checkout to run this test)", dir)
	}
	return dir
}

// Path returns the absolute path of ../shared/testdata, or an error when
// it is absent.
func Path() (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	d := filepath.Join(filepath.Dir(root), "shared", "testdata")
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return "", errors.New("../shared/testdata is absent")
	}
	return d, nil
}

// ModuleRoot returns the directory holding go.mod, found from the working
// directory upward.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
