package git

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAddedLines(t *testing.T) {
	diff := `diff --git a/a.txt b/a.txt
index 1111111..2222222 100644
--- a/a.txt
+++ b/a.txt
@@ -1,0 +2,2 @@ ctx
+two
+three
@@ -5 +7 @@
-old
+new
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-x
diff --git "a/sp\303\251cial.txt" "b/sp\303\251cial.txt"
new file mode 100644
--- /dev/null
+++ "b/sp\303\251cial.txt"
@@ -0,0 +1 @@
++plus
`
	got := addedLines([]byte(diff))
	if want := []int{2, 3, 7}; !slices.Equal(got["a.txt"], want) {
		t.Errorf("a.txt: %v, want %v", got["a.txt"], want)
	}
	if want := []int{1}; !slices.Equal(got["spécial.txt"], want) {
		t.Errorf("spécial.txt: %v, want %v (all: %v)", got["spécial.txt"], want, got)
	}
	if _, ok := got["gone.txt"]; ok || len(got) != 2 {
		t.Errorf("files: %v", got)
	}
}

func FuzzAddedLines(f *testing.F) {
	f.Add([]byte("--- a/x\n+++ b/x\n@@ -0,0 +1,2 @@\n+a\n+b\n"))
	f.Add([]byte("+++ b/\"q\\\"\"\n@@ -1 +1 @@\n-x\n+y\n"))
	f.Add([]byte("@@ garbage\n+x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for file, lines := range addedLines(b) {
			if file == "" {
				t.Fatal("a line added to no file")
			}
			for i := 1; i < len(lines); i++ {
				if lines[i] <= lines[i-1] && lines[i] != 0 {
					// Hunks come in order in git's output; a fuzzed
					// diff may not, which is fine as long as nothing
					// panics.
					break
				}
			}
		}
	})
}

// TestRepo drives a real repository: root, paths, a commit's added lines,
// the index, trailers and renames.
func TestRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q", "-b", "main")
	if _, err := Open(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("Open of a missing directory succeeded")
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Head() != "" {
		t.Error("Head before the first commit")
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	git("add", "a.txt")
	staged, err := r.StagedAdded()
	if err != nil || !slices.Equal(staged["a.txt"], []int{1, 2}) {
		t.Errorf("StagedAdded before the first commit = %v, %v", staged, err)
	}
	git("commit", "-q", "-m", "first\n\nCtx-Pack: ctx://aa\nCtx-Pack: ctx://bb")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\nnew\ntwo\n"), 0o644)
	git("commit", "-q", "-am", "second")
	head := r.Head()
	added, err := r.Added(head)
	if err != nil || !slices.Equal(added["a.txt"], []int{2}) {
		t.Errorf("Added = %v, %v", added, err)
	}
	if vs, err := r.Trailers(head+"^", "Ctx-Pack"); err != nil || strings.Join(vs, " ") != "ctx://aa ctx://bb" {
		t.Errorf("Trailers = %v, %v", vs, err)
	}
	if b, err := r.Show("HEAD~1", "a.txt"); err != nil || string(b) != "one\ntwo\n" {
		t.Errorf("Show = %q, %v", b, err)
	}
	if cs, err := r.Commits("HEAD~1..HEAD"); err != nil || len(cs) != 1 || cs[0] != head {
		t.Errorf("Commits = %v, %v", cs, err)
	}
	if _, err := r.Commit("--output=/tmp/x"); err == nil {
		t.Error("an option was taken for a revision")
	}
	git("mv", "a.txt", "b.txt")
	git("commit", "-q", "-m", "rename")
	if names := r.Names("b.txt"); !slices.Equal(names, []string{"a.txt"}) {
		t.Errorf("Names = %v", names)
	}
	rel, err := r.Rel(filepath.Join(dir, "b.txt"))
	if err != nil || rel != "b.txt" {
		t.Errorf("Rel = %q, %v", rel, err)
	}
	if _, err := r.Rel(filepath.Join(dir, "..", "x")); err == nil {
		t.Error("Rel of a path outside the work tree succeeded")
	}
}
