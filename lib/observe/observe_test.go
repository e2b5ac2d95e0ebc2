package observe

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=P", "GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=P", "GIT_COMMITTER_EMAIL=p@x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func put(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// describe renders observed files as "name=content", "name deleted",
// "name skipped: why".
func describe(t *testing.T, s *store.Store, obs []manifest.Observed) string {
	var out []string
	for _, o := range obs {
		switch {
		case o.Deleted:
			out = append(out, o.Name+" deleted")
		case o.Skipped != "":
			out = append(out, o.Name+" skipped: "+o.Skipped)
		default:
			b, err := s.Get(o.ContentRef)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, o.Name+"="+string(b))
		}
	}
	return strings.Join(out, "; ")
}

// repo makes a git work tree whose one commit holds files (name,
// content, …), with a store in it, untracked.
func repo(t *testing.T, files ...string) (string, *store.Store) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	for i := 0; i+1 < len(files); i += 2 {
		put(t, dir, files[i], files[i+1])
	}
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "c")
	s, _, err := store.Init(filepath.Join(dir, ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, s
}

func TestRecord(t *testing.T) {
	dir, s := repo(t, "a.txt", "one\n", "gone.txt", "bye\n", "dirty.txt", "committed\n")
	// A person's change before the session's step: not the step's.
	put(t, dir, "dirty.txt", "a person's\n")
	steps := []struct {
		id   string
		do   func()
		want string
	}{
		{"s1", func() {
			put(t, dir, "a.txt", "one\ntwo\n")
			os.Remove(filepath.Join(dir, "gone.txt"))
			put(t, dir, "new.txt", "made\n")
			put(t, dir, "bin.dat", "\x00\x01")
			put(t, dir, "big.txt", strings.Repeat("x", MaxSize+1))
		}, "a.txt=one\ntwo\n; big.txt skipped: larger than 1 MiB; bin.dat skipped: binary; gone.txt deleted; new.txt=made\n"},
		// Back to HEAD's content: a change too.
		{"s2", func() { put(t, dir, "a.txt", "one\n") }, "a.txt=one\n"},
		{"s3", func() {}, ""},
	}
	for _, st := range steps {
		if _, err := Record(s, dir, "sess", Entry{Event: "PreToolUse", Time: Now(), ToolUseID: st.id, Tool: "Bash"}); err != nil {
			t.Fatal(err)
		}
		st.do()
		e, err := Record(s, dir, "sess", Entry{Event: "PostToolUse", Time: Now(), ToolUseID: st.id, Tool: "Bash"})
		if err != nil {
			t.Fatal(err)
		}
		if got := describe(t, s, e.Observed); got != st.want {
			t.Errorf("step %s observed %q, want %q", st.id, got, st.want)
		}
	}
	entries, err := Read(s, "sess")
	if err != nil || len(entries) != 6 {
		t.Fatalf("Read: %d entries, %v; want 6", len(entries), err)
	}
	if other, _ := Read(s, "other"); other != nil {
		t.Errorf("another session's journal has %d entries", len(other))
	}

	l := &execlog.Log{Steps: []execlog.Step{
		{Index: 0, Type: manifest.ToolCall, Tool: "Bash", Metadata: []byte(`{"call_id":"s2"}`)},
		{Index: 1, Type: manifest.ToolCall, Tool: "Bash", Metadata: []byte(`{"call_id":"s3"}`)},
		{Index: 2, Type: manifest.ToolCall, Tool: "Bash", Metadata: []byte(`{"call_id":"s1"}`)},
	}}
	n, missing := Attach(s, l, entries)
	if n != 2 || missing != nil {
		t.Fatalf("Attach: %d steps, missing %v; want 2, none", n, missing)
	}
	if got := len(l.Steps[0].Observed); got != 1 || l.Steps[0].Observed[0].Name != "a.txt" {
		t.Errorf("step 0 observed %+v, want a.txt", l.Steps[0].Observed)
	}
	if l.Steps[1].Observed != nil {
		t.Errorf("step 1 changed nothing but observed %+v", l.Steps[1].Observed)
	}
	if got := len(l.Steps[2].Observed); got != 5 {
		t.Errorf("step 2 observed %d files, want 5", got)
	}
}

func TestRecordNotWorkTree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir := t.TempDir()
	s, _, err := store.Init(filepath.Join(dir, ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Record(s, dir, "sess", Entry{Event: "PostToolUse"}); err == nil || !strings.Contains(err.Error(), "not a git work tree") {
		t.Errorf("Record outside a work tree: %v, want not a git work tree", err)
	}
}

// A journal that is a symlink is neither read nor written through.
func TestJournalSymlink(t *testing.T) {
	dir, s := repo(t, "a.txt", "one\n")
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	put(t, filepath.Dir(elsewhere), "elsewhere", "")
	if err := os.MkdirAll(filepath.Dir(journal(s, "sess")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, journal(s, "sess")); err != nil {
		t.Skip("no symlinks here")
	}
	if _, err := Record(s, dir, "sess", Entry{Event: "PostToolUse"}); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("Record through a symlinked journal: %v, want a refusal", err)
	}
	if _, err := Read(s, "sess"); err == nil {
		t.Error("Read through a symlinked journal succeeded")
	}
	if b, _ := os.ReadFile(elsewhere); len(b) != 0 {
		t.Errorf("written through the symlink: %q", b)
	}
}
