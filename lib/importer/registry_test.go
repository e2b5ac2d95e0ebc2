package importer

import "github.com/ctx-tools/ctx/lib/execlog"

// testFormats are the formats this package's tests import: those it
// declares and those of the agents whose importers are still here, in
// lib/formats' order.
var testFormats = NewRegistry(
	ATIFFormat, OTelGenAIFormat, LangSmithFormat, InspectFormat,
	CodexFormat, ClaudeCodeFormat, AnthropicFormat, OpenAIChatFormat, OpenAIResponsesFormat,
)

// The registry's functions, for the tests.

func Formats() []string { return testFormats.Formats() }

func Import(format string, data []byte, opts Options) ([]byte, Report, error) {
	return testFormats.Import(format, data, opts)
}

func ImportLog(format string, data []byte, opts Options) (*execlog.Log, Report, error) {
	return testFormats.ImportLog(format, data, opts)
}

func Detect(name string, data []byte) (string, error) { return testFormats.Detect(name, data) }

func lookup(name string) Format {
	f, ok := testFormats.Lookup(name)
	if !ok {
		panic("no format " + name)
	}
	return f
}

func agentSession(name string) bool { return lookup(name).Session }
