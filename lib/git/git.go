// Package git reads a git work tree through the git command: its root,
// files at a revision, the lines commits and the index add, commit
// trailers and the names a file had. It never writes to the repository.
package git

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
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
	cmd := command(dir, args...)
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

// command is git with args in dir, with the settings every call uses.
func command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-c", "core.quotepath=off", "--no-pager"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	return cmd
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
// user's configuration says: whole blob ids, no color, external diff or text conversion
// (which would change the lines), no context, no renames, the a/ and b/
// prefixes (diff.noprefix and diff.mnemonicPrefix change them), paths
// from the top of the work tree (diff.relative).
var diffArgs = []string{"--full-index", "--no-color", "--no-ext-diff", "--no-textconv", "--unified=0", "--no-renames", "--src-prefix=a/", "--dst-prefix=b/", "--no-relative"}

// Adds is what a diff adds to one file.
type Adds struct {
	// Blob is the object id of the file after the change (Blobs reads
	// it); "" for a submodule, which has no content here.
	Blob string
	// Lines are the numbers (1-based) of the added lines in the file
	// after the change, Text their text.
	Lines []int
	Text  []string
}

// Added returns, per file, the lines commit adds, in the file as it is
// at commit (against its first parent; every line for a root commit).
func (r *Repo) Added(commit string) (map[string]*Adds, error) {
	out, err := r.git(slices.Concat([]string{"show", "--format=", "--root"}, diffArgs, []string{commit})...)
	if err != nil {
		return nil, err
	}
	return addedLines(out), nil
}

// StagedAdded returns, per file, the lines the index adds to HEAD (to
// the empty tree before the first commit), in the file as the index has
// it.
func (r *Repo) StagedAdded() (map[string]*Adds, error) {
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

// Blobs calls fn with the content of each blob of ids, in order, all
// read by one git cat-file --batch: a commit of thousands of files costs
// one process, not one each. A missing blob is an error.
func (r *Repo) Blobs(ids []string, fn func(i int, content []byte) error) (err error) {
	if len(ids) == 0 {
		return nil
	}
	cmd := command(r.Root, "cat-file", "--batch")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	defer func() {
		// Stop git early on an error; its exit then says nothing new.
		stdin.Close()
		io.Copy(io.Discard, stdout)
		if werr := cmd.Wait(); err == nil && werr != nil {
			msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
			err = fmt.Errorf("git cat-file: %s", cmp.Or(msg, werr.Error()))
		}
	}()
	// The ids are written while the contents are read: git answers as
	// it reads, and would block on a full pipe.
	go func() {
		w := bufio.NewWriter(stdin)
		for _, id := range ids {
			if !isHex(id) {
				id = "0000000000000000000000000000000000000000 invalid " + strconv.Quote(id)
			}
			if _, err := w.WriteString(id + "\n"); err != nil {
				break
			}
		}
		w.Flush()
		stdin.Close()
	}()
	br := bufio.NewReaderSize(stdout, 64<<10)
	var buf []byte
	for i, id := range ids {
		head, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("git cat-file: reading blob %s: %w", id, err)
		}
		// "<id> blob <size>", or "<id> missing".
		f := strings.Fields(head)
		if len(f) != 3 || f[1] != "blob" {
			return fmt.Errorf("git cat-file: blob %s: %s", id, strings.TrimSpace(head))
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("git cat-file: blob %s: size %q", id, f[2])
		}
		if int64(cap(buf)) < size+1 {
			buf = make([]byte, size+1)
		}
		buf = buf[:size+1] // the content, then a newline
		if _, err := io.ReadFull(br, buf); err != nil {
			return fmt.Errorf("git cat-file: reading blob %s: %w", id, err)
		}
		if err := fn(i, buf[:size:size]); err != nil {
			return err
		}
	}
	return nil
}

func isHex(s string) bool {
	return len(s) >= 40 && strings.Trim(s, "0123456789abcdef") == ""
}

// addedLines reads the numbers of the "+" lines of a unified diff, by
// the file they go to, as git writes the diff (diffArgs): a file's
// section opens with "diff --git", its new name is on the "+++ " line
// (C-quoted when it holds special characters, followed by a TAB when it
// holds a space), and each hunk's header counts the lines that follow
// it, so that an added line that looks like a header ("++ b/x" becomes
// "+++ b/x") is read as the line it is.
func addedLines(diff []byte) map[string]*Adds {
	added := map[string]*Adds{}
	var cur *Adds // the file's, once a line is added to it
	file, blob := "", ""
	gitlink := false // a submodule's entry: no blob
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
					if cur == nil {
						cur = &Adds{}
						if !gitlink {
							cur.Blob = blob
						}
						added[file] = cur
					}
					cur.Lines = append(cur.Lines, next)
					cur.Text = append(cur.Text, string(l[1:]))
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
			file, blob, gitlink, cur = "", "", false, nil
		case bytes.HasPrefix(l, []byte("index ")):
			// "index <old>..<new>[ <mode>]" (--full-index: whole ids).
			f := strings.Fields(string(l))
			if len(f) < 2 {
				break
			}
			if _, b, ok := strings.Cut(f[1], ".."); ok && isHex(b) {
				blob = b
			}
			gitlink = gitlink || f[len(f)-1] == gitlinkMode
		case bytes.HasPrefix(l, []byte("new file mode ")), bytes.HasPrefix(l, []byte("new mode ")):
			gitlink = gitlink || strings.HasSuffix(string(l), " "+gitlinkMode)
		case bytes.HasPrefix(l, []byte("+++ ")):
			file, cur = "", nil
			if name, ok := strings.CutPrefix(diffName(string(l[len("+++ "):])), "b/"); ok && name != "" {
				file = name
				if a := added[file]; a != nil {
					cur = a
				}
			}
		case bytes.HasPrefix(l, []byte("@@ ")):
			if o, n, start, ok := hunkHeader(string(l)); ok {
				oldLeft, newLeft, next = o, n, start
			}
		}
	}
	return added
}

// gitlinkMode is the mode of a submodule's entry.
const gitlinkMode = "160000"

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
// git's rename detection finds in its history at rev, newest first; for
// rev "" (the work tree), a rename the index stages comes first.
func (r *Repo) Names(rev, file string) []string {
	var names []string
	seen := map[string]bool{file: true}
	if rev == "" {
		rev = "HEAD"
		if from := r.stagedRename(file); from != "" {
			names, seen[from], file = append(names, from), true, from
		}
	} else if c, err := r.Commit(rev); err == nil {
		rev = c
	} else {
		return nil
	}
	// -z: names as they are, NUL-terminated, never quoted.
	out, err := r.git("log", "--follow", "--name-only", "--format=", "-z", "--end-of-options", rev, "--", file)
	if err != nil {
		return names
	}
	for _, l := range strings.Split(string(out), "\x00") {
		l = strings.TrimLeft(l, "\n")
		if l != "" && !seen[l] {
			seen[l] = true
			names = append(names, l)
		}
	}
	return names
}

// CommitTime returns the committer date of commit: the time its content
// existed at, whatever the author date says.
func (r *Repo) CommitTime(commit string) (time.Time, error) {
	out, err := r.git("log", "-1", "--format=%ct", "--end-of-options", commit)
	if err != nil {
		return time.Time{}, err
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("git log: commit time of %s: %q", commit, strings.TrimSpace(string(out)))
	}
	return time.Unix(sec, 0).UTC(), nil
}

// LineSource is where git blame says a line of a file comes from.
type LineSource struct {
	Commit string    // the commit that made the line what it is; "" for none yet
	Time   time.Time // its committer date
	Path   string    // the file's name in Commit
}

// LineSources returns, for each line of content (file's text, relative
// to the root), the commit git blame says it comes from, at rev ("" for
// content in the work tree).
func (r *Repo) LineSources(rev, file string, content []byte) ([]LineSource, error) {
	args := []string{"blame", "--porcelain"}
	var stdin []byte
	if rev == "" {
		args, stdin = append(args, "--contents", "-"), content
	} else {
		c, err := r.Commit(rev)
		if err != nil {
			return nil, err
		}
		args = append(args, c)
	}
	out, err := run(r.Root, stdin, append(args, "--", file)...)
	if err != nil {
		return nil, err
	}
	return blameSources(out), nil
}

// blameSources reads git blame --porcelain: each line's header
// "<commit> <orig> <final>[ <count>]" is followed, the first time a
// commit appears, by its headers (committer-time among them), then by
// "filename <path>" and the line, TAB-prefixed.
func blameSources(out []byte) []LineSource {
	var srcs []LineSource
	at := map[string]*LineSource{}
	cur := &LineSource{}
	for _, l := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(l, "\t"):
			srcs = append(srcs, *cur)
		case strings.HasPrefix(l, "committer-time "):
			if sec, err := strconv.ParseInt(strings.TrimPrefix(l, "committer-time "), 10, 64); err == nil && cur.Commit != "" {
				cur.Time = time.Unix(sec, 0).UTC()
			}
		case strings.HasPrefix(l, "filename "):
			cur.Path = strings.TrimPrefix(l, "filename ")
		default:
			if f := strings.Fields(l); len(f) >= 3 && isHex(f[0]) {
				if at[f[0]] == nil {
					at[f[0]] = &LineSource{Commit: f[0]}
					if strings.Trim(f[0], "0") == "" {
						at[f[0]].Commit = "" // not committed yet
					}
				}
				cur = at[f[0]]
			}
		}
	}
	return srcs
}

// Parents returns the parents of commit.
func (r *Repo) Parents(commit string) ([]string, error) {
	out, err := r.git("rev-list", "--parents", "-n", "1", "--end-of-options", commit)
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return nil, fmt.Errorf("git rev-list: no commit %s", commit)
	}
	return f[1:], nil
}

// Committed reports whether any commit of any branch added or removed
// text in file (git log -S, a fixed string).
func (r *Repo) Committed(text, file string) (bool, error) {
	out, err := r.git("log", "--all", "-S"+text, "--format=%H", "-n", "1", "--", file)
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(string(out)) != "", nil
}

// stagedRename returns the name file had at HEAD when the index renames
// it (git's rename detection, as git status shows it), else "".
func (r *Repo) stagedRename(file string) string {
	out, err := r.git("diff", "--cached", "-M", "--name-status", "-z", "--no-relative", "HEAD")
	if err != nil {
		return ""
	}
	// "R<score>\0<old>\0<new>\0", other statuses "<X>\0<path>\0".
	f := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		if !strings.HasPrefix(f[i], "R") {
			continue
		}
		if i+2 < len(f) && f[i+2] == file {
			return f[i+1]
		}
		i++ // a rename names two paths
	}
	return ""
}

// Head returns the commit HEAD names, "" before the first commit.
func (r *Repo) Head() string {
	out, err := r.git("rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
