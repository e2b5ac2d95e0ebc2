// Package render reproduces, byte for byte, the text that coding agents
// give their model as a tool's result, where package replay needs it
// itself: the answers to file edits, Claude Code's Write, Edit and
// MultiEdit and Codex's apply_patch (edit.go), in the frame Codex records
// around a command's output (codexframe.go); and the shell-word splitting
// that commands are read with (shellwords.go). An agent's renderings of its
// other tools live in its package under lib/agent (Claude Code's Read,
// Glob, Grep and LS; Codex's plain read-only shell commands), with the
// same contract.
//
// A renderer is a pure function of what the tool found (a file's bytes, a
// list of names, matching lines); finding it is the caller's business (the
// executors of package replay, confined to a workspace). Where the
// agent's output depends on something a renderer cannot know or does not
// reproduce (a version-dependent notice, a truncation whose wording differs
// between versions), the renderer returns an *Unsupported error saying so,
// rather than a guess: a replay then skips the step with that reason.
package render

import "fmt"

// Unsupported reports a result the renderer cannot reproduce exactly. A
// replay skips the step with Reason; it is not a failure of the run.
type Unsupported struct {
	Reason string
}

// Error returns the reason.
func (e *Unsupported) Error() string { return e.Reason }

func unsupported(format string, args ...any) error {
	return &Unsupported{Reason: fmt.Sprintf(format, args...)}
}
