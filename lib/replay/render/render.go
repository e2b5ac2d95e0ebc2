// Package render holds what the agents' renderings share with package
// replay: Unsupported, the error by which a renderer that cannot reproduce
// a result exactly skips the step (replay.Skipf), and the shell-word
// splitting that commands are read with (shellwords.go). The renderings
// themselves, which reproduce byte for byte the text an agent gives its
// model as a tool's result (its read-only tools, its answers to edits,
// the frame it records around a command's output), live in the agent's
// package under lib/agent.
//
// A renderer is a pure function of what the tool found (a file's bytes, a
// list of names, matching lines); finding it is the caller's business (the
// executors of package replay, confined to a workspace). Where the
// agent's output depends on something a renderer cannot know or does not
// reproduce (a version-dependent notice, a truncation whose wording differs
// between versions), the renderer returns an *Unsupported error saying so,
// rather than a guess: a replay then skips the step with that reason.
package render

// Unsupported reports a result the renderer cannot reproduce exactly. A
// replay skips the step with Reason; it is not a failure of the run.
type Unsupported struct {
	Reason string
}

// Error returns the reason.
func (e *Unsupported) Error() string { return e.Reason }
