// Package version says which ctx a binary is: the version of the module it
// was built from and, when the toolchain recorded it, the commit. It
// imports only the standard library, so that the ctx front, which must
// start fast, can say it too.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version and Commit may be set at link time:
// -ldflags "-X github.com/ctx-tools/ctx/lib/version.Version=v1.2.3".
// Otherwise Module and Revision read them from the build information.
var (
	Version = ""
	Commit  = ""
)

// Module returns the version of ctx: Version when set at link time, else
// the main module's version the go command recorded (v1.2.3 for go
// install …@v1.2.3), else "(devel)", as the go command says of a build
// from a working tree.
func Module() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// Revision returns the commit ctx was built from, "" when unknown: Commit
// when set at link time, else the VCS revision the go command recorded
// (with "+dirty" when the tree had changes).
func Revision() string {
	if Commit != "" {
		return Commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "+dirty"
	}
	return rev
}

// String is what --version prints for the binary name: "ctx-pack v1.2.3
// (commit abc…, go1.26.1)", or without the commit when it is unknown.
func String(name string) string {
	if rev := Revision(); rev != "" {
		return fmt.Sprintf("%s %s (commit %s, %s)", name, Module(), rev, runtime.Version())
	}
	return fmt.Sprintf("%s %s (%s)", name, Module(), runtime.Version())
}
