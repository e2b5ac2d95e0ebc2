package manifest

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// CheckName reports whether name is a clean relative path, the one rule
// for the names of inputs and outputs (and so of replayed files and
// sidecars): not empty, no NUL, no backslash, not absolute, and unchanged
// by path.Clean, which excludes "." and ".." elements, empty elements and a
// trailing "/".
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("name is empty")
	case strings.ContainsRune(name, 0):
		return fmt.Errorf("name %q contains NUL", name)
	case strings.ContainsRune(name, '\\'):
		return fmt.Errorf("name %q contains a backslash; use /", name)
	case strings.HasPrefix(name, "/"):
		return fmt.Errorf("name %q is absolute; names are relative paths", name)
	case path.Clean(name) != name || name == "." || name == ".." || strings.HasPrefix(name, "../"):
		return fmt.Errorf("name %q is not a clean relative path (no \".\", \"..\", empty or trailing elements)", name)
	}
	return nil
}
