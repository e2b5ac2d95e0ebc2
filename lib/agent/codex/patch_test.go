package codex

import "testing"

func TestPatchSummary(t *testing.T) {
	t.Parallel()
	got := string(PatchSummary([]string{"a.txt"}, []string{"b.go", "c/d.go"}, []string{"old.md"}))
	if want := "Success. Updated the following files:\nA a.txt\nM b.go\nM c/d.go\nD old.md\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
