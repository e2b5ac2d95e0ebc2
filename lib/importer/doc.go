// Package importer converts the logs AI agents already write into ctx
// execution logs (docs/design.md §5), which ctx-pack then validates and packs like
// a hand-written log.
//
// Each format is a Format: its name, how to tell it (Sniff, Match), its
// importer, its record kinds. This package holds the machinery every
// importer shares (the Builder, Options, Report, Error, the Registry)
// and the formats of no agent: OpenAI Chat Completions and Responses
// exchanges, Anthropic Messages exchanges, ATIF trajectories (atif.go),
// OpenTelemetry GenAI telemetry (OTLP JSON and SDK span dumps), Inspect
// AI eval logs (.json and .eval archives) and LangSmith run payloads. An
// agent's format is declared in the agent's package under lib/agent:
// Aider's chat histories (the one format that is not JSON), GitHub
// Copilot CLI session events, Gemini CLI saved sessions and stream-json
// transcripts, OpenCode exports and storage, Claude Code session
// transcripts, Codex CLI rollouts.
// lib/formats lists every format in one Registry: Detect guesses the
// format from the first record; Choose resolves what a user asked for
// (ctx, auto or a format), refusing a log that is recognisably of another
// format (MismatchError: "this looks like a claude-code session: use
// --from auto").
//
// # Mapping
//
// Every importer reads records with gjson into one message model. What
// differs between formats is mostly a table of paths (msgTable: where the
// role, the content, the tool calls and their ids live); small hooks do the
// joins. The same rules then apply to all formats:
//
//   - The model identifier is the model that answered (a response's model,
//     gen_ai.response.model) before the one requested; "unknown", with a
//     warning, when the input names none. Sampling parameters (temperature,
//     top_p, seed, max_tokens, reasoning effort, …) and system_fingerprint
//     become model parameters, the first value seen winning.
//   - The first system message is the system prompt; user messages are
//     prompts. What a prompt cannot carry (timestamps, ids) is in
//     metadata.prompts, by prompt index. A prompt holding images or
//     documents (Anthropic image/document blocks, data: URLs, OpenAI file
//     parts, GenAI blob parts) is a list of parts, its text parts and its
//     media in order; the base64 is copied as content_base64, never into
//     metadata. A URL or file id is no content: it stays in metadata.
//   - Each model turn is a non-deterministic llm_call step: its text is the
//     output, its reasoning (thinking blocks, reasoning summaries) is the
//     step's reasoning, its token counts the step's usage (input, output,
//     cache read and creation, reasoning and total tokens, renamed from
//     each format's spelling; other counters and costs stay in
//     metadata.usage), the request's settings (tools, model, …) are its
//     parameters, and the response's other fields (id, stop reason) its
//     metadata; metadata.model is the model that answered that call (a
//     response's model, gen_ai.response.model, Claude Code's
//     message.model), so a session that switched models says which
//     answered what.
//   - Each tool call the turn makes is a tool_call step after it. Arguments
//     that are JSON strings are parsed; other strings stay strings. The
//     result joins by call id (tool_call_id, call_id, tool_use_id), or, for
//     calls without ids (LangSmith tool runs, any-agent spans), to the
//     oldest open call of the same tool. Ids survive being empty, renamed
//     and listed twice: a call a provider sent with "id": "" and the
//     client's later copy under its own id are one call (copies are
//     matched by tool and arguments); a result whose id no call has joins
//     the oldest call without an id (of its tool, if it names one). A
//     failed call (is_error, a typed error, an error status, a non-zero
//     exit code) has the step's error: its message and exit code when the
//     source gives them, else true. A tool's images and documents are the
//     step's output_parts. A result whose call is not in the log becomes a
//     step of its own when it names its tool, and is kept in
//     metadata.unmatched_tool_results otherwise. Anthropic server tools
//     (web search and fetch, code execution) answer inside the model's own
//     message: the result block's content (as JSON text) is the call's
//     output, an *_error content or a non-zero return_code its error.
//   - A tool step is deterministic when the tool is one of the read-only
//     built-ins (Read, Glob, Grep, LS, read_file, list_dir, …) or is named
//     in Options.Deterministic.
//   - The last non-empty assistant text is the output final.md (Inspect:
//     one per sample, samples/<id>_epoch_<n>/final.md, or
//     samples/sample_<position>/final.md for a sample without an id, whose
//     steps then carry sample_index; any-agent: final_output; LangSmith:
//     the root run's output), except in a Claude Code, Codex, Gemini CLI
//     or OpenCode session, whose outputs are the files it wrote: there the
//     last answer is what it is, the output of the last llm_call step, and
//     no file is made up for it.
//   - Exchange formats repeat the conversation in every request: messages
//     already in the log are not added again.
//   - Fields that map nowhere are kept in the step's or the log's metadata
//     (null, [] and {} carry nothing and are left out). Records that are
//     not part of the conversation (progress, UI state, timeline detail)
//     are counted in the Report with their reasons, which come from one
//     list of the record kinds each importer knows (kinds.go,
//     Format.Kinds). A kind the list does not know is skipped too; when
//     it holds a message, a tool call, a tool result, file content or
//     usage, a warning names it as lost, with its count. Credential
//     headers in HTTP recordings are replaced by "[redacted]".
//   - Timestamps become RFC 3339 in UTC; created is the earliest one.
//   - In a step's parameters, a path under the working directory that
//     Claude Code and Codex record (the whole value of a member named like
//     a path: file_path, path, cwd, workdir, …) becomes relative to it.
//     Nothing else is rewritten: prompts, outputs, metadata and free-text
//     parameters (a shell command) are evidence and stay byte-exact, and
//     the directory is kept in metadata.session. Paths are compared in
//     the directory's own syntax: for a Windows one (C:\Users\x\proj)
//     "\" and "/" both separate names and the drive letter's case does
//     not matter; relative names use "/". Inspect attachment://
//     references are replaced by the attachment. Integers beyond 2^53
//     become strings of their digits.
//   - JSON Lines: a last line cut short (a log still being written) is left
//     out with a warning naming it; any other line that is not JSON is an
//     error naming it. An input with no record of its format ({}) is an
//     error, not an empty run.
//
// # The workspace
//
// Claude Code and Codex sessions also tell which files the agent saw and
// wrote (workspace.go, read by lib/agent/claudecode and lib/agent/codex).
// A file the session observed
// whole becomes an input, named relative to the recorded working
// directory, its content byte for byte: Claude Code's Read of the whole
// file (toolUseResult.file with startLine 1 and numLines == totalLines),
// the originalFile a Write, Edit or MultiEdit result records; Codex's
// plain `cat FILE` that succeeded. A file the session wrote is an output
// with its final content: Claude Code's Write content; Edit and MultiEdit
// applied, as Claude Code applies them, to the known content; Codex's
// apply_patch (the tool, or the command with a heredoc) applied as
// apply_patch applies it. The known content is the latest the log shows:
// an Edit applies to the originalFile it records and a whole Read
// replaces what the session last wrote, since a hook, a command or the
// user may have changed the file since. A file first seen by being
// written is no input.
// A file Claude Code read only in part is an input with seen "partial":
// its content is the lines read, each ending in "\n", and lines their
// ranges (total_lines from totalLines, which counts the empty string after
// a final newline as Claude Code does); several partial reads merge. A
// file only listed (Glob and Grep filenames, the LS tree) is an input with
// seen "name". Codex's plain reads of part of a file that exited 0 (sed
// -n 'A,Bp' FILE, head [-n N] FILE, nl -ba FILE, nl -ba FILE | sed -n
// 'A,Bp', also wrapped in bash -lc; codex.ParseRead) are partial
// inputs the same way, nl's numbers stripped; total_lines is the file's
// line count as sed counts it, known when a read printed fewer lines than
// it asked for or a last line without a line ending. A read from line 1
// that ran past the end, or reads that together cover every line and
// show how the last one ends, make the file whole. A read whose lines
// contradict what is known means the file changed unseen: it is no
// longer known (nor an output), and what is read of it later is no
// input. Reads Codex shortened, that failed or whose exit code is not
// recorded, and commands of cat, sed, head or nl that are no plain read
// (options, several files, redirections, pipes into other programs) are
// warnings. What cannot be reconstructed (an edit of a file whose
// content is unknown, a NotebookEdit, a file outside the working
// directory) is a warning. Contents are added after paths are made
// relative, so file bytes are never rewritten.
//
// A tool result whose call comes later in the input joins it by id when
// it comes; only one whose call never comes is unmatched.
//
// Detect also knows the shapes of some logs ctx does not import (a Gemini
// CLI chat): it names them in an *UnsupportedError ("this looks like a
// Gemini CLI chat: not supported") rather than mistake them for a format
// that looks alike.
//
// Per format: each agent's package says how its format maps
// (lib/agent/claudecode, lib/agent/codex, lib/agent/gemini, …). Those
// of this package: OpenTelemetry attribute lists are flattened; content
// is read from gen_ai.input/output.messages, the
// older per-message events and gen_ai.prompt.N / gen_ai.completion.N
// attributes; log records join their spans by span id (traces and logs may
// be concatenated into one input); execute_tool spans complete their calls.
// LangSmith create and update records merge by run id (or dotted_order).
// Inspect model and tool events add timestamps, usage and per-call settings
// to the messages, joined on message id and call id (older logs without
// message ids: on the output message itself); the model that answered
// (output.model) is the run's model, the one requested stays in
// metadata.eval, and each turn names in metadata.model the model that
// answered it: its model event's output.model, else the sample output's
// (the message's own model member, when it differs, is message_model).
// A .eval archive's members are bounded all together, to 100 times the
// archive's size (at least 64 MiB, at most 1 GiB), on their declared
// size before inflating and while inflating.
//
// ATIF trajectories (Harbor RFC 0001, ATIF-v1.0 to v1.7): a system step
// is the system prompt (later ones prompts of role system), user steps
// are prompts, an agent step is an llm_call (message as output,
// reasoning_content as reasoning, model_name and reasoning_effort as
// parameters, metrics' prompt_tokens, completion_tokens and
// cached_tokens as usage, its other members as metadata.usage) followed
// by its tool_calls, each with the observation result whose
// source_call_id names it; a result without one is the next call's of
// its step still without a result (Harbor's computer-use agents write
// them so), and one naming no call of its step stays in the step's
// metadata. extra.is_error (with extra.exit_code and extra.error) marks
// a failed call. ContentPart images given as a base64 data: URL, or as
// a file under the trajectory's directory (Options.Dir), are parts;
// others stay in metadata with a warning. Embedded
// subagent_trajectories are the steps of agent <trajectory_id>, started
// by the step whose result refers to them. What the log has no field for
// is kept under "atif" in metadata (empty objects too), so that lib/atif
// writes the trajectory back as it was.
//
// Gemini CLI, OpenCode and Copilot CLI sessions' files written
// (agentfiles.go): a whole-file write (write_file, write, create) gives a
// file's content, and a later replacement (replace, edit, str_replace)
// whose old text occurs once (or as often as the call says) the new
// content, or the content after the call the result records (Gemini
// CLI's resultDisplay.newContent); the files whose final content is
// known, under the working directory, are outputs. Edits of files the
// session never showed whole are counted in a warning.
//
// The output is canonical JSON, printed from an execlog.Log (there is no
// second encoder of the log here), and the same input always gives the
// same bytes: nothing depends on map order, the clock or the machine.
//
// # Resuming
//
// A Claude Code session is packed again after every reply, a Codex
// rollout after every turn. With Options.Checkpoint, their import saves
// its state once it has read the transcript's complete lines
// (ReadLines, resume.go): the builder's and the format's reader's (a
// type of the format's own, Resume.State: lib/agent/claudecode's
// ccState, lib/agent/codex's codexState, each with its workspace
// reading), with the length and SHA-256 of the bytes they cover, encoded
// by internal/snap
// (strings that are bytes of the transcript saved as their place in it).
// The next import of the file restores it when the file still begins
// with those bytes, under the same key (this build, the state's shape,
// the options, the subagent transcripts), and reads only the lines after
// them; the state is saved before the end of the import changes it, so
// the log is the one a full import gives (lib/formats/resume_test.go cuts
// every fixture after each line).
package importer
