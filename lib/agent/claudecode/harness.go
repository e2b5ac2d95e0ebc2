// Package claudecode holds what ctx knows of Claude Code that is not one
// consumer's alone: the text its harness writes into a conversation, the
// way it is run against a model endpoint (Driver), and the API it speaks.
package claudecode

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-tools/ctx/lib/agent"
)

// harnessTags are the tags that open the text of a record the harness
// writes, and the kind each says it is.
var harnessTags = []struct{ tag, kind string }{
	{"task-notification", "task-notification"}, // a background command or subagent finished
	{"command-name", agent.KindCommand},        // a slash command
	{"command-message", agent.KindCommand},
	{"command-args", agent.KindCommand},
	{"command-contents", agent.KindCommand},
	{"local-command-stdout", agent.KindCommandOutput}, // its output
	{"local-command-stderr", agent.KindCommandOutput},
	{"local-command-caveat", "command-caveat"},
	{"bash-input", agent.KindShellInput}, // a "!" shell command
	{"bash-stdout", agent.KindShellOutput},
	{"bash-stderr", agent.KindShellOutput},
	{"system-reminder", "system-reminder"},
}

// interrupts are the texts Claude Code writes as a user record when the
// user stops a turn (Esc): the whole text of the record.
var interrupts = []string{"[Request interrupted by user]", "[Request interrupted by user for tool use]"}

// HarnessText returns the kind of harness text a text block is, if it is
// one — it opens with one of harnessTags, or is an interrupt — and what
// shows it ("<task-notification>", the interrupt's text).
func HarnessText(text string) (kind, shown string) {
	if slices.Contains(interrupts, text) {
		return "interrupt", text
	}
	return HarnessTag(text)
}

// HarnessTag returns the kind of the tag text opens with, if it is one
// of harnessTags, and the tag as "<tag>".
func HarnessTag(text string) (kind, tag string) {
	t := strings.TrimLeft(text, " \t\r\n")
	if !strings.HasPrefix(t, "<") {
		return "", ""
	}
	for _, h := range harnessTags {
		if rest, ok := strings.CutPrefix(t[1:], h.tag); ok && rest != "" && (rest[0] == '>' || rest[0] == ' ') {
			return h.kind, "<" + h.tag + ">"
		}
	}
	return "", ""
}

// Clean makes a tool's output as Claude Code sends it comparable with
// its transcript and from run to run: it removes the <system-reminder>
// blocks Claude Code appends to a tool's output before sending it (a
// reminder to check a file read for malware, to keep a todo list), which
// its transcript does not record with the output, and in a subagent's
// hand-back (the Agent tool's answer) reads the subagent's random id as
// "agentId: 0" and its "duration_ms: N" as 0.
func Clean(text string) string {
	if strings.Contains(text, "agentId: ") {
		text = agentID.ReplaceAllString(text, "${1}0${2}0${3}")
		text = durationMS.ReplaceAllString(text, "${1}0")
	}
	return WithoutReminders(text)
}

// agentID is the line naming a subagent after its hand-back; durationMS
// the time it took, in the <usage> block after it.
var (
	agentID    = regexp.MustCompile(`(?m)^(agentId: )[0-9a-z]+( \(use SendMessage with to: ')[0-9a-z]+(')`)
	durationMS = regexp.MustCompile(`(?m)^(duration_ms: )[0-9]+`)
)

// WithoutReminders removes the <system-reminder> blocks at the end of a
// tool's output.
func WithoutReminders(text string) string {
	for {
		i := strings.LastIndex(text, "<system-reminder>")
		if i < 0 || !strings.HasSuffix(strings.TrimRight(text, " \t\r\n"), "</system-reminder>") {
			return text
		}
		text = strings.TrimRight(text[:i], " \t\r\n")
	}
}

// ExitCode returns the exit code a failed command's result states: Claude
// Code answers a Bash command that exited with status N (not 0) with
// "Exit code N" on the first line, then the output.
func ExitCode(text string) (int, bool) {
	first, _, _ := strings.Cut(text, "\n")
	n, ok := strings.CutPrefix(first, "Exit code ")
	if !ok {
		return 0, false
	}
	code, err := strconv.Atoi(n)
	if err != nil || n != strconv.Itoa(code) {
		return 0, false
	}
	return code, true
}
