package codex

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent"
)

// Driver runs the Codex CLI (npm @openai/codex) non-interactively against
// a model endpoint: a model provider "ctx" in ~/.codex/config.toml with
// the endpoint's base URL, wire_api "responses" and an env_key, and
// `codex exec` with approvals and the sandbox bypassed (the workspace is
// a scratch directory). The workspace is a trusted project, so a
// .codex/config.toml among the pack's inputs applies as it did where the
// session ran (its MCP servers, say). A later prompt resumes the last
// session (`codex exec resume --last`).
type Driver struct{}

func (Driver) Name() string       { return "codex" }
func (Driver) Package() string    { return "@openai/codex" }
func (Driver) Executable() string { return "codex" }
func (Driver) Format() string     { return "codex" }
func (Driver) API() string        { return "openai-responses" }

// Env writes Codex's configuration under the home and returns the
// environment it runs with, besides PATH.
func (Driver) Env(s agent.Session) ([]string, error) {
	home := filepath.Join(s.Home, ".codex")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	model := s.Model
	if model == "" {
		model = "gpt-5.5"
	}
	config := fmt.Sprintf(`model = %s
model_provider = "ctx"
check_for_update_on_startup = false

[model_providers.ctx]
name = "ctx-serve"
base_url = %s
wire_api = "responses"
env_key = "CTX_SERVE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[projects.%s]
trust_level = "trusted"
`, strconv.Quote(model), strconv.Quote(s.BaseURLs["openai"]), strconv.Quote(s.Workspace))
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644); err != nil {
		return nil, err
	}
	return []string{"HOME=" + s.Home, "CODEX_HOME=" + home, "CTX_SERVE_API_KEY=" + s.Key}, nil
}

// Args is the command line that sends prompt.
func (Driver) Args(s agent.Session, prompt string, resume bool) []string {
	args := []string{"exec"}
	if resume {
		args = append(args, "resume", "--last")
	}
	return append(args, "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", prompt)
}

// Transcript is the rollout Codex wrote: the newest
// ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl of a session of its own,
// not a subagent's (whose session_meta names its parent_thread_id, and
// which may be written after the session's).
func (Driver) Transcript(s agent.Session) (string, error) {
	dir := filepath.Join(s.Home, ".codex", "sessions")
	return agent.Newest(dir, func(p string) bool {
		return strings.HasPrefix(filepath.Base(p), "rollout-") && strings.HasSuffix(p, ".jsonl") && !subagentRollout(p)
	})
}

// subagentRollout reports whether the rollout at p is a subagent's: its
// first line, the session_meta, names a parent thread.
func subagentRollout(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReaderSize(f, 1<<20).ReadSlice('\n')
	meta := gjson.GetBytes(line, "payload")
	return gjson.GetBytes(line, "type").String() == "session_meta" && meta.Get("parent_thread_id").String() != ""
}
