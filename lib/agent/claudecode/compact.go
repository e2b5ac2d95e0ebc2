package claudecode

import "strings"

// A compaction (/compact, or a full context) is a request of its own:
// the conversation so far, then a user text asking for a summary, which
// opens with compactInstruction. The model's answer is not kept as a
// turn: Claude Code formats it — the <analysis> block removed, the
// <summary> block written "Summary:\n" and its content trimmed, runs of
// blank lines made one, the whole trimmed — and wraps it in the user
// text that opens the compacted conversation (summaryOpening, an
// optional <system-reminder> naming the tools used before, the summary,
// then a trailer naming the transcript and asking to continue), which
// its transcript records with "isCompactSummary": true.

// compactInstruction opens the user text that asks for a compaction
// summary.
const compactInstruction = "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools."

// summaryOpening opens the user text that carries a compaction summary.
const summaryOpening = "This session is being continued from a previous conversation"

// summaryEnds open what Claude Code writes after the summary, by version.
var summaryEnds = []string{
	"\n\nIf you need specific details from before compaction",
	"\nContinue the conversation from where it left off",
	"\nPlease continue the conversation from where we left it off",
	"\n\nThe messages after this summary are the most recent messages",
}

// Side tells the requests Claude Code makes besides its turns by the
// last user text they send: "compact" for the one asking for a
// compaction summary.
func Side(_, last string) string {
	if strings.HasPrefix(strings.TrimSpace(last), compactInstruction) {
		return "compact"
	}
	return ""
}

// CompactSummary reports whether text is the user text Claude Code opens
// a compacted conversation with, and returns the model's answer it was
// made from, as far as the text keeps it: the summary in its <summary>
// block, after what the answer said before it; the <analysis> block and
// blank lines beyond one between paragraphs are not kept, and so are not
// returned. Formatted again, the answer gives the same summary.
func CompactSummary(text string) (answer string, ok bool) {
	if !strings.HasPrefix(text, summaryOpening) {
		return "", false
	}
	_, body, ok := strings.Cut(text, "\n\n")
	if !ok {
		return "", true
	}
	for strings.HasPrefix(body, "<system-reminder>") {
		i := strings.Index(body, "</system-reminder>")
		if i < 0 {
			break
		}
		body = strings.TrimLeft(body[i+len("</system-reminder>"):], "\n")
	}
	end := len(body)
	for _, e := range summaryEnds {
		if i := strings.Index(body, e); i >= 0 && i < end {
			end = i
		}
	}
	body = strings.TrimSpace(body[:end])
	const head = "Summary:\n"
	i := strings.Index(body, head)
	for i > 0 && body[i-1] != '\n' {
		j := strings.Index(body[i+1:], head)
		if j < 0 {
			i = -1
			break
		}
		i += 1 + j
	}
	if i < 0 {
		return body, true
	}
	return body[:i] + "<summary>\n" + body[i+len(head):] + "\n</summary>", true
}
