// Package drift compares two context packs and reports, in typed entries,
// where and how the runs diverged: the engine of ctx-diff.
//
// Diff takes the two manifests and an Objects reader (StoreObjects reads a
// store through its verifying reader) and returns a Report:
//
//	{"a","b","identical","drift":[entry…],"summary":{type:count}}
//
// plus "ignored":{type:count} when Options.Ignore left entries out, and
// "volatile_metadata":N when metadata_drift entries of values that differ
// between any two runs (ids, request ids, uuids, timestamps, session ids:
// see Volatile) were left out, as they are unless Options.AllMetadata.
// Identical means no entry remains.
//
// # Entries
//
// Every entry has a type, a path locating the difference (jq style), a
// change (changed, added, removed) and the two sides: a and b hold values
// up to Options.ValueBytes (JSON values as they are, text content as a
// string); a_ref and b_ref name content; a_size and b_size give content
// sizes, or the sizes of values too large to show. Text content that
// changed, and long strings, carry a unified diff bounded by
// Options.DiffLines and DiffBytes; truncated says one was cut, and its last
// line says how much is missing. Binary content (NUL bytes or invalid
// UTF-8) and content over MaxTextBytes are compared by size and hash only.
// Step entries also carry the tool and the step's index in each pack
// (a_step, b_step).
//
//	model_drift        model.identifier; model.parameters.<path>
//	prompt_drift       system_prompt; prompts[i] (content); prompts[i].role
//	input_drift        inputs["name"] (content; added; removed); .media_type,
//	                   .seen, .lines[k][0|1], .total_lines
//	tool_drift         steps[i].type, .tool, .deterministic, .agent,
//	                   .parent_step; steps[i] added or removed
//	param_drift        steps[i].parameters.<path>, one entry per changed leaf
//	reasoning_drift    the model's reasoning diverged: steps[i].output of a
//	                   model call (llm_call), steps[i].reasoning of any step
//	tool_output_drift  steps[i].output of a tool call: the tool answered
//	                   differently
//	part_drift         prompts[i].parts[k], steps[i].output_parts[k] (content;
//	                   added; removed); .type, .media_type
//	error_drift        steps[i].error (failed in one pack only);
//	                   .message, .exit_code
//	usage_drift        steps[i].usage.<counter>, one entry per token count;
//	                   cost_usd, what each run cost (lib/cost), when the
//	                   figures differ (a note names unpriced models)
//	output_drift       outputs["name"] (content; added; removed); .media_type,
//	                   .confidence, .notes
//	environment_drift  environment.os, .runtime, .tool_versions.<tool>, .metadata.<path>
//	metadata_drift     metadata.<path>; steps[i].metadata.<path>
//
// Whether a step's output is reasoning_drift or tool_output_drift follows
// the step's type in B: what a model said on the way is its reasoning; what a tool returned is the world answering
// differently. An input seen only by name has no content: it is added or
// removed by name (note "seen by name only").
//
// A step is named by its index in B, or in A when it was removed.
// Parameters and other JSON values (errors, usage, metadata) are compared
// member by member (objects) and element by element (arrays), down to the
// leaves that differ. Run bookkeeping is not drift and is not compared:
// version, created, parent and step timestamps. Metadata is compared, as
// metadata_drift, since importers keep there what has no field of its own;
// leave it out with --ignore metadata_drift when runs differ in ids.
//
// # Order
//
// Entries follow the manifest: model, system prompt, prompts by index
// (content, then parts), inputs by name (byte order; content, media type,
// seen, lines, total lines), steps in alignment order, outputs by name,
// environment (os, runtime, tool versions by name, metadata), metadata,
// the runs' cost.
// Within a step: type, tool, deterministic, agent, parent step,
// parameters (members in byte order, elements by index), output, output
// parts, reasoning, error, usage, metadata. JSON object members are always
// in sorted order too, so the same two packs always give byte-identical
// reports.
//
// # Step alignment
//
// AlignIndex pairs step i with step i and reports the longer pack's extra
// steps as added (only in B) or removed (only in A): O(N+M) time.
//
// AlignLCS pairs steps along a common subsequence of their (type, tool,
// parameters), so that one inserted step is one addition rather than a
// cascade of changes. Between two matched runs, the unmatched steps are
// aligned again on (type, tool) alone, so that a call whose parameters
// changed pairs with its counterpart and is compared field by field; what
// still remains pairs in order, and the longer side's rest is added or
// removed.
//
// The same alignment (Align) gives the unified diffs their lines. It works
// on a range as follows: strip the common prefix and suffix; then run
// Myers' O((n+m)·D) greedy search for a shortest edit script, abandoned
// after 64·(n+m)+65536 comparisons or at D = 1024; if abandoned, anchor the
// range on elements occurring exactly once on each side, keep the longest
// chain of anchors in order (patience sorting, O(k·log k)), and repeat on
// the gaps between them. All of this draws on one budget of
// 64·(N+M)·(⌊log₂(N+M)⌋+2) + 2¹⁸ comparisons; a range reached with the
// budget spent is left unmatched (all deleted, all inserted), which is
// still a correct alignment. So Align runs in O((N+M)·log(N+M)) time in
// every case, never quadratic, with O(N+M) memory plus at most 1024²
// entries of search trace. Its result is a longest common subsequence
// whenever the search finishes — for two sequences that differ by D
// edits, roughly when D² is within 64·(N+M)+65536, e.g. up to several
// hundred edits between 10,000-step packs — and otherwise the patience
// alignment on unique anchors, which is what a reader expects of a diff.
//
// On two 10,000-step packs whose outputs differ in every 10th step, the
// comparison reads and diffs the 2,000 differing objects (several at a
// time) in about 16–30 ms by index and 17–40 ms with lcs on a shared
// 2-CPU machine; with no step matching at all, lcs stays near 110 ms.
// Loading the two manifests costs about 18 ms each (go test -bench .
// ./lib/drift; scripts/bench-diff.sh).
package drift
