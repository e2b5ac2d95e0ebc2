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

// DirConflict returns, for a list of names, the first name that a later or
// earlier name needs as a directory ("readme.md" and "readme.md/x": no
// workspace can hold both), as indexes (file, under), or ok false.
func DirConflict(names []string) (file, under int, ok bool) {
	at := make(map[string]int, len(names))
	for i, n := range names {
		if _, dup := at[n]; !dup {
			at[n] = i
		}
	}
	for i, n := range names {
		for k := len(n) - 1; k > 0; k-- {
			if n[k] == '/' {
				if j, ok := at[n[:k]]; ok {
					return j, i, true
				}
			}
		}
	}
	return 0, 0, false
}
