package claudecode

import (
	"regexp"
	"strings"
	"testing"
)

// The texts Claude Code 2.1.328 wrote for the answers given (trailer
// shortened where it does not matter).
const trailer = "\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: /h/.claude/projects/-w/s.jsonl\nContinue the conversation from where it left off without asking the user any further questions.\n\nThe messages after this summary are the most recent messages from before compaction, kept verbatim."

const opening = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n<system-reminder>\n<tools-used-before-summary>Write</tools-used-before-summary>\n</system-reminder>\n"

// format is what Claude Code makes of a compaction answer.
func format(s string) string {
	s = regexp.MustCompile(`<analysis>[\s\S]*?</analysis>`).ReplaceAllLiteralString(s, "")
	if m := regexp.MustCompile(`<summary>([\s\S]*?)</summary>`).FindStringSubmatchIndex(s); m != nil {
		s = s[:m[0]] + "Summary:\n" + strings.TrimSpace(s[m[2]:m[3]]) + s[m[1]:]
	}
	return strings.TrimSpace(regexp.MustCompile(`\n\n+`).ReplaceAllString(s, "\n\n"))
}

func TestCompactSummary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ given, text, want string }{
		{"<analysis>\nThe user asked for a.txt.\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   Create a.txt containing one.\n\n2. Pending Tasks:\n   None.\n</summary>",
			opening + "Summary:\n1. Primary Request and Intent:\n   Create a.txt containing one.\n\n2. Pending Tasks:\n   None." + trailer,
			"<summary>\n1. Primary Request and Intent:\n   Create a.txt containing one.\n\n2. Pending Tasks:\n   None.\n</summary>"},
		{"Pre text\n\n<analysis>a</analysis>\n\n\n\n<summary>\n  X\n\n\n\nY  \n</summary>\ntrailing",
			opening + "Pre text\n\nSummary:\nX\n\nY\ntrailing" + trailer,
			"Pre text\n\n<summary>\nX\n\nY\ntrailing\n</summary>"},
		{"no tags at all", "This session is being continued from a previous conversation.\n\nno tags at all", "no tags at all"},
	} {
		got, ok := CompactSummary(c.text)
		if !ok || got != c.want {
			t.Errorf("CompactSummary(%q) = %q, %v, want %q", c.text, got, ok, c.want)
		}
		if format(got) != format(c.given) {
			t.Errorf("%q formats to %q, the answer given to %q", got, format(got), format(c.given))
		}
	}
	if _, ok := CompactSummary("Summary:\nthis is a user's text"); ok {
		t.Error("a user's text read as a compaction summary")
	}
}

func TestSide(t *testing.T) {
	t.Parallel()
	if k := Side("You are Claude Code", "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\n- Do NOT use Read"); k != "compact" {
		t.Errorf("the compaction request: %q", k)
	}
	if k := Side("You are Claude Code", "Create a.txt"); k != "" {
		t.Errorf("a turn: %q", k)
	}
}

func TestCommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, want string }{
		{"<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args></command-args>", "/compact"},
		{"<command-message>compact</command-message>\n<command-name>/compact</command-name>\n<command-args>keep the plan</command-args>", "/compact keep the plan"},
		{"<command-message>review</command-message>", ""},
	} {
		if got, ok := (Driver{}).Command(c.text); got != c.want || ok != (c.want != "") {
			t.Errorf("Command(%q) = %q, %v, want %q", c.text, got, ok, c.want)
		}
	}
}
