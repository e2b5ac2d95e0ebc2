// Package git reads a git work tree through the git command: its root,
// files at a revision, the lines commits and the index add, commit
// trailers and the names a file had. It never writes to the repository.
package git

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// diffArgs make git write the diff addedLines reads, whatever the
// user's configuration says: no color, external diff or text conversion
// (which would change the lines), no context, no renames, the a/ and b/
// prefixes (diff.noprefix and diff.mnemonicPrefix change them), paths
// from the top of the work tree (diff.relative).
var diffArgs = []string{"--no-color", "--no-ext-diff", "--no-textconv", "--unified=0", "--no-renames", "--src-prefix=a/", "--dst-prefix=b/", "--no-relative"}

// Added returns, per file, the numbers (1-based) of the lines commit
// adds, in the file as it is at commit (against its first parent; every
// line for a root commit).
func (r *Repo) Added(commit string) (map[string][]int, error) {
	out, err := r.git(slices.Concat([]string{"show", "--format=", "--root"}, diffArgs, []string{commit})...)
	if err != nil {
		return nil, err
	}
	return addedLines(out), nil
}

// StagedAdded returns, per file, the numbers of the lines the index adds
// to HEAD (to the empty tree before the first commit), in the file as
// the index has it.
func (r *Repo) StagedAdded() (map[string][]int, error) {
	args := slices.Concat([]string{"diff", "--cached"}, diffArgs)
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

// addedLines reads the numbers of the "+" lines of a unified diff, by
// the file they go to, as git writes the diff (diffArgs): a file's
// section opens with "diff --git", its new name is on the "+++ " line
// (C-quoted when it holds special characters, followed by a TAB when it
// holds a space), and each hunk's header counts the lines that follow
// it, so that an added line that looks like a header ("++ b/x" becomes
// "+++ b/x") is read as the line it is.
func addedLines(diff []byte) map[string][]int {
	added := map[string][]int{}
	file := ""
	next, oldLeft, newLeft := 0, 0, 0
	for len(diff) > 0 {
		var l []byte
		if i := bytes.IndexByte(diff, '\n'); i >= 0 {
			l, diff = diff[:i], diff[i+1:]
		} else {
			l, diff = diff, nil
		}
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case len(l) > 0 && l[0] == '+' && newLeft > 0:
				if file != "" {
					added[file] = append(added[file], next)
				}
				next++
				newLeft--
				continue
			case len(l) > 0 && l[0] == '-' && oldLeft > 0:
				oldLeft--
				continue
			case len(l) > 0 && l[0] == ' ' && oldLeft > 0 && newLeft > 0:
				next++
				oldLeft--
				newLeft--
				continue
			case len(l) > 0 && l[0] == '\\': // "\ No newline at end of file"
				continue
			}
			// Not a line of the hunk: the diff is not git's, or was cut.
			oldLeft, newLeft = 0, 0
		}
		switch {
		case bytes.HasPrefix(l, []byte("diff ")):
			file = ""
		case bytes.HasPrefix(l, []byte("+++ ")):
			file = ""
			if name, ok := strings.CutPrefix(diffName(string(l[len("+++ "):])), "b/"); ok && name != "" {
				file = name
			}
		case bytes.HasPrefix(l, []byte("@@ ")):
			if o, n, start, ok := hunkHeader(string(l)); ok {
				oldLeft, newLeft, next = o, n, start
			}
		}
	}
	return added
}

// hunkHeader reads "@@ -a[,b] +c[,d] @@…": the counts of old and new
// lines (1 when left out) and the first new line.
func hunkHeader(l string) (old, new, start int, ok bool) {
	f := strings.Fields(l)
	if len(f) < 4 || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, false
	}
	count := func(r string) (int, int, bool) {
		a, b, has := strings.Cut(r, ",")
		first, err1 := strconv.Atoi(a)
		n, err2 := 1, error(nil)
		if has {
			n, err2 = strconv.Atoi(b)
		}
		return first, n, err1 == nil && err2 == nil && first >= 0 && n >= 0
	}
	_, old, ok1 := count(f[1][1:])
	start, new, ok2 := count(f[2][1:])
	return old, new, start, ok1 && ok2
}

// diffName reads a file name of a "--- " or "+++ " line: git follows a
// name holding a space with a TAB, and C-quotes a name holding a
// control character, a quote or a backslash (quote_c_style).
func diffName(s string) string {
	s = strings.TrimSuffix(s, "\t")
	if strings.HasPrefix(s, `"`) {
		if u, ok := unquoteC(s); ok {
			return u
		}
	}
	return s
}

// unquoteC undoes git's C-style quoting of a path: "…" with \a \b \t
// \n \v \f \r \" \\ and three-digit octal escapes for single bytes.
// Unlike strconv.Unquote it keeps bytes that are not UTF-8 as they are.
func unquoteC(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	s = s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			return "", false
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i++; i >= len(s) {
			return "", false
		}
		switch c = s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'v':
			b.WriteByte('\v')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case '"', '\\':
			b.WriteByte(c)
		default:
			if c < '0' || c > '3' || i+2 >= len(s) || s[i+1] < '0' || s[i+1] > '7' || s[i+2] < '0' || s[i+2] > '7' {
				return "", false
			}
			b.WriteByte((c-'0')<<6 | (s[i+1]-'0')<<3 | (s[i+2] - '0'))
			i += 2
		}
	}
	return b.String(), true
}

// Names returns the earlier names of file (relative to the root) that
// git's rename detection finds in its history, newest first.
func (r *Repo) Names(file string) []string {
	// -z: names as they are, NUL-terminated, never quoted.
	out, err := r.git("log", "--follow", "--name-only", "--format=", "-z", "--end-of-options", "HEAD", "--", file)
	if err != nil {
		return nil
	}
	var names []string
	seen := map[string]bool{file: true}
	for _, l := range strings.Split(string(out), "\x00") {
		l = strings.TrimLeft(l, "\n")
		if l != "" && !seen[l] {
			seen[l] = true
			names = append(names, l)
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
