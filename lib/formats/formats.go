// Package formats is the one list of the formats ctx imports: each
// agent's (declared in its package under lib/agent) and those of no agent
// (declared in lib/importer). Adding a format is adding its line to All.
//
// The list's order is the order Detect tries the formats in: each one's
// Sniff (by file name or first bytes), then each one's Match (by first
// record), the first that holds winning; a format whose records another's
// Match would also take comes before it.
package formats

import (
	"github.com/ctx-tools/ctx/lib/agent/aider"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/agent/copilot"
	"github.com/ctx-tools/ctx/lib/agent/gemini"
	"github.com/ctx-tools/ctx/lib/agent/opencode"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/importer"
)

// All is the registry of the formats ctx imports.
var All = importer.NewRegistry(
	importer.ATIFFormat,
	opencode.Format,
	copilot.Format,
	gemini.Format,
	importer.OTelGenAIFormat,
	importer.LangSmithFormat,
	importer.InspectFormat,
	codex.Format,
	claudecode.Format,
	importer.AnthropicFormat,
	importer.OpenAIChatFormat,
	importer.OpenAIResponsesFormat,
	aider.Format,
)

// Formats returns the names of the formats ctx imports, sorted.
func Formats() []string { return All.Formats() }

// Lookup returns the format of the given name.
func Lookup(name string) (importer.Format, bool) { return All.Lookup(name) }

// Import converts data in the given format to an execution log, printed
// (importer.Registry.Import).
func Import(format string, data []byte, opts importer.Options) ([]byte, importer.Report, error) {
	return All.Import(format, data, opts)
}

// ImportLog converts data in the given format to an execution log
// (importer.Registry.ImportLog).
func ImportLog(format string, data []byte, opts importer.Options) (*execlog.Log, importer.Report, error) {
	return All.ImportLog(format, data, opts)
}

// Detect guesses the format of data (importer.Registry.Detect).
func Detect(name string, data []byte) (string, error) { return All.Detect(name, data) }

// Choose decides how to read data given the format the user named: ctx,
// auto or a format (importer.Registry.Choose).
func Choose(from, name string, data []byte) (string, error) { return All.Choose(from, name, data) }

// ParseHook recognises an agent's hook payload, or an agent's own
// notification (Codex's notify), and the transcript it is about:
// Registry.ParseHook of All.
func ParseHook(data []byte) (*importer.Hook, error) { return All.ParseHook(data) }
