package importer

// The formats whose importers are in this package (lib/formats lists
// them, with the agents' own).
var (
	// AnthropicFormat is Anthropic Messages exchanges.
	AnthropicFormat = Format{Name: Anthropic, Import: importAnthropic, Match: matchExchange(Anthropic)}
	// OpenAIChatFormat is OpenAI Chat Completions exchanges.
	OpenAIChatFormat = Format{Name: OpenAIChat, Import: importOpenAIChat, Match: matchExchange(OpenAIChat)}
	// OpenAIResponsesFormat is OpenAI Responses exchanges.
	OpenAIResponsesFormat = Format{Name: OpenAIResponses, Import: importOpenAIResponses, Match: matchExchange(OpenAIResponses)}
	// ATIFFormat is ATIF trajectories.
	ATIFFormat = Format{Name: ATIF, Noun: "trajectory", Import: importATIF, Match: matchATIF}
	// InspectFormat is Inspect AI eval logs (.json and .eval archives).
	InspectFormat = Format{Name: Inspect, Import: importInspect, Kinds: inspectKinds, Sniff: sniffInspect, Match: matchInspect}
	// LangSmithFormat is LangSmith run payloads.
	LangSmithFormat = Format{Name: LangSmith, Import: importLangSmith, Kinds: langSmithKinds, Match: matchLangSmith}
	// OTelGenAIFormat is OpenTelemetry GenAI telemetry.
	OTelGenAIFormat = Format{Name: OTelGenAI, Import: importOTel, Kinds: otelKinds, Match: matchOTel}
)
