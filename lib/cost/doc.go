// Package cost says what a pack's model calls cost in US dollars: the
// agent's own figure where its log records one, else a figure computed
// from each step's token usage and a dated price table.
//
// The agent's figures: Claude Code's running session cost (its
// cost-state record, kept as the pack's metadata.cost: totalCostUSD and
// per model modelUsage.<model>.costUSD), OpenCode's per-step cost
// (metadata.usage.cost of a pack imported from OpenCode) and ATIF's
// per-step cost_usd (metadata.usage.cost_usd). Copilot CLI's
// metadata.usage.cost counts premium requests, not dollars, and is not
// read.
//
// The price table is LiteLLM's model_prices_and_context_window.json,
// trimmed and embedded (PRICES.md says from which commit, under which
// licence, read when); Load reads another of the same shape. A model the
// table does not price is named in Pack.Unpriced and never priced at 0.
//
// A step's usage is kept as its source counted it (manifest.Usage), and
// sources count differently: the Anthropic API, Claude Code and OpenCode
// count input_tokens without the cache reads and writes; the OpenAI APIs,
// Codex, Gemini, Copilot CLI and ATIF count them in it. Gemini and
// OpenCode count reasoning tokens apart from output_tokens; the OpenAI
// APIs and Codex count them in it. CountingOf says which way a step was
// counted, and Price.Cost prices it accordingly.
package cost
