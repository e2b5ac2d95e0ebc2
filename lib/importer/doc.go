// Package importer converts the logs AI agents already write into ctx
// execution logs (DESIGN.md §5), which ctx-pack then validates and packs like
// a hand-written log.
//
// Supported formats: OpenAI Chat Completions and Responses exchanges,
// Anthropic Messages exchanges, Claude Code session transcripts, Codex CLI
// rollouts, OpenTelemetry GenAI telemetry (OTLP JSON and SDK span dumps),
// Inspect AI eval logs (.json and .eval archives) and LangSmith run payloads.
//
// Every importer reads records with gjson. What differs between formats is
// mostly a table of paths (where the role, the text, the tool calls and their
// ids live); small hooks do the joins: a tool call and its result become one
// tool_call step, matched by tool_call_id, call_id or tool_use_id. Model
// turns become non-deterministic llm_call steps. Fields with no place in the
// execution log are kept in a metadata object rather than dropped, and
// records that carry nothing for the log (progress events, UI state) are
// counted, with their reasons, in the Report.
//
// The output is canonical JSON, and the same input always gives the same
// bytes: nothing depends on map order, the clock or the machine. Absolute
// paths under the working directory that Claude Code and Codex record are
// made relative, and the working directory itself is not stored.
package importer
