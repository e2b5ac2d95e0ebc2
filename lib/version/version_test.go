package version

import (
	"runtime"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	old, oldCommit := Version, Commit
	defer func() { Version, Commit = old, oldCommit }()

	// A test binary records no module version and no VCS revision.
	Version, Commit = "", ""
	if got, want := String("ctx-x"), "ctx-x (devel) ("+runtime.Version()+")"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if strings.Contains(String("ctx-x"), "unknown") {
		t.Errorf("String says unknown: %q", String("ctx-x"))
	}
	Version, Commit = "v1.2.3", "abc123"
	if got, want := String("ctx-x"), "ctx-x v1.2.3 (commit abc123, "+runtime.Version()+")"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}
