package claudecode

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ctx-tools/ctx/lib/agent"
)

// Driver runs Claude Code (npm @anthropic-ai/claude-code) non-interactively
// against a model endpoint: ANTHROPIC_BASE_URL and any ANTHROPIC_API_KEY,
// IS_SANDBOX=1 so that it runs as root with permissions skipped, and no
// traffic but the model's (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC,
// DISABLE_AUTOUPDATER). A later prompt continues the session (--continue).
type Driver struct{}

func (Driver) Name() string       { return "claude-code" }
func (Driver) Package() string    { return "@anthropic-ai/claude-code" }
func (Driver) Executable() string { return "claude" }
func (Driver) Format() string     { return "claude-code" }
func (Driver) API() string        { return "anthropic" }

// Env is the environment Claude Code runs with, besides PATH.
func (Driver) Env(s agent.Session) ([]string, error) {
	return []string{
		"HOME=" + s.Home,
		"ANTHROPIC_BASE_URL=" + s.BaseURLs["anthropic"],
		"ANTHROPIC_API_KEY=" + s.Key,
		"IS_SANDBOX=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
	}, nil
}

// Args is the command line that sends prompt; resume continues the
// session of the workspace.
func (Driver) Args(s agent.Session, prompt string, resume bool) []string {
	args := []string{"-p", prompt, "--dangerously-skip-permissions", "--output-format", "json"}
	if s.Model != "" {
		args = append(args, "--model", s.Model)
	}
	if resume {
		args = append(args, "--continue")
	}
	return args
}

// Transcript is the session transcript Claude Code wrote under the home:
// ~/.claude/projects/<workspace, its / and . as ->/<session id>.jsonl.
func (Driver) Transcript(s agent.Session) (string, error) {
	dir := filepath.Join(s.Home, ".claude", "projects")
	return agent.Newest(dir, func(p string) bool {
		return strings.HasSuffix(p, ".jsonl") && !strings.Contains(filepath.ToSlash(p), "/subagents/")
	})
}

// Command returns the prompt that typed a slash command again, from the
// record Claude Code writes for it (<command-name>/compact</command-name>
// … <command-args>…</command-args>): the name, then its arguments.
func (Driver) Command(text string) (string, bool) {
	m := commandName.FindStringSubmatch(text)
	if m == nil || !strings.HasPrefix(m[1], "/") {
		return "", false
	}
	if a := commandArgs.FindStringSubmatch(text); a != nil && strings.TrimSpace(a[1]) != "" {
		return m[1] + " " + a[1], true
	}
	return m[1], true
}

var (
	commandName = regexp.MustCompile(`<command-name>([^<]+)</command-name>`)
	commandArgs = regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`)
)
