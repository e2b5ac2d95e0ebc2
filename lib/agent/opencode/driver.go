// Package opencode holds what ctx knows of OpenCode that is not one
// consumer's alone: its sessions' format (Format: an export, or a session
// of its file storage), the way it is run against a model endpoint
// (Driver) and the side requests it makes besides its turns.
package opencode

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent"
)

// Driver runs OpenCode (npm opencode-ai) non-interactively against a
// model endpoint: a provider "ctx" of @ai-sdk/openai-compatible with the
// endpoint's base URL in opencode.json, every XDG directory in the
// scratch home, no model list fetched, no update, no LSP download;
// `opencode run --pure -m ctx/MODEL` with the prompt on its standard
// input, then --continue. Its sessions are in SQLite: the transcript is
// what `opencode export ID` prints.
type Driver struct{}

func (Driver) Name() string       { return "opencode" }
func (Driver) Package() string    { return "opencode-ai" }
func (Driver) Executable() string { return "opencode" }
func (Driver) Format() string     { return "opencode" }
func (Driver) API() string        { return "openai-chat" }

func model(s agent.Session) string {
	if s.Model == "" {
		return "model"
	}
	return s.Model
}

// Env writes opencode.json under the home and returns the environment
// OpenCode runs with, besides PATH.
func (Driver) Env(s agent.Session) ([]string, error) {
	cfg := filepath.Join(s.Home, ".config", "opencode")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		return nil, err
	}
	m := strconv.Quote(model(s))
	config := fmt.Sprintf(`{"$schema":"https://opencode.ai/config.json","autoupdate":false,"share":"disabled",
"provider":{"ctx":{"npm":"@ai-sdk/openai-compatible","name":"ctx-serve","options":{"baseURL":%s,"apiKey":%s},"models":{%s:{"name":%s}}}},
"model":%s}
`, strconv.Quote(s.BaseURLs["openai"]), strconv.Quote(s.Key), m, m, strconv.Quote("ctx/"+model(s)))
	if err := os.WriteFile(filepath.Join(cfg, "opencode.json"), []byte(config), 0o644); err != nil {
		return nil, err
	}
	return []string{"HOME=" + s.Home,
		"XDG_CONFIG_HOME=" + filepath.Join(s.Home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(s.Home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(s.Home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(s.Home, ".local", "state"),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1"}, nil
}

// Args is the command line that sends a prompt, which OpenCode reads on
// its standard input (PromptOnStdin): there it takes the text as it is,
// where `opencode run WORDS…` joins its words with spaces, quotes a word
// holding a space and reads a word that looks like a number as one.
func (Driver) Args(s agent.Session, _ string, resume bool) []string {
	args := []string{"run", "--pure", "-m", "ctx/" + model(s)}
	if resume {
		args = append(args, "--continue")
	}
	return args
}

// PromptOnStdin says OpenCode reads the prompt on its standard input.
func (Driver) PromptOnStdin() bool { return true }

// Transcript exports the newest session as JSON into the home and
// returns the file.
func (Driver) Transcript(s agent.Session) (string, error) {
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command(s.Bin, args...)
		cmd.Dir, cmd.Env = s.Workspace, s.Env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("opencode %s: %v: %s", args[0], err, bytes.TrimSpace(stderr.Bytes()))
		}
		return out, nil
	}
	list, err := run("session", "list", "--format", "json", "-n", "1")
	if err != nil {
		return "", err
	}
	id := gjson.GetBytes(list, "0.id").String()
	if id == "" {
		return "", fmt.Errorf("opencode recorded no session")
	}
	doc, err := run("export", id)
	if err != nil {
		return "", err
	}
	path := filepath.Join(s.Home, "opencode-export-"+id+".json")
	return path, os.WriteFile(path, doc, 0o644)
}
