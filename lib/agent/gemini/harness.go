// Package gemini holds what ctx knows of the Gemini CLI that is not one
// consumer's alone: the context its harness writes into a conversation
// and the way it is run against a model endpoint (Driver).
package gemini

import "strings"

// contextTags open the texts the Gemini CLI writes into a conversation
// itself: the session's context (date, operating system, working
// directory and its listing), and the like.
var contextTags = []string{"<session_context>", "This is the Gemini CLI. We are setting up the context for our chat."}

// Harness reports whether a user text is the Gemini CLI's own context.
func Harness(text string) bool {
	t := strings.TrimSpace(text)
	for _, tag := range contextTags {
		if strings.HasPrefix(t, tag) {
			return true
		}
	}
	return false
}
