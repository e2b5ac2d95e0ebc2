// Package formatstest holds what the tests of an agent's format share
// that needs the registry (lib/formats): importing a fixture as ctx-pack
// would, detection included.
package formatstest

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// Update is go test's -update flag: rewrite the golden files in
// testdata rather than compare with them.
var Update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Fixture imports testdata/<format>/<file>, checks that Detect names its
// format, that the log is its golden file's (update: rewrite it), that
// ctx-pack accepts it and that the report adds up, and returns the log.
func Fixture(t testing.TB, format, file string) ([]byte, importer.Report) {
	t.Helper()
	path := filepath.Join("testdata", format, file)
	out, rep := importtest.Fixture(t, path, format, formats.Detect, func(data []byte) ([]byte, importer.Report, error) {
		return formats.Import(format, data, importer.Options{Name: file})
	}, *Update)
	if rep.Mapped+rep.Skipped != rep.Records {
		t.Errorf("report = %+v", rep)
	}
	return out, rep
}

// Importer is how importtest.RunCases imports a case through the
// registry, as ctx-pack would.
func Importer() importtest.Importer[importer.Report] {
	return importtest.Importer[importer.Report]{
		Detect: formats.Detect,
		Import: func(format string, data []byte, name string) ([]byte, importer.Report, error) {
			return formats.Import(format, data, importer.Options{Name: name})
		},
		Session: func(format string) bool { f, _ := formats.Lookup(format); return f.Session },
		Report:  func(r importer.Report) ([]string, int, int, int) { return r.Warnings, r.Records, r.Mapped, r.Skipped },
		Final:   importer.FinalName,
		Update:  *Update,
	}
}
