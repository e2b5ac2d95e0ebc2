package sharedtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An AgentLog is a file to import: an importer fixture, whose format is
// its directory's name when that is one of the formats (else "": detect),
// or a real agent log of the shared corpus (format "").
type AgentLog struct{ Path, Format string }

// AgentLogs returns the importer fixtures under dir/<format>/ (regular
// files but the .golden. ones, and but those skip says to leave out),
// failing t when there are fewer than min of them, then every agent log
// of the shared corpus, saying on t when it is absent.
func AgentLogs(t testing.TB, dir string, formats []string, min int, skip func(name string) bool) []AgentLog {
	t.Helper()
	var logs []AgentLog
	fixtures, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	for _, p := range fixtures {
		base := filepath.Base(p)
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || strings.Contains(base, ".golden.") { // fuzz corpora, golden files
			continue
		}
		if skip != nil && skip(base) {
			continue
		}
		format := filepath.Base(filepath.Dir(p))
		if !slices.Contains(formats, format) {
			format = "" // a directory of mixed formats: detect
		}
		logs = append(logs, AgentLog{p, format})
	}
	if len(logs) < min {
		t.Fatalf("found %d importer fixtures under %s", len(logs), dir)
	}
	root, err := Path()
	if err != nil {
		t.Logf("shared agent logs skipped: %v", err)
		return logs
	}
	filepath.WalkDir(filepath.Join(root, "agent-logs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasSuffix(p, ".md") {
			logs = append(logs, AgentLog{p, ""})
		}
		return nil
	})
	return logs
}
