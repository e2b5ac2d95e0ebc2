// Package wspath holds the one rule for which members of a tool call's
// parameters hold a path in the agent's workspace: the importer makes
// such paths relative to the session's working directory, so that a pack
// does not depend on where the session ran, and ctx-serve makes them
// absolute again under the directory an agent replays in.
package wspath

import "strings"

// Key reports whether a parameter named k holds a path (or a list of
// paths): its name, without "_" and "-" and in lower case, ends in path,
// paths, dir, dirs, directory, directories, cwd, workdir, file, files or
// folder.
func Key(k string) bool {
	k = strings.ToLower(separators.Replace(k))
	for _, suffix := range suffixes {
		if strings.HasSuffix(k, suffix) {
			return true
		}
	}
	return false
}

var (
	separators = strings.NewReplacer("_", "", "-", "")
	suffixes   = []string{"path", "paths", "dir", "dirs", "directory", "directories", "cwd", "workdir", "file", "files", "folder"}
)
