// Package gemini holds what ctx knows of the Gemini CLI that is not one
// consumer's alone: its sessions' format (Format: saved sessions,
// checkpoints, stream-json transcripts), the context its harness writes
// into a conversation,
// the run-to-run text of its tools' answers, and the way it is run
// against a model endpoint (Driver).
package gemini

import (
	"regexp"
	"strings"
)

// contextTags open the texts the Gemini CLI writes into a conversation
// itself: the session's context (date, operating system, working
// directory and its listing), and the like.
var contextTags = []string{"<session_context>", "This is the Gemini CLI. We are setting up the context for our chat."}

// Harness reports whether a user text is the Gemini CLI's own context.
func Harness(text string) bool { return Context(text) != "" }

// Context returns the kind of the Gemini CLI's own text a user text is
// ("session-context": the date, the operating system, the workspace
// directories and their listing), or "" when it is none.
func Context(text string) string {
	t := strings.TrimSpace(text)
	for _, tag := range contextTags {
		if strings.HasPrefix(t, tag) {
			return "session-context"
		}
	}
	return ""
}

// workdirLines introduce the working directory in the session's
// context: the first of its workspace directories (0.1x and later, one
// per line below the heading), or the one directory older versions name.
var workdirLines = []string{"- **Workspace Directories:**\n  - ", "I'm currently working in the directory: "}

// Workdir returns the working directory the Gemini CLI's session context
// names, or "" when text is no session context or names none.
func Workdir(text string) string {
	if Context(text) == "" {
		return ""
	}
	for _, l := range workdirLines {
		if _, after, ok := strings.Cut(text, l); ok {
			dir, _, _ := strings.Cut(after, "\n")
			return strings.TrimSpace(dir)
		}
	}
	return ""
}

// pgid is the line run_shell_command puts under a command's output that
// differs from run to run: the process group the command ran in.
var pgid = regexp.MustCompile(`(?m)^Process Group PGID: [0-9]+$`)

// Clean makes a tool's output as the Gemini CLI sends it comparable from
// run to run: run_shell_command's "Process Group PGID: N" line reads as
// "Process Group PGID: 0".
func Clean(text string) string {
	if strings.Contains(text, "Process Group PGID: ") {
		text = pgid.ReplaceAllString(text, "Process Group PGID: 0")
	}
	return text
}
