package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"
)

// Hook is what an agent's hook (or notify program) is given when a session
// stops or a turn ends: the session's transcript, where it ran, and what
// happened. Packing the transcript it names is one line in the agent's
// configuration.
type Hook struct {
	// Transcript is the path of the session's own log.
	Transcript string
	// Cwd, SessionID and Event are as the payload gives them ("" if not).
	Cwd, SessionID, Event string
	// ToolUseID and Tool name the step a PreToolUse or PostToolUse
	// payload is about ("" otherwise).
	ToolUseID, Tool string
	// Within is the directory the transcript was found in, when ctx
	// looked it up itself (a Codex rollout under sessions/): symlinks
	// must not lead out of it.
	Within string
}

// MaxTranscript bounds a transcript ctx finds for itself (the one a hook
// payload names, a Codex rollout, a subagent's transcript): each must be
// a regular file of at most this many bytes (lib/found).
const MaxTranscript = 1 << 30

// ParseHook recognises a hook payload: Claude Code's hook input (a JSON
// object with transcript_path, and session_id or hook_event_name; Codex's
// hooks have the same shape), or Codex's notify argument (an object with
// "type": "agent-turn-complete" and "thread-id"), whose rollout is looked
// up under codexHome (see CodexHome). It returns nil, nil when data is not
// a hook payload (a transcript, say), and an error when it is one whose
// transcript cannot be found.
func ParseHook(data []byte, codexHome string) (*Hook, error) {
	rec, ok := FirstRecord(data)
	if !ok || !rec.IsObject() || !gjson.ValidBytes(data) {
		return nil, nil
	}
	str := func(k string) string {
		if v := rec.Get(gjson.Escape(k)); v.Type == gjson.String {
			return v.Str
		}
		return ""
	}
	switch {
	case rec.Get("transcript_path").Exists() && (rec.Get("session_id").Exists() || rec.Get("hook_event_name").Exists()):
		h := &Hook{Transcript: str("transcript_path"), Cwd: str("cwd"), SessionID: str("session_id"), Event: str("hook_event_name"),
			ToolUseID: str("tool_use_id"), Tool: str("tool_name")}
		if h.Transcript == "" {
			return nil, errors.New("hook payload: transcript_path is not a non-empty string")
		}
		if !filepath.IsAbs(h.Transcript) && h.Cwd != "" {
			h.Transcript = filepath.Join(h.Cwd, h.Transcript)
		}
		return h, nil
	case str("type") == "agent-turn-complete" && rec.Get("thread-id").Exists():
		h := &Hook{Cwd: str("cwd"), SessionID: str("thread-id"), Event: "agent-turn-complete"}
		if h.SessionID == "" {
			return nil, errors.New("codex notify payload: thread-id is not a non-empty string")
		}
		p, err := findRollout(codexHome, h.SessionID)
		if err != nil {
			return nil, err
		}
		h.Transcript, h.Within = p, filepath.Join(codexHome, "sessions")
		return h, nil
	}
	return nil, nil
}

// CodexHome returns where Codex keeps its sessions: $CODEX_HOME, else
// ~/.codex.
func CodexHome() string {
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
