package render

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzClaudeCodeRead renders arbitrary files: no panic, and a rendering
// of n lines has n numbered lines, each "%6d→" and the line.
func FuzzClaudeCodeRead(f *testing.F) {
	f.Add("a\nb\n", 0, 0)
	f.Add("", 3, 1)
	f.Add("x\r\ny", 2, 5)
	f.Fuzz(func(t *testing.T, content string, offset, limit int) {
		if offset < 0 || limit < 0 {
			return
		}
		out, err := ClaudeCodeRead([]byte(content), ClaudeRead{Offset: offset, Limit: limit})
		if err != nil {
			return
		}
		if !utf8.Valid(out) {
			t.Fatalf("rendering is not UTF-8: %q", out)
		}
		s := string(out)
		if strings.HasPrefix(s, "<system-reminder>") {
			return
		}
		for i, l := range strings.Split(s, "\n") {
			num, _, ok := strings.Cut(l, "→")
			if !ok || len(num) < 6 || strings.TrimSpace(num) == "" {
				// A line of the file may hold "\r" but no "\n": every
				// rendered line starts with a number.
				t.Fatalf("line %d of the rendering lacks its number: %q", i, l)
			}
		}
	})
}

// FuzzCodexFrame puts arbitrary output into arbitrary recorded results:
// no panic, and CodexOutput gives back the output that was put in a frame.
func FuzzCodexFrame(f *testing.F) {
	f.Add(`{"output":"x","metadata":{"exit_code":0}}`, "new\n")
	f.Add("Exit code: 0\nWall time: 1 seconds\nOutput:\nold", "new")
	f.Add("plain", "text")
	f.Fuzz(func(t *testing.T, recorded, output string) {
		out, err := CodexFrame([]byte(recorded), []byte(output))
		if err != nil || !utf8.ValidString(output) {
			return
		}
		if got := string(CodexOutput(out)); got != output {
			t.Fatalf("CodexOutput(CodexFrame(%q, %q)) = %q", recorded, output, got)
		}
	})
}
