// Package agent holds what every agent package shares: the Session an
// agent is run in. Each agent's own knowledge (its harness text, how it
// is run against a model endpoint, where it writes its transcript) lives
// in the package named for it (claudecode, codex, gemini, opencode); the
// consumers (ctx-serve, ctx-replay --agent, the live-agent tests) define
// the small interfaces they need of them.
package agent

import (
	"fmt"
	"io/fs"
	"path/filepath"
)

// A Session is one run of an agent against a model endpoint: the scratch
// home it keeps its settings and transcripts in, the workspace it works
// in, and where its model answers.
type Session struct {
	Home      string
	Workspace string
	// BaseURLs are the endpoint's base URLs by API: "anthropic",
	// "openai" (with /v1), "gemini".
	BaseURLs map[string]string
	// Model is the model the agent asks for.
	Model string
	// Key is the API key the agent sends (the endpoint is local: any
	// value).
	Key string
	// Bin is the agent's executable, and Env the environment it runs
	// with (set once the driver has made it), for a driver that asks the
	// agent itself where its transcript is.
	Bin string
	Env []string
}

// Newest returns the most recently changed file under dir that keep
// accepts: the transcript an agent wrote last.
func Newest(dir string, keep func(path string) bool) (string, error) {
	var best string
	var bestTime int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !keep(p) {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if t := info.ModTime().UnixNano(); best == "" || t > bestTime {
			best, bestTime = p, t
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("finding the transcript under %s: %w", dir, err)
	}
	if best == "" {
		return "", fmt.Errorf("no transcript under %s", dir)
	}
	return best, nil
}
