package gitstate

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
)

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git, which is not installed")
	}
}

// run runs git in dir at the given time (author and committer dates, so
// that the reflog says when HEAD moved).
func run(t *testing.T, dir string, when time.Time, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	date := when.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCapture(t *testing.T) {
	t.Parallel()
	needGit(t)
	repo := t.TempDir()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	run(t, repo, t0, "init", "-q", "-b", "main")
	write(t, repo, map[string]string{"proj/a.txt": "a\n", "proj/b.txt": "b\n", "proj/gone.txt": "g\n", "proj/pipe": "p\n", "top.txt": "t\n", ".gitignore": "*.log\n"})
	run(t, repo, t0, "add", ".")
	run(t, repo, t0, "commit", "-q", "-m", "one")
	first := run(t, repo, t0, "rev-parse", "HEAD")
	run(t, repo, t0, "remote", "add", "origin", "https://user:ghp_secret@example.com/o/r.git")
	// The session starts, then commits: the state names the commit it
	// started from.
	start := t0.Add(time.Hour)
	write(t, repo, map[string]string{"proj/a.txt": "a2\n"})
	run(t, repo, start.Add(time.Minute), "commit", "-q", "-am", "two")
	write(t, repo, map[string]string{"proj/b.txt": "b2\n", "proj/new.txt": "n\n", "proj/x.log": "ignored\n", "top.txt": "outside\n"})
	os.Remove(filepath.Join(repo, "proj/gone.txt"))

	// A pipe where a committed file was is not opened (it would block).
	pipe := false
	if _, err := exec.LookPath("mkfifo"); err == nil {
		os.Remove(filepath.Join(repo, "proj/pipe"))
		if err := exec.Command("mkfifo", filepath.Join(repo, "proj/pipe")).Run(); err == nil {
			pipe = true
		}
	}
	st, err := Capture(filepath.Join(repo, "proj"), start)
	if err != nil {
		t.Fatal(err)
	}
	want := &State{
		Commit: first, Branch: "main", Remote: "https://example.com/o/r.git", Prefix: "proj",
		Changed: map[string]string{
			"a.txt":    digest.Of([]byte("a2\n")).String(),
			"b.txt":    digest.Of([]byte("b2\n")).String(),
			"new.txt":  digest.Of([]byte("n\n")).String(),
			"gone.txt": Deleted,
		},
	}
	if pipe {
		want.Changed["pipe"] = Unhashed
	} else {
		want.Changed["pipe"] = Deleted
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("Capture:\n got %+v\nwant %+v", st, want)
	}
	// A start before the reflog reaches: HEAD.
	st, err = Capture(repo, t0.Add(-time.Hour))
	if err != nil || st.Commit != run(t, repo, t0, "rev-parse", "HEAD") || st.Prefix != "" {
		t.Errorf("Capture before the reflog = %+v, %v", st, err)
	}
	if _, err := Capture(t.TempDir(), start); !errors.Is(err, ErrNotWorkTree) {
		t.Errorf("Capture of a plain directory: %v", err)
	}
}

func TestWorktree(t *testing.T) {
	t.Parallel()
	needGit(t)
	repo := t.TempDir()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	run(t, repo, t0, "init", "-q", "-b", "main")
	write(t, repo, map[string]string{"sub/f.txt": "one\n"})
	run(t, repo, t0, "add", ".")
	run(t, repo, t0, "commit", "-q", "-m", "one")
	c := run(t, repo, t0, "rev-parse", "HEAD")
	write(t, repo, map[string]string{"sub/f.txt": "two\n"})
	run(t, repo, t0, "commit", "-q", "-am", "two")

	w, err := AddWorktree(repo, c, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir, err := (&State{Prefix: "sub"}).Under(w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "f.txt")); err != nil || string(b) != "one\n" {
		t.Errorf("f.txt at the first commit: %q, %v", b, err)
	}
	if err := w.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the work tree is still there: %v", err)
	}
	if list := run(t, repo, t0, "worktree", "list"); strings.Count(list, "\n") != 0 {
		t.Errorf("worktree list after Remove:\n%s", list)
	}
	for _, bad := range []string{"--help", "HEAD", strings.Repeat("z", 40)} {
		if _, err := AddWorktree(repo, bad, t.TempDir()); err == nil {
			t.Errorf("AddWorktree(%q) accepted", bad)
		}
	}
	for _, p := range []string{"../x", "/etc", "a/../../b"} {
		if _, err := (&State{Prefix: p}).Under(w.Dir); err == nil {
			t.Errorf("Under with prefix %q accepted", p)
		}
	}
}

// TestUnderSymlink: a prefix through what the commit holds as a symlink,
// to a directory outside the work tree or inside it, or as a file, is
// refused: the replay would write where the link leads.
func TestUnderSymlink(t *testing.T) {
	t.Parallel()
	needGit(t)
	repo := t.TempDir()
	outside := t.TempDir()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	run(t, repo, t0, "init", "-q", "-b", "main")
	write(t, repo, map[string]string{"real/f.txt": "one\n", "file": "x\n"})
	for name, target := range map[string]string{"out": outside, "up": "..", "in": "real"} {
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	run(t, repo, t0, "add", ".")
	run(t, repo, t0, "commit", "-q", "-m", "one")
	w, err := AddWorktree(repo, run(t, repo, t0, "rev-parse", "HEAD"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Remove()
	if dir, err := (&State{Prefix: "real"}).Under(w.Dir); err != nil || dir != filepath.Join(w.Dir, "real") {
		t.Errorf("Under(real) = %q, %v", dir, err)
	}
	for _, p := range []string{"out", "up", "in", "out/x", "file", "missing"} {
		if dir, err := (&State{Prefix: p}).Under(w.Dir); err == nil {
			t.Errorf("Under with prefix %q accepted: %s", p, dir)
		}
	}
}
