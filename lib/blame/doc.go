// Package blame finds, for each line of a file, the recorded agent step
// that wrote it: the pack, the step, its tool, session, model and the
// prompt that led to it.
//
// # How a line is attributed
//
// The store's packs are read for the steps that changed files (Write,
// Edit, MultiEdit, NotebookEdit, apply_patch, write_file, edit_file: the
// edits lib/edit knows how to apply). For each file they touched, those
// edits are applied in time order, starting from the content each session
// first saw of the file (its pack input) when it had one. This gives a
// history of versions of the file, as git blame walks commits: each
// version is aligned line by line with the one before (lib/drift's
// alignment, the one ctx-diff uses), lines that survive keep their origin
// and the lines an edit added take the edit's step as origin. Every whole
// view of a file a step recorded (a session's first view, a whole Read's
// answer, an edit's originalFile) is a version too: one that differs from
// the history is a change nobody recorded (a person's, between sessions or
// between two edits of one), whose changed lines have no origin. Lines
// present before any recorded edit have none either.
//
// The file as it is now is then aligned with the last version:
//
//   - a line equal to an attributed line is that line's origin;
//   - lines are compared with their leading and trailing white space
//     removed, so a re-indented line keeps its origin (Reindented is set);
//   - a line that replaced an attributed line and still shares most of
//     its text with it (similarity ≥ 0.5, by the longest common
//     subsequence of their characters) was written by the agent and then
//     changed by a person: Mixed;
//   - any other line that a recorded edit wrote, anywhere in any file
//     (code moved within a file or to another one, a file renamed outside
//     the session), matches by its trimmed text (Moved is set); lines
//     too common to say anything (blank lines, lines of fewer than 8
//     characters after trimming, such as "}" or "end") are never
//     attributed this way;
//   - every other line is unknown: written by a person, or by a session
//     that was never packed.
//
// A line a session found in a file it read in part, or in one it read
// and edited (its pack's inputs), is never that session's, and a line is never credited to a
// step recorded after the time the caller says it existed (Past: the
// date of the commit that holds it), nor taken for a changed form of an
// agent's line the file did not hold just before it became what it is.
//
// Paths in packs are relative to the session's working directory; a file
// is looked up by its path relative to the root of its work tree.
package blame
