// Package importlog is packgen.YearOptions.Import as ctx-pack --from
// imports: the importers of lib/formats, which packgen cannot import
// (their tests use packgen).
package importlog

import (
	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

// Log reads the transcript data of an agent session in format
// ("claude-code" or "codex"), named name, with its subagents' transcripts
// beside it, as ctx-pack --from FORMAT does.
func Log(format, name string, data []byte, subagents []packgen.File) (*execlog.Log, error) {
	subs := make([]importer.File, len(subagents))
	for i, f := range subagents {
		subs[i] = importer.File{Name: f.Name, Data: f.Data}
	}
	l, _, err := formats.ImportLog(format, data, importer.Options{Name: name, Subagents: subs})
	return l, err
}
