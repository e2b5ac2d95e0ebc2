package blame

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/git"
)

func TestCommits(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	rev := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	rev("init", "-q", "-b", "main")
	rev("commit", "-q", "--allow-empty", "-m", "one")
	one := rev("rev-parse", "HEAD")
	rev("commit", "-q", "--allow-empty", "-m", "two")
	two := rev("rev-parse", "HEAD")
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)

	for _, tc := range []struct {
		rev    string
		ranges bool
		want   []string
	}{
		{"HEAD~1", false, []string{one}},
		{"main", true, []string{two}},
		{"HEAD~2..HEAD", true, nil}, // HEAD~2 does not exist
		{"HEAD~1..HEAD", true, []string{two}},
		{"HEAD~1..HEAD", false, nil}, // a range where one commit is wanted
	} {
		repo, got, err := Commits(sub, "--commit", tc.rev, tc.ranges)
		if tc.want == nil {
			var re *RevError
			if !errors.As(err, &re) || !re.Usage || re.ExitCode() != 3 || !strings.HasPrefix(err.Error(), "--commit: ") {
				t.Errorf("%s (ranges %v): %v, want a usage *RevError", tc.rev, tc.ranges, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) || repo.Root == "" {
			t.Errorf("%s (ranges %v) = %v, %v; want %v", tc.rev, tc.ranges, got, err, tc.want)
		}
	}

	// Outside a work tree the fault is not the revision's.
	_, _, err := Commits(t.TempDir(), "--commit", "HEAD", true)
	var re *RevError
	if !errors.As(err, &re) || re.Usage || re.ExitCode() != 2 || !errors.Is(err, git.ErrNotRepo) || !strings.HasPrefix(err.Error(), "--commit HEAD: ") {
		t.Errorf("outside a work tree: %v, want an operational *RevError", err)
	}
}
