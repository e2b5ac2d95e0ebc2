package replay

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/gitstate"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// ErrNoGitState reports a pack that records no git state to replay from.
var ErrNoGitState = errors.New("the pack records no git state (environment.metadata.git)")

// GitState returns the git state m records (package gitstate), or
// ErrNoGitState.
func GitState(m *manifest.Manifest) (*gitstate.State, error) {
	g := gjson.GetBytes(m.Environment.Metadata, "git")
	if !g.IsObject() {
		return nil, ErrNoGitState
	}
	var st gitstate.State
	if err := json.Unmarshal([]byte(g.Raw), &st); err != nil {
		return nil, fmt.Errorf("reading environment.metadata.git: %w", err)
	}
	return &st, nil
}

// gitWorkspace makes the workspace of a replay from git: a temporary work
// tree of repo at the commit the session started from, the pack's inputs
// over it. The files that differed from the commit when the session was
// packed and that the pack does not hold whole are unknown, unless they
// held what the session wrote; the files the
// pack saw only by name or in part and that did not differ are known from
// the commit. remove deletes the work tree.
func gitWorkspace(s *store.Store, m *manifest.Manifest, repo, tmp string) (ws *Workspace, drift []Drift, remove func(), err error) {
	st, err := GitState(m)
	if err != nil {
		return nil, nil, nil, err
	}
	wt, err := gitstate.AddWorktree(repo, st.Commit, tmp)
	if err != nil {
		return nil, nil, nil, err
	}
	dir, err := st.Under(wt.Dir)
	if err == nil {
		ws, drift, err = materialiseOver(s, m.Inputs, dir, true)
	}
	if err != nil {
		wt.Remove()
		return nil, nil, nil, err
	}
	whole := map[string]bool{}
	for _, in := range m.Inputs {
		if in.Seen == manifest.SeenWhole {
			whole[in.Name] = true
		}
	}
	wrote := map[string]string{}
	for _, o := range m.Outputs {
		wrote[o.Name] = o.ContentRef.String()
	}
	for name, h := range st.Changed {
		// A file that differed only as the session left it (it holds the
		// pack's output of that name) is taken to start from the commit:
		// the replayed edits' answers and the end state check that.
		if whole[name] || wrote[name] == h {
			continue
		}
		if ws.unknown == nil {
			ws.unknown = map[string]string{}
		}
		what := "held other bytes than"
		if h == gitstate.Deleted {
			what = "was missing from"
		}
		ws.unknown[name] = fmt.Sprintf("it %s commit %.12s when the session was packed, and the pack does not hold it whole", what, st.Commit)
	}
	for name := range ws.seen {
		if _, changed := st.Changed[name]; changed {
			continue
		}
		if fi, err := ws.Root.Stat(name); err == nil && fi.Mode().IsRegular() {
			delete(ws.seen, name) // the commit holds it
		}
	}
	return ws, drift, func() { ws.Close(); wt.Remove() }, nil
}
