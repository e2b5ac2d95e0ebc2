// Package observe records what an agent's steps changed on disk, for the
// steps no edit tool describes: a shell command that ran sed -i, mv, a
// code generator. An agent's hook calls Record before and after each
// tool step (Claude Code's PreToolUse, and PostToolUse or
// PostToolUseFailure); Record compares
// the files of the session's working directory that differ from git's
// HEAD with what they held at the session's previous observation, keeps
// the content of each file that changed as an object in the store, and
// appends a line to the session's journal (observed/<hash of the
// session id>.jsonl in the store). When the session is packed from its
// hook, Attach gives each step the files it was seen to change
// (manifest.Step.Observed), which lib/blame attributes to it.
//
// Content is kept for regular files of at most MaxSize bytes that are
// not binary (a NUL byte among their first 8,000, git's rule); of any
// other file the journal says why not (Skipped). A step's observation
// compares with the previous one of the same session: without an
// observation before the first step (PreToolUse), the first step is
// compared with HEAD.
package observe

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/found"
	gitcmd "github.com/ctx-tools/ctx/lib/git"
	"github.com/ctx-tools/ctx/lib/gitstate"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// MaxSize is the largest file whose content an observation keeps.
const MaxSize = 1 << 20

// Dir is the store directory the journals live in.
const Dir = "observed"

// maxJournal bounds a journal read at packing time.
const maxJournal = 64 << 20

// Skipped reasons.
const (
	SkippedLarge   = "larger than 1 MiB"
	SkippedBinary  = "binary"
	SkippedSpecial = "not a regular file"
)

// Entry is one line of a session's journal: an observation of the
// working directory before or after a step.
type Entry struct {
	// Event is the hook event (Events).
	Event string `json:"event"`
	// Time is when the observation was made (RFC 3339, UTC).
	Time string `json:"time"`
	// ToolUseID is the step's id in the agent's transcript (Claude
	// Code's tool_use_id), Tool its tool.
	ToolUseID string `json:"tool_use_id,omitzero"`
	Tool      string `json:"tool,omitzero"`
	// State maps each file that differed from HEAD to what it held:
	// "sha256:…", "deleted", or "size:<bytes>:<mtime>" for a file whose
	// content is not kept.
	State map[string]string `json:"state"`
	// Observed are the files whose state changed since the previous
	// observation (after a step only), as the step left them.
	Observed []manifest.Observed `json:"observed,omitzero"`
}

// Events lists the hook events Record observes for: before a step, and
// after it (Claude Code's PostToolUseFailure follows a step that failed,
// which may have changed files all the same).
var Events = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure"}

// After reports whether the event is one after a step.
func After(event string) bool { return event == "PostToolUse" || event == "PostToolUseFailure" }

// journal returns the path of session's journal in s.
func journal(s *store.Store, session string) string {
	sum := sha256.Sum256([]byte(session))
	return filepath.Join(s.Root(), Dir, hex.EncodeToString(sum[:])+".jsonl")
}

// Record observes dir, the session's working directory, for a hook
// event: it stores the content of each file changed since the
// session's previous observation (after a step) and appends the entry
// to the journal, which it returns.
func Record(s *store.Store, dir, session string, e Entry) (*Entry, error) {
	if session == "" {
		return nil, errors.New("observing the working directory: the hook payload has no session_id")
	}
	names, err := gitstate.ChangedNames(dir, "HEAD", StoreIn(s, dir)...)
	if err != nil {
		if out, gerr := gitcmd.Run(dir, "rev-parse", "--is-inside-work-tree"); gerr != nil || strings.TrimSpace(string(out)) != "true" {
			return nil, gitstate.ErrNotWorkTree
		}
		return nil, fmt.Errorf("observing %s: %w", dir, err)
	}
	before, err := lastState(s, session)
	if err != nil {
		return nil, err
	}
	e.State = map[string]string{}
	contents := map[string][]byte{}
	for _, n := range names {
		st, b, err := stateOf(dir, n)
		if err != nil {
			return nil, fmt.Errorf("observing %s: %w", dir, err)
		}
		e.State[n] = st
		if b != nil {
			contents[n] = b
		}
	}
	if After(e.Event) {
		// A file that left the list is as HEAD has it again: read it.
		all := slices.Collect(func(yield func(string) bool) {
			for n := range e.State {
				if !yield(n) {
					return
				}
			}
			for n := range before {
				if _, ok := e.State[n]; !ok && !yield(n) {
					return
				}
			}
		})
		slices.Sort(all)
		for _, n := range all {
			now, ok := e.State[n]
			if !ok {
				st, b, err := stateOf(dir, n)
				if err != nil {
					return nil, fmt.Errorf("observing %s: %w", dir, err)
				}
				now, contents[n] = st, b
			}
			if before[n] == now {
				continue
			}
			o := manifest.Observed{Name: n}
			switch b, ok := contents[n]; {
			case now == gitstate.Deleted:
				o.Deleted = true
			case ok:
				d, _, err := s.Put(b)
				if err != nil {
					return nil, fmt.Errorf("observing %s: storing %s: %w", dir, n, err)
				}
				o.ContentRef, o.Size = d, int64(len(b))
			default:
				o.Skipped = skipped(now)
			}
			e.Observed = append(e.Observed, o)
		}
	}
	line, err := json.Marshal(e, json.Deterministic(true))
	if err != nil {
		return nil, err
	}
	p := journal(s, session)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("observing %s: %w", dir, err)
	}
	// One write per line: hooks of steps run at once append whole lines.
	if err := store.AppendFile(p, append(line, '\n')); err != nil {
		return nil, fmt.Errorf("observing %s: writing %s: %w", dir, p, err)
	}
	return &e, nil
}

// StoreIn returns the store's directory relative to dir when it is under
// dir (a project's .ctx/), for gitstate to leave out: the store is not
// the session's work. Otherwise none.
func StoreIn(s *store.Store, dir string) []string {
	root, err := filepath.Abs(s.Root())
	if err != nil {
		return nil
	}
	if rel, err := filepath.Rel(dir, root); err == nil && filepath.IsLocal(rel) {
		return []string{rel}
	}
	return nil
}

// stateOf returns the state of the file n under dir, and its content
// when it is kept.
func stateOf(dir, n string) (string, []byte, error) {
	p := filepath.Join(dir, filepath.FromSlash(n))
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return gitstate.Deleted, nil, nil
	case err != nil:
		return "", nil, err
	case !fi.Mode().IsRegular():
		return "special:" + fi.Mode().Type().String(), nil, nil
	case fi.Size() > MaxSize:
		return "size:" + strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10), nil, nil
	}
	b, err := found.ReadFile(p, found.Rule{What: "changed file", Max: MaxSize, Within: dir})
	var fe *found.Error
	if errors.As(err, &fe) || errors.Is(err, fs.ErrNotExist) {
		return gitstate.Deleted, nil, nil // gone, or replaced, since it was listed
	} else if err != nil {
		return "", nil, err
	}
	if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
		return "binary:" + digest.Of(b).String(), nil, nil
	}
	return digest.Of(b).String(), b, nil
}

// skipped says why a state holds no content.
func skipped(state string) string {
	switch {
	case len(state) > 5 && state[:5] == "size:":
		return SkippedLarge
	case len(state) > 7 && state[:7] == "binary:":
		return SkippedBinary
	}
	return SkippedSpecial
}

// lastState returns the state the session's latest observation recorded
// (none: HEAD's), reading only the end of the journal: it grows by a
// line per step, and is read before each.
func lastState(s *store.Store, session string) (map[string]string, error) {
	f, fi, err := store.OpenFile(journal(s, session))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	} else if err != nil {
		return nil, fmt.Errorf("observation journal: %w", err)
	}
	defer f.Close()
	size := min(fi.Size(), maxLine)
	b := make([]byte, size)
	if _, err := f.ReadAt(b, fi.Size()-size); err != nil {
		return nil, err
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte{'\n'})
	for i := len(lines) - 1; i > 0 || i == 0 && size == fi.Size(); i-- {
		var e Entry
		if json.Unmarshal(lines[i], &e) == nil && e.State != nil {
			return e.State, nil
		}
	}
	return map[string]string{}, nil
}

// maxLine bounds the end of a journal lastState reads: one line, a
// state of some thousands of changed files.
const maxLine = 4 << 20

// Read returns the entries of session's journal in s, oldest first; none
// when there is none.
func Read(s *store.Store, session string) ([]Entry, error) {
	p := journal(s, session)
	b, err := store.ReadFile(p, maxJournal)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("observation journal: %w", err)
	}
	var out []Entry
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxJournal)
	for n := 1; sc.Scan(); n++ {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// A line cut short by a crash: what follows is still good.
			continue
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// Attach gives each step of l the files the journal's observation after
// it says it changed, matching the step by its tool use id (the
// metadata's call_id). Observed content missing from s (removed by
// ctx-gc before the session was packed) is left out. It returns how many
// steps took observations, and the files left out.
func Attach(s *store.Store, l *execlog.Log, entries []Entry) (steps int, missing []string) {
	byID := map[string]*Entry{}
	for i := range entries {
		e := &entries[i]
		if After(e.Event) && e.ToolUseID != "" && len(e.Observed) > 0 {
			byID[e.ToolUseID] = e
		}
	}
	if len(byID) == 0 {
		return 0, nil
	}
	for i := range l.Steps {
		st := &l.Steps[i]
		if st.Type != manifest.ToolCall || st.Observed != nil {
			continue
		}
		e := byID[gjson.GetBytes(st.Metadata, "call_id").String()]
		if e == nil {
			continue
		}
		var obs []execlog.Observed
		for _, o := range e.Observed {
			x := execlog.Observed{Name: o.Name, Deleted: o.Deleted, Skipped: o.Skipped}
			if !o.ContentRef.IsZero() {
				if ok, _ := s.Has(o.ContentRef); !ok {
					missing = append(missing, o.Name)
					continue
				}
				x.Content = execlog.Ref(o.ContentRef)
			}
			obs = append(obs, x)
		}
		if obs != nil {
			st.Observed = obs
			steps++
		}
	}
	return steps, missing
}

// Now is the time an entry records, in the journal's form.
func Now() string { return time.Now().UTC().Format(time.RFC3339Nano) }
