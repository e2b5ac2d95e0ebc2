package importer

import (
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// testFormats are the formats this package's tests import: those it
// declares, in lib/formats' order.
var testFormats = NewRegistry(
	ATIFFormat, OTelGenAIFormat, LangSmithFormat, InspectFormat,
	AnthropicFormat, OpenAIChatFormat, OpenAIResponsesFormat,
)

// The registry's functions, for the tests.

func Import(format string, data []byte, opts Options) ([]byte, Report, error) {
	return testFormats.Import(format, data, opts)
}

func Detect(name string, data []byte) (string, error) { return testFormats.Detect(name, data) }

// testImporter is how importtest.RunCases imports this package's
// fixtures.
func testImporter() importtest.Importer[Report] {
	return importtest.Importer[Report]{
		Detect: Detect,
		Import: func(format string, data []byte, name string) ([]byte, Report, error) {
			return Import(format, data, Options{Name: name})
		},
		Session: agentSession,
		Report:  func(r Report) ([]string, int, int, int) { return r.Warnings, r.Records, r.Mapped, r.Skipped },
		Final:   FinalName,
		Update:  *update,
	}
}

func lookup(name string) Format {
	f, ok := testFormats.Lookup(name)
	if !ok {
		panic("no format " + name)
	}
	return f
}

func agentSession(name string) bool { return lookup(name).Session }
