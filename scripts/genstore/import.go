package main

import (
	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

// importLog reads a generated transcript as ctx-pack --from FORMAT does
// (packgen.YearOptions.Import).
func importLog(format, name string, data []byte, subagents []packgen.File) (*execlog.Log, error) {
	subs := make([]importer.File, len(subagents))
	for i, f := range subagents {
		subs[i] = importer.File{Name: f.Name, Data: f.Data}
	}
	l, _, err := formats.ImportLog(format, data, importer.Options{Name: name, Subagents: subs})
	return l, err
}
