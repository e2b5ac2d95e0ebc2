package importer

import (
	"fmt"
	"path"
)

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

	// ClaudeCodeFormat is Claude Code session transcripts.
	ClaudeCodeFormat = Format{Name: ClaudeCode, Noun: "session", Session: true, Import: importClaudeCode, Kinds: claudeCodeKinds,
		Match: matchClaudeCode, Beside: claudeCodeBeside, Resumable: true}
	// CodexFormat is Codex CLI rollouts.
	CodexFormat = Format{Name: Codex, Noun: "session", Session: true, Import: importCodex, Kinds: codexKinds,
		Match: matchCodex, Resumable: true}
	// GeminiCLIFormat is Gemini CLI saved sessions and stream-json
	// transcripts.
	GeminiCLIFormat = Format{Name: GeminiCLI, Noun: "session", Session: true, Import: importGemini, FileTools: geminiFileTools, Match: matchGemini}
	// OpenCodeFormat is OpenCode exports and storage.
	OpenCodeFormat = Format{Name: OpenCode, Noun: "session", Session: true, Import: importOpenCode, FileTools: openCodeFileTools,
		Match: matchOpenCode, Beside: openCodeBeside}
)

// claudeCodeBeside reads a session's subagents' transcripts.
func claudeCodeBeside(name string) (Beside, error) {
	subs, err := ClaudeCodeSubagents(name)
	if err != nil || len(subs) == 0 {
		return Beside{}, err
	}
	return Beside{Subagents: subs, Note: fmt.Sprintf("including the %d subagent transcript(s) under %s", len(subs), path.Dir(subs[0].Name))}, nil
}

// openCodeBeside reads the messages and parts of a session file of
// OpenCode's storage: they are files beside it.
func openCodeBeside(name string) (Beside, error) {
	data, err := OpenCodeStorage(name)
	if err != nil || data == nil {
		return Beside{}, err
	}
	return Beside{Data: data, Note: "reading the session's messages and parts from OpenCode's storage"}, nil
}
