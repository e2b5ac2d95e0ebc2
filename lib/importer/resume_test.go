package importer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// An import that resumes from a checkpoint gives the bytes and the report
// of a full import of the same input, whatever the checkpoint covered.

// imported is one import's outcome.
type imported = importtest.Imported[Report]

func importWith(format string, data []byte, opts Options) imported {
	return importtest.ImportedOf(Import(format, data, opts))
}

// sameImport fails unless got is want, a resumed import being reported as one.
func sameImport(t *testing.T, what string, got, want imported) {
	t.Helper()
	importtest.SameImport(t, what, got, want, func(r *Report) { r.Resumed = 0 })
}

// TestResumeOtherFormats: the option changes nothing for the formats
// that do not resume (all but Claude Code and Codex), on every fixture of
// theirs, and writes nothing.
func TestResumeOtherFormats(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtures {
		if lookup(fx.Format).Resumable {
			continue
		}
		t.Run(fx.File, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", fx.File))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			opts := Options{Name: fx.File, Checkpoint: filepath.Join(dir, "c.ckpt")}
			got := importWith(fx.Format, data, opts)
			opts.Checkpoint = ""
			sameImport(t, fx.File, got, importWith(fx.Format, data, opts))
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("%s wrote %d file(s) in the checkpoint directory", fx.Format, len(ents))
			}
		})
	}
}
