// Package replay re-executes the tool calls recorded in a context pack and
// compares each output with the recorded one (docs/design.md §6, ctx-replay).
//
// # Steps and fidelity
//
// Steps run in order, each with the executor its tool name selects: a
// command given by the user (Options.Tools, filled by LoadTools from
// --tool, the user's config and a store config the user trusts), else a
// built-in. The output is hashed and
// compared with the step's output_ref:
//
//   - matched: same hash.
//   - diverged: a deterministic step produced other bytes.
//   - diverged_expected: a non-deterministic step produced other bytes; this
//     never lowers fidelity. What a diverged step produced (up to
//     MaxActual bytes) is stored as an object, named by actual_ref, to
//     show beside the recording; no pack references it, so ctx-gc
//     collects it in time.
//   - failed: no executor for a deterministic step, an executor error, a
//     timeout, parameters the executor cannot use, or a step with no tool.
//     A failed non-deterministic step is reported but does not lower
//     fidelity.
//   - skipped: a non-deterministic step with no executor (a model call,
//     say); a step that ran but has no recorded output to compare with (the
//     hash of what it produced is reported as actual); a step whose
//     recorded call failed (its error, or metadata.is_error: an error
//     message is not a result to reproduce); a step whose files the session saw only in part
//     or only by name, where what it asks is not in the pack; a step with
//     a path outside the recorded working directory (absolute elsewhere,
//     through "..", or under "~"): the pack holds nothing there; a step
//     that diverged or failed reading a file whose content the replay no
//     longer knows (an edit it could not carry out changed it), or
//     searching a directory holding one; a Glob or Grep of a directory
//     the pack holds nothing of; and a step
//     whose result the agent would have rendered in a way the renderer does
//     not reproduce (Options.Agents, Options.Edits; Skipf). The reason
//     says which.
//
// Skipped steps never lower fidelity, but they verify nothing. The report's
// summary counts the steps by status; verified is the number of steps that
// were executed and compared equal (matched). Fidelity is, in this order:
//
//   - failed (exit 4): a deterministic step could not execute, or an input
//     of the pack is missing;
//   - degraded (exit 1): a deterministic step diverged, a non-deterministic
//     step ctx ran failed (a step that failed is never exact), or a file
//     the session wrote came out other than it left it;
//   - unverified (exit 1): nothing diverged or failed, but no step was
//     verified either: a replay that compared nothing proves nothing;
//   - exact (exit 0): every deterministic step that could be compared
//     matched, and at least one step was verified.
//
// Nothing runs commands unless the user named the command: a recorded
// "bash" step with no executor fails with a reason saying how to give one;
// a pack someone sent you never executes code by itself.
//
// # Workspace
//
// By default every input of the pack is written under its name into a
// fresh temporary directory, which is removed afterwards unless Keep is
// set: the replay sees what the agent saw. With Live, steps run against a
// real directory instead; each input is then hashed in place, and a missing
// or changed input is reported as drift.
//
// The workspace holds no more than the pack's distinct content: an input
// is written only when its object has the size the pack declares, and
// inputs naming the same object share one file (hard links), so one 1 MB
// object named by 1,000 inputs costs 1 MB, not 1 GB. An external executor
// that rewrites such a file in place changes its twins too.
//
// # The session's edits
//
// The file edits a session made are carried out in the workspace, in step
// order, so that each later step sees the files as the session saw them
// at that moment: every tool package edit reads (edit.Tools: agents'
// file-editing tools, a patch run by a shell command, whatever
// Options.Agents holds, and ctx's own write_file and edit_file), applied
// by package edit, with the confinement of the built-ins (relative paths
// under the recorded working directory, no "..", no symbolic link out; a
// path outside is skipped). Steps left out by Options.Steps still change
// the files. An edit is a file operation: given the files, its effect and
// its answer are determined, so it is graded as deterministic whatever
// the pack says. Its answer is rendered as the agent gave it by the
// EditAnswerer of its tool (Options.Edits, a patch under "apply_patch"
// whichever tool ran it; each agent's package under lib/agent defines
// its own and documents their forms, lib/formats.ReplayEdits gathers
// them), which is given the edit, what it changed and the recorded
// answer (AppliedEdit), and compared. A recorded answer that says the
// edit changed nothing (EditAnswerer.Unchanged) leaves it unapplied and
// skips the step. The answer of a tool without an EditAnswerer (ctx's
// write_file and edit_file: each tool's own text) is not rendered, and
// the step is skipped once the edit is applied. An edit
// that does not apply (its old_string is not in the file, a patch's lines
// are not, a file it updates is missing) is diverged: the workspace is
// not what the session had. That file, and one changed by an edit whose
// starting content the pack does not hold or that is not reproduced
// (NotebookEdit), is then unknown (see above). In a hermetic workspace a
// file missing for an edit may be one the pack does not hold: such an
// edit is skipped. Files an edit writes get modification times after
// every input's, in step order, so listings ordered by time follow the
// session. Each step result lists its Changes (created, updated or
// deleted, with digests). Edits are not applied to a live tree (--live).
//
// After the last step, every output of the pack that a replayed edit
// wrote (or could not reproduce) is compared with the workspace
// (Report.Outputs; Summary.Outputs counts those written and those
// reproduced exactly). Options.Until stops after a step instead, leaving
// the workspace as it was then (kept with Keep, or made in Options.Dir).
//
// With Options.Git, the workspace is a temporary git work tree of a
// repository at the commit the session started from, as the pack records
// it (environment.metadata.git, package gitstate), with the pack's inputs
// over it: files the session saw only by name or in part are known from
// the commit, and the files that differed from the commit when the
// session was packed are unknown, unless the pack holds them whole or
// they held what the session wrote (its output of that name). The work
// tree is removed afterwards unless Keep.
//
// # Built-in executors
//
// Built-ins only read, and only inside the workspace. A path parameter must
// be relative, must not contain a ".." element (either is skipped as
// outside the working directory), and may not reach outside the
// workspace through a symbolic link (files are opened through an
// os.Root; that fails the step). Paths in outputs are relative to the workspace and use "/".
// A parameter a built-in does not know fails the step rather than being
// ignored, since it might have changed the recorded output. Walks (glob and
// grep over a directory) skip directories named .git and do not follow
// symbolic links. The output of each built-in is exactly:
//
//   - read_file {path | file_path | filename, offset?, limit?}: the file's
//     raw bytes. With offset (the first line, counting from 1) or limit (at
//     most that many lines), the bytes of those lines, line endings included.
//   - list_dir {path?, ignore?}: the entries of the directory (default "."),
//     sorted by name, one per line, each line ending in "\n"; directories
//     end in "/". Entries whose name matches a pattern in ignore (a list of
//     glob patterns) are left out.
//   - glob {pattern, path?}: every entry that is not a directory and whose
//     path relative to path (default ".") matches pattern, as
//     workspace-relative paths, sorted, one per line, each ending in "\n".
//     Patterns use path.Match syntax per path element, "**" as a whole
//     element matches any number of elements, and {a,b} alternatives expand
//     (nested too; at most 64 groups and 1024 alternatives, in time and
//     memory linear in the pattern).
//   - grep {pattern, path?, glob?, output_mode?, -i?, -n?, head_limit?}:
//     searches the file path, or every regular file under the directory
//     path (default "."), for the regular expression pattern (Go RE2
//     syntax; -i ignores case), line by line. Files holding a NUL byte are
//     binary and skipped. glob keeps files whose base name (or, if glob
//     holds a "/", whose path relative to path) matches it. Files are taken
//     in sorted path order, lines in file order. output_mode "content" (the
//     default) prints "PATH:N:LINE" for each matching line ("PATH:LINE" when
//     -n is false); "files_with_matches" prints each matching file's path;
//     "count" prints "PATH:COUNT" for each file with matches. Every output
//     line ends in "\n"; head_limit keeps the first lines only.
//
// The built-ins' version (for tool_versions drift) is BuiltinVersion.
// Other tool names map to them through Aliases (list_directory).
//
// # Agents' own tools
//
// Options.Agents are tools an agent runs itself, replayed as the agent
// gives their results to its model, byte for byte: each agent's package
// under lib/agent defines them (its read-only tools; some ctx-replay uses
// only when asked), the caller passes them (lib/formats.ReplayTools lists
// them all), and the user's Tools and the built-ins come first. They
// read with the same confinement as the built-ins (Resolve, Walk,
// ReadRegular), through the parameters as ParseParams reads them, and
// declare their own versions.
//
// Some of an agent's output does not depend on the files: a notice an
// agent appends to a read may depend on its version and the model. A
// renderer may look at the recorded output (Call.Recorded) to choose among
// such fixed notices, never to produce the result itself; what it cannot
// reproduce skips the step with the reason (Skipf).
//
// In a hermetic workspace (the pack's inputs, not --live) files have no
// real modification times: all get the same one. Listings ordered by
// modification time then come out in path order; when the recorded output
// holds the same lines in another order, the step is skipped with that
// reason rather than reported as diverged (Call.Unordered). Inputs the
// session saw only by name are listed (Workspace.Files); inputs seen in
// part (Workspace.SeenAs) serve the reads whose lines are all known; any
// other use of them skips the step.
//
// # External executors
//
// A Command runs with the step's parameters as JSON on stdin (canonical
// JSON; {} when there are none), CTX_TOOL and CTX_STEP_INDEX added to the
// environment, in the workspace directory. Its stdout is the output. A
// non-zero exit or a timeout fails the step with the last lines of its
// stderr as the reason; on a timeout the whole process group is killed.
package replay
