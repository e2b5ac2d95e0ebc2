package opencode

import "strings"

// Side tells the requests OpenCode makes besides its turns by their
// system prompt: "title" for the one that names a new session.
func Side(system string) string {
	if strings.HasPrefix(strings.TrimSpace(system), "You are a title generator") {
		return "title"
	}
	return ""
}
