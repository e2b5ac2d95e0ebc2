// Package git reads a git work tree through the git command: its root,
// files at a revision, the lines commits and the index add, commit
// trailers and the names a file had. It never writes to the repository.
package git

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNotRepo says a directory is not inside a git work tree.
var ErrNotRepo = errors.New("not in a git work tree")

// Repo is a git work tree.
type Repo struct {
	Root string // the work tree's top directory
}

// Open returns the work tree dir is in.
func Open(dir string) (*Repo, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("git is not installed: %w", err)
	}
	out, err := run(dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotRepo)
	}
	return &Repo{Root: strings.TrimRight(string(out), "\n")}, nil
}

// run runs git in dir and returns its stdout; a failure carries git's
// first line of stderr.
func run(dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-c", "core.quotepath=off", "--no-pager"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out, nil
}

func (r *Repo) git(args ...string) ([]byte, error) { return run(r.Root, nil, args...) }

// Run runs git in dir, any directory of a work tree (commands such as
// diff --relative and ls-files answer for it), and returns its stdout.
func Run(dir string, args ...string) ([]byte, error) { return run(dir, nil, args...) }

// Rel returns the path of file (absolute, or relative to the working
// directory) relative to the work tree's root, slash-separated.
func (r *Repo) Rel(file string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	root, err := filepath.EvalSymlinks(r.Root)
	if err != nil {
		return "", err
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(d, filepath.Base(abs))
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the work tree %s", file, r.Root)
	}
	return filepath.ToSlash(rel), nil
}

// Commit returns the full hash of the commit rev names.
func (r *Repo) Commit(rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("%q is not a revision", rev)
	}
	out, err := r.git("rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%q is not a commit: %w", rev, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Commits returns the commits of a revision range (A..B, or one commit),
// newest first.
func (r *Repo) Commits(spec string) ([]string, error) {
	if !strings.Contains(spec, "..") {
		c, err := r.Commit(spec)
		if err != nil {
			return nil, err
		}
		return []string{c}, nil
	}
	if strings.HasPrefix(spec, "-") {
		return nil, fmt.Errorf("%q is not a revision range", spec)
	}
	out, err := r.git("rev-list", "--end-of-options", spec)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// Show returns file (relative to the root) as it is at rev.
func (r *Repo) Show(rev, file string) ([]byte, error) {
	c, err := r.Commit(rev)
	if err != nil {
		return nil, err
	}
	return r.git("cat-file", "blob", c+":"+file)
}

// Trailers returns the values of the trailers named key in commit's
// message.
func (r *Repo) Trailers(commit, key string) ([]string, error) {
	out, err := r.git("log", "-1", "--format=%(trailers:key="+key+",valueonly,unfold)", commit)
	if err != nil {
		return nil, err
	}
	var vs []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			vs = append(vs, l)
		}
	}
	return vs, nil
}

// Added returns, per file, the numbers (1-based) of the lines commit
// adds, in the file as it is at commit (against its first parent; every
// line for a root commit).
func (r *Repo) Added(commit string) (map[string][]int, error) {
	out, err := r.git("show", "--format=", "--no-color", "--no-ext-diff", "--unified=0", "--no-renames", "--root", commit)
	if err != nil {
		return nil, err
	}
	return addedLines(out), nil
}

// StagedAdded returns, per file, the numbers of the lines the index adds
// to HEAD (to the empty tree before the first commit), in the file as
// the index has it.
func (r *Repo) StagedAdded() (map[string][]int, error) {
	args := []string{"diff", "--cached", "--no-color", "--no-ext-diff", "--unified=0", "--no-renames"}
	if _, err := r.git("rev-parse", "--verify", "HEAD"); err != nil {
		empty, err := run(r.Root, []byte{}, "hash-object", "-t", "tree", "--stdin")
		if err != nil {
			return nil, err
		}
		args = append(args, strings.TrimSpace(string(empty)))
	}
	out, err := r.git(args...)
	if err != nil {
		return nil, err
	}
	return addedLines(out), nil
}

// Staged returns file as the index holds it.
func (r *Repo) Staged(file string) ([]byte, error) {
	return r.git("cat-file", "blob", ":"+file)
}

// addedLines reads the numbers of the "+" lines of a unified diff with
// no context, by the file they go to.
func addedLines(diff []byte) map[string][]int {
	added := map[string][]int{}
	file, next := "", 0
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "+++ "):
			file = ""
			if name, ok := strings.CutPrefix(unquote(l[len("+++ "):]), "b/"); ok {
				file = name
			}
		case strings.HasPrefix(l, "@@ "):
			// @@ -a,b +c,d @@: the added lines start at c.
			f := strings.Fields(l)
			if len(f) >= 3 {
				c, _, _ := strings.Cut(strings.TrimPrefix(f[2], "+"), ",")
				next, _ = strconv.Atoi(c)
			}
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "diff "):
		case strings.HasPrefix(l, "+") && file != "":
			added[file] = append(added[file], next)
			next++
		}
	}
	return added
}

func unquote(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// Names returns the earlier names of file (relative to the root) that
// git's rename detection finds in its history, newest first.
func (r *Repo) Names(file string) []string {
	out, err := r.git("log", "--follow", "--name-only", "--format=", "--end-of-options", "HEAD", "--", file)
	if err != nil {
		return nil
	}
	var names []string
	seen := map[string]bool{file: true}
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" && !seen[l] {
			seen[l] = true
			names = append(names, unquote(l))
		}
	}
	return names
}

// Head returns the commit HEAD names, "" before the first commit.
func (r *Repo) Head() string {
	out, err := r.git("rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
