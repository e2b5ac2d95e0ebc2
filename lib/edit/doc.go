// Package edit applies the file edits that agents record, the one way ctx
// does it: Claude Code's Write, Edit, MultiEdit (and NotebookEdit, named
// but not applied), Codex's apply_patch (as a tool or as a command), and
// ctx's own write_file and edit_file.
//
// Parse reads a recorded step's tool name and parameters into an Edit;
// Edit.Apply carries it out on file contents a Reader gives and returns
// each file's Change, writing nothing. The package knows nothing of
// workspaces, stores or replays: where the files live, and whether a path
// may be touched at all (Edit.Paths lists them first), is the caller's
// business. An edit that does not apply to the contents given (an
// old_string not in the file, patch lines not found, a missing file) is a
// *Conflict, which says the files are not those the session had.
//
// Replacements follow Claude Code's Edit: the first occurrence of
// old_string, or every one with replace_all; an empty old_string creates
// a file (or fills an empty one); an empty new_string removes a line's
// break along with it when old_string does not end in one. Patches follow
// openai/codex's apply-patch: "*** Begin Patch" … "*** End Patch", Add,
// Delete and Update File sections, "*** Move to:", chunks sought from
// where the previous one ended, exactly, then ignoring trailing and then
// surrounding white space (its last, Unicode-punctuation pass is not
// reproduced); an updated file ends in a line break.
package edit
