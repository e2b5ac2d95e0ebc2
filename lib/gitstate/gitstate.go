// Package gitstate records where in git a session's working directory
// stood, and makes a temporary work tree at that point for a replay.
//
// Capture reads, with the git program, the commit HEAD pointed at when
// the session started (from the reflog; HEAD itself when the reflog does
// not reach back that far), the branch, the remote's URL (without any
// user name or password in it), and the files under the directory that
// differed from that commit when it ran: each with the SHA-256 of what
// it held, "deleted", or "unhashed" (larger than MaxHashed, or not a
// regular file). No file content is recorded. State is what a
// pack carries as environment.metadata.git.
//
// Worktree adds a detached `git worktree` at a recorded commit in a
// repository that has it, and removes it afterwards.
package gitstate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	gitcmd "github.com/ctx-tools/ctx/lib/git"
	"github.com/ctx-tools/ctx/lib/store"
)

// Deleted is the hash recorded for a file that the commit holds and the
// working directory did not.
const Deleted = "deleted"

// Unhashed is recorded for a changed file that is not hashed: larger than
// MaxHashed, or not a regular file (lib/found's rule for files ctx finds
// itself).
const Unhashed = "unhashed"

// MaxHashed is the largest changed file Capture hashes.
const MaxHashed = 1 << 30

// State is the git state of a session's working directory.
type State struct {
	// Commit is the commit HEAD pointed at when the session started.
	Commit string `json:"commit"`
	// Branch is the branch checked out ("" when HEAD was detached).
	Branch string `json:"branch,omitempty"`
	// Remote is the URL of the remote the branch tracks (else origin),
	// without user information.
	Remote string `json:"remote,omitempty"`
	// Prefix is the working directory relative to the top of the work
	// tree, with "/", "" at the top.
	Prefix string `json:"prefix,omitempty"`
	// Changed maps each file under the working directory (named relative
	// to it) that differed from Commit to its SHA-256 ("sha256:…") or
	// Deleted.
	Changed map[string]string `json:"changed,omitempty"`
}

// ErrNotWorkTree reports a directory that is not inside a git work tree
// (or a machine without git).
var ErrNotWorkTree = errors.New("not a git work tree")

// git runs git in dir, through lib/git.
func git(dir string, args ...string) ([]byte, error) {
	return gitcmd.Run(dir, args...)
}

// Capture reads the git state of dir for a session that started at start
// (the zero time: now); the files under the directories exclude names
// (relative to dir: the ctx store, when it is in the work tree) are not
// among the changed ones. It returns ErrNotWorkTree when dir is not in a
// git work tree or git is not installed.
func Capture(dir string, start time.Time, exclude ...string) (*State, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, ErrNotWorkTree
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, ErrNotWorkTree
	}
	inside, err := git(dir, "rev-parse", "--is-inside-work-tree")
	if err != nil || strings.TrimSpace(string(inside)) != "true" {
		return nil, ErrNotWorkTree
	}
	repo, err := gitcmd.Open(dir)
	if err != nil {
		return nil, ErrNotWorkTree
	}
	head := repo.Head()
	if head == "" {
		return nil, fmt.Errorf("reading the git state of %s: no commit yet", dir)
	}
	st := &State{Commit: head}
	if !start.IsZero() {
		if c := headAt(dir, start); c != "" {
			st.Commit = c
		}
	}
	if b, err := git(dir, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
		st.Branch = strings.TrimSpace(string(b))
	}
	st.Remote = remote(dir, st.Branch)
	prefix, err := git(dir, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	st.Prefix = strings.TrimSuffix(strings.TrimSpace(string(prefix)), "/")
	if st.Changed, err = changed(dir, st.Commit, exclude...); err != nil {
		return nil, err
	}
	return st, nil
}

// headAt returns the commit HEAD pointed at at time t by the reflog, or
// "" when the reflog does not reach back that far.
func headAt(dir string, t time.Time) string {
	out, err := git(dir, "reflog", "show", "--date=unix", "--format=%H %gd", "HEAD")
	if err != nil {
		return ""
	}
	for l := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		hash, sel, ok := strings.Cut(l, " ")
		when, ok2 := strings.CutPrefix(sel, "HEAD@{")
		if !ok || !ok2 {
			continue
		}
		sec, err := strconv.ParseInt(strings.TrimSuffix(when, "}"), 10, 64)
		if err == nil && !time.Unix(sec, 0).After(t) {
			return hash // the newest entry at or before t
		}
	}
	return ""
}

// remote returns the URL of the branch's remote (else origin), with any
// user information removed, or "".
func remote(dir, branch string) string {
	name := "origin"
	if branch != "" {
		if r, err := git(dir, "config", "--get", "branch."+branch+".remote"); err == nil {
			name = strings.TrimSpace(string(r))
		}
	}
	out, err := git(dir, "remote", "get-url", name)
	if err != nil {
		return ""
	}
	return stripUser(strings.TrimSpace(string(out)))
}

// stripUser removes a user name and password from a remote URL: they may
// be a token, and a pack travels.
func stripUser(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.Host != "" {
		u.User = nil
		return u.String()
	}
	// scp-like user@host:path
	if at := strings.IndexByte(raw, '@'); at >= 0 && !strings.Contains(raw[:at], "/") && strings.Contains(raw[at:], ":") {
		return raw[at+1:]
	}
	return raw
}

// changed lists the files under dir that differ from commit, with their
// hashes.
func changed(dir, commit string, exclude ...string) (map[string]string, error) {
	names, err := ChangedNames(dir, commit, exclude...)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, n := range names {
		h, err := hashFile(dir, filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil {
			return nil, fmt.Errorf("reading the git state of %s: %w", dir, err)
		}
		out[n] = h
	}
	return out, nil
}

// ChangedNames lists the files under dir that differ from commit
// (relative to dir, with "/"): tracked files changed or deleted, and
// untracked files not ignored, but those under the directories exclude
// names (relative to dir).
func ChangedNames(dir, commit string, exclude ...string) ([]string, error) {
	var out []string
	spec := []string{"--", "."}
	for _, x := range exclude {
		spec = append(spec, ":(exclude,literal)"+filepath.ToSlash(x))
	}
	diff, err := git(dir, append([]string{"diff", "--name-only", "--no-renames", "--relative", "-z", commit}, spec...)...)
	if err != nil {
		return nil, err
	}
	untracked, err := git(dir, append([]string{"ls-files", "--others", "--exclude-standard", "-z"}, spec...)...)
	if err != nil {
		return nil, err
	}
	for _, list := range [][]byte{diff, untracked} {
		for _, name := range bytes.Split(list, []byte{0}) {
			if len(name) > 0 {
				out = append(out, string(name))
			}
		}
	}
	return out, nil
}

// hashFile returns the SHA-256 of a file under dir, Deleted when there is
// none, or Unhashed; a link is hashed by its target's name, as git stores
// it. The file is opened by lib/found's rule: a file git names is one ctx
// found, not one the user gave.
func hashFile(dir, p string) (string, error) {
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return Deleted, nil
	case err != nil:
		return "", err
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		return digest.Of([]byte(target)).String(), nil
	case !fi.Mode().IsRegular() || fi.Size() > MaxHashed:
		return Unhashed, nil
	}
	f, size, err := found.Open(p, found.Rule{What: "changed file", Max: MaxHashed, Within: dir})
	var fe *found.Error
	if errors.As(err, &fe) {
		return Unhashed, nil
	} else if err != nil {
		return "", err
	}
	defer f.Close()
	d, n, err := digest.OfReader(io.LimitReader(f, size+1))
	switch {
	case err != nil:
		return "", err
	case n != size:
		return Unhashed, nil // it changed while being read
	}
	return d.String(), nil
}

// Worktree is a temporary work tree of a repository at a commit.
type Worktree struct {
	// Dir is the top of the work tree.
	Dir  string
	repo string
}

// AddWorktree makes a detached work tree of repo at commit in a new
// directory under tmp (os.TempDir() if empty). The commit must be in repo.
func AddWorktree(repo, commit, tmp string) (*Worktree, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, errors.New("git is not installed")
	}
	if !isHash(commit) {
		return nil, fmt.Errorf("%q is not a commit hash", commit)
	}
	if _, err := git(repo, "rev-parse", "--verify", "-q", commit+"^{commit}"); err != nil {
		return nil, fmt.Errorf("commit %s is not in %s (fetch it first)", commit, repo)
	}
	parent, err := os.MkdirTemp(tmp, "ctx-replay-git-")
	if err != nil {
		return nil, fmt.Errorf("creating the work tree: %w", err)
	}
	dir := filepath.Join(parent, "tree")
	if _, err := git(repo, "worktree", "add", "--detach", "--quiet", dir, commit); err != nil {
		os.RemoveAll(parent)
		return nil, fmt.Errorf("creating a work tree of %s at %s: %w", repo, commit, err)
	}
	return &Worktree{Dir: dir, repo: repo}, nil
}

// Remove deletes the work tree and its registration in the repository.
func (w *Worktree) Remove() error {
	_, err := git(w.repo, "worktree", "remove", "--force", w.Dir)
	os.RemoveAll(filepath.Dir(w.Dir))
	if err != nil {
		// The directory is gone: forget it.
		git(w.repo, "worktree", "prune")
	}
	return err
}

// Names returns the changed files in order.
func (s *State) Names() []string {
	var out []string
	for n := range s.Changed {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Under returns the directory of the work tree at top that is the
// session's working directory; a prefix that would lead elsewhere is an
// error. Each of its elements must be a directory of the work tree: the
// commit may hold a symlink by that name (git records the prefix with
// links resolved, so a session never ran in one), and what a replay
// writes there would land wherever the link leads.
func (s *State) Under(top string) (string, error) {
	if s.Prefix == "" {
		return top, nil
	}
	p := filepath.FromSlash(s.Prefix)
	if !filepath.IsLocal(p) || path.Clean(s.Prefix) != s.Prefix {
		return "", fmt.Errorf("git prefix %q is not a directory inside the work tree", s.Prefix)
	}
	dir := top
	for el := range strings.SplitSeq(s.Prefix, "/") {
		dir = filepath.Join(dir, el)
		fi, err := os.Lstat(dir)
		if err != nil {
			return "", fmt.Errorf("git prefix %q: %w", s.Prefix, err)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("git prefix %q: %s %s at the commit, not a directory: refused", s.Prefix, filepath.ToSlash(dir[len(top)+1:]), store.DescribeMode(fi.Mode()))
		}
	}
	return dir, nil
}

// isHash reports whether s is a full commit hash (SHA-1 or SHA-256).
func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
