package gemini

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-tools/ctx/lib/agent"
)

// Driver runs the Gemini CLI (npm @google/gemini-cli) non-interactively
// against a model endpoint: GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY,
// the API-key auth chosen in ~/.gemini/settings.json, the workspace
// trusted (GEMINI_CLI_TRUST_WORKSPACE) and the model given with -m (else
// a routing request comes first). A later prompt resumes the latest
// session (--resume latest).
type Driver struct{}

func (Driver) Name() string       { return "gemini" }
func (Driver) Package() string    { return "@google/gemini-cli" }
func (Driver) Executable() string { return "gemini" }
func (Driver) Format() string     { return "gemini-cli" }
func (Driver) API() string        { return "gemini" }

// Env writes the settings under the home and returns the environment the
// Gemini CLI runs with, besides PATH.
func (Driver) Env(s agent.Session) ([]string, error) {
	dir := filepath.Join(s.Home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	settings := `{"security":{"auth":{"selectedType":"gemini-api-key"}},"general":{"disableAutoUpdate":true,"disableUpdateNag":true},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
		return nil, err
	}
	return []string{"HOME=" + s.Home, "GOOGLE_GEMINI_BASE_URL=" + s.BaseURLs["gemini"], "GEMINI_API_KEY=" + s.Key,
		"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_CLI_NO_RELAUNCH=true"}, nil
}

// Args is the command line that sends prompt.
func (Driver) Args(s agent.Session, prompt string, resume bool) []string {
	model := s.Model
	if model == "" {
		model = "gemini-2.5-pro"
	}
	args := []string{"-p", prompt, "--yolo", "-m", model}
	if resume {
		args = append(args, "--resume", "latest")
	}
	return args
}

// Transcript is the chat the Gemini CLI saved: the newest
// ~/.gemini/tmp/<project>/chats/session-*.json(l).
func (Driver) Transcript(s agent.Session) (string, error) {
	return agent.Newest(filepath.Join(s.Home, ".gemini", "tmp"), func(p string) bool {
		return strings.Contains(filepath.ToSlash(p), "/chats/") && strings.HasPrefix(filepath.Base(p), "session-")
	})
}
