package agent

import "strings"

// Harness kinds: what a prompt is that the agent's harness wrote, or
// that the user typed to the harness rather than to the model. Every
// importer names the same thing by the same kind, whatever the agent.
const (
	// KindCommand is a command to the harness: a slash command
	// (Claude Code's /clear, Aider's /add, /drop, /model).
	KindCommand = "command"
	// KindCommandOutput is what such a command printed.
	KindCommandOutput = "command-output"
	// KindShellInput is a shell command the user ran through the
	// harness ("!" in Claude Code and Aider); KindShellOutput its output.
	KindShellInput  = "shell-input"
	KindShellOutput = "shell-output"
)

// SlashCommand returns the name of the command a line typed to the
// harness gives ("add" for "/add calc.py"): a "/" then a letter opens a
// command, never a prompt to the model.
func SlashCommand(text string) (string, bool) {
	rest, ok := strings.CutPrefix(text, "/")
	if !ok || rest == "" || !(rest[0] >= 'a' && rest[0] <= 'z' || rest[0] >= 'A' && rest[0] <= 'Z') {
		return "", false
	}
	name, _, _ := strings.Cut(rest, " ")
	name, _, _ = strings.Cut(name, "\n")
	return name, true
}
