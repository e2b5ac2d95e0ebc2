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
)

// claudeCodeBeside reads a session's subagents' transcripts.
func claudeCodeBeside(name string) (Beside, error) {
	subs, err := ClaudeCodeSubagents(name)
	if err != nil || len(subs) == 0 {
		return Beside{}, err
	}
	return Beside{Subagents: subs, Note: fmt.Sprintf("including the %d subagent transcript(s) under %s", len(subs), path.Dir(subs[0].Name))}, nil
}
