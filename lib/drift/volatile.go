package drift

import (
	"strings"
	"unicode"

	"github.com/ctx-tools/ctx/lib/canon"
)

// volatileWords are the last words of metadata keys whose values differ
// between any two runs of the same work, so that a difference in them
// says nothing: identifiers (uuid, requestId, sessionId, call_id,
// trace_id, span_id, eval_id…), times and durations (timestamp,
// created_at, end_time, durationMs…), signatures of thinking blocks and
// fingerprints of the serving system. The importers record them from
// the agents' logs (Claude Code, Codex, OpenTelemetry, LangSmith,
// Inspect): lib/importer keeps everything it does not map.
var volatileWords = map[string]bool{
	"id": true, "ids": true, "uuid": true,
	"timestamp": true, "time": true, "at": true, "ms": true, "seconds": true,
	"signature": true, "fingerprint": true,
}

// stableOwners are what an id names when it is the same in every run of
// the same work: model_id, user_id, org_id, projectId… stay compared.
var stableOwners = map[string]bool{
	"model": true, "user": true, "org": true, "organization": true,
	"project": true, "account": true, "workspace": true, "tenant": true,
}

// volatileKeys are whole keys (lower-cased, without separators) of such
// values that no last word gives away.
var volatileKeys = map[string]bool{
	"created":     true, // a response's creation time
	"dottedorder": true, // LangSmith's run order, times and ids
	"slug":        true, // Claude Code's random session name
}

// Volatile reports whether a metadata path (the path of a changed leaf,
// as metadata_drift names it) holds a value that differs between any two
// runs: its last member name is an identifier, a time or a duration.
// Such entries are left out unless Options.AllMetadata.
func Volatile(p canon.Path) bool {
	for i := len(p) - 1; i >= 0; i-- {
		k, ok := p[i].(string)
		if !ok {
			continue // an array index: the member that holds the array decides
		}
		words := keyWords(k)
		if len(words) == 0 {
			return false
		}
		last := words[len(words)-1]
		if (last == "id" || last == "ids") && len(words) > 1 && stableOwners[words[len(words)-2]] {
			return false
		}
		return volatileWords[last] || volatileKeys[strings.Join(words, "")]
	}
	return false
}

// keyWords splits a member name into lower-case words at '_', '-', '.',
// and lower-to-upper case changes ("sourceToolAssistantUUID" is source,
// tool, assistant, uuid), dropping words of digits ("id_2" is id).
func keyWords(k string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 && strings.TrimFunc(string(cur), unicode.IsDigit) != "" {
			words = append(words, strings.ToLower(string(cur)))
		}
		cur = cur[:0]
	}
	rs := []rune(k)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && unicode.IsLower(rs[i-1]):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return words
}
