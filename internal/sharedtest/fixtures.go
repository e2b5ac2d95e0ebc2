package sharedtest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FixtureDirs returns the importers' fixture directories under lib (the
// path of the repository's lib/): lib/importer/testdata/<format> and
// lib/agent/<name>/testdata/<format>, each named for its format, by
// format name. Other directories there (fuzz corpora, scenarios) are
// left out by formats, the names of the formats.
func FixtureDirs(lib string, formats []string) map[string]string {
	dirs := map[string]string{}
	for _, pattern := range []string{"importer/testdata/*", "agent/*/testdata/*"} {
		found, _ := filepath.Glob(filepath.Join(lib, pattern))
		for _, d := range found {
			if name := filepath.Base(d); slices.Contains(formats, name) {
				dirs[name] = d
			}
		}
	}
	return dirs
}

// FixtureTree makes a directory holding links to every directory of
// lib/importer/testdata and, for each format, a link named for it to
// its fixture directory (FixtureDirs): the one tree of all the
// importers' fixtures, wherever each format's importer lives.
func FixtureTree(t testing.TB, lib string, formats []string) string {
	t.Helper()
	tree := t.TempDir()
	dirs := FixtureDirs(lib, formats)
	others, _ := filepath.Glob(filepath.Join(lib, "importer/testdata/*"))
	for _, d := range others {
		if _, ok := dirs[filepath.Base(d)]; !ok {
			dirs[filepath.Base(d)] = d
		}
	}
	for name, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(tree, name)); err != nil {
			t.Fatal(err)
		}
	}
	return tree
}
