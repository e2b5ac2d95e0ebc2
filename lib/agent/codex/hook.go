package codex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/importer"
)

// hook is the Codex format's Hook: Notify with the sessions under Home.
func hook(payload gjson.Result) (*importer.Hook, error) { return Notify(payload, Home()) }

// Notify recognises Codex's notify argument (an object with "type":
// "agent-turn-complete" and "thread-id"; payload as importer.HookPayload
// returns it), whose rollout is looked up under home (see Home). It
// returns nil, nil when payload is not one, and an error when it is one
// whose rollout cannot be found. (Codex's hooks send a payload naming the
// transcript: importer.ParseHook.)
func Notify(payload gjson.Result, home string) (*importer.Hook, error) {
	if importer.HookString(payload, "type") != "agent-turn-complete" || !payload.Get("thread-id").Exists() {
		return nil, nil
	}
	h := &importer.Hook{Cwd: importer.HookString(payload, "cwd"), SessionID: importer.HookString(payload, "thread-id"), Event: "agent-turn-complete"}
	if h.SessionID == "" {
		return nil, errors.New("codex notify payload: thread-id is not a non-empty string")
	}
	p, err := findRollout(home, h.SessionID)
	if err != nil {
		return nil, err
	}
	h.Transcript, h.Within = p, filepath.Join(home, "sessions")
	return h, nil
}

// Home returns where Codex keeps its sessions: $CODEX_HOME, else
// ~/.codex.
func Home() string {
	if h := os.Getenv("CODEX_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".codex")
}

// findRollout finds the rollout of Codex thread id under home:
// sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl. With several, the last
// in path order (the latest day) is the one.
func findRollout(home, id string) (string, error) {
	if strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return "", fmt.Errorf("codex notify payload: thread-id %q is not an id", id)
	}
	if home == "" {
		return "", errors.New("codex notify payload: no Codex home to find the rollout in (set CODEX_HOME)")
	}
	dir := filepath.Join(home, "sessions")
	suffix := "-" + id + ".jsonl"
	var found string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), suffix) {
			found = p
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("codex notify payload: looking for the rollout of thread %s: %w", id, err)
	}
	if found == "" {
		return "", fmt.Errorf("codex notify payload: no rollout of thread %s under %s", id, dir)
	}
	return found, nil
}
