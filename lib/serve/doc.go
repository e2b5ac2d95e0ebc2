// Package serve answers model API requests from packs, so that a real
// agent can run again against its own record (ctx-serve, ctx-replay
// --agent; docs/serve.md).
//
// Load arranges a pack's llm_call steps as threads (record.go): one per
// agent, the main agent's and each subagent's, each its turns in order
// with the tool calls each made. A Wire reads a request of its API —
// Anthropic Messages, OpenAI Responses, OpenAI Chat Completions, Gemini
// — into a Conv, and writes a recorded turn back in the same API,
// streamed or not (anthropic.go, responses.go, chat.go, gemini.go; the
// events are JSON, so no content can end an event early).
//
// Find matches a request to a turn by its conversation (conv.go): the
// thread is the one whose answers the request holds (known by their tool
// call ids, else their text), or whose opening prompt it starts with; the
// answer is the thread's next turn; what the request sends after its last
// answer (tool results, user texts) is compared with the recording, after
// one normalisation: line endings, the ends trimmed, the session's
// working directory and the replay's as one, and each agent's own rules
// (Agent: the text its harness writes, what differs from run to run).
// Only the ends of a request's conversation are read in full: a long
// session's request repeats everything, and what continues it is its
// first answer, its last and what was sent since.
//
// A Server (server.go) answers over HTTP: side requests (count_tokens,
// models, an agent's own side requests), recorded turns, misses as the
// API's error, or forwards to an upstream (a miss, or every turn from a
// step on: a fork), keeping what it forwards for a recording
// (Exchange.Line, Assemble) when asked. Each request is reported as an
// Event.
package serve
