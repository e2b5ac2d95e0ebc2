package render

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

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

// FuzzCodexRead prints arbitrary files with arbitrary plain reads and
// reads the output back: Shown must accept what Print prints, give the
// file's lines from the first one printed, say the file ended exactly when
// it did, and PrintLines must print those lines again as Print did when
// the last of them ends in a line break.
func FuzzCodexRead(f *testing.F) {
	f.Add("nl -ba f | sed -n '2,3p'", "a\nb\nc\nd")
	f.Add("sed -n '2,9p' f", "a\nb\n")
	f.Add("head -n 2 f", "")
	f.Add("cat f", "x")
	f.Add("nl -ba f | head -1", "\n\n")
	f.Fuzz(func(t *testing.T, script, content string) {
		stages, err := SplitPipeline(script)
		if err != nil {
			return
		}
		r, err := ParseCodexRead(stages)
		if err != nil || r == nil {
			return
		}
		if r.From < 1 || r.To < 0 || len(r.Files) == 0 {
			t.Fatalf("%q read as %+v", script, r)
		}
		out := r.Print([]byte(content))
		lines, ended, err := r.Shown(out)
		if err != nil {
			t.Fatalf("%q of %q printed %q, which Shown refuses: %v", script, content, out, err)
		}
		var file []string
		if content != "" {
			file = strings.Split(strings.TrimSuffix(content, "\n"), "\n")
		}
		last := r.From - 1 + len(lines)
		if len(lines) > 0 && (last > len(file) || !slices.Equal(lines, file[r.From-1:last])) {
			t.Fatalf("%q of %q: Shown(%q) = %q, not the file's lines from %d", script, content, out, lines, r.From)
		}
		if ended && len(file) > last || !ended && len(file) < last {
			t.Fatalf("%q of %q: Shown(%q) says ended %v, but the file has %d lines", script, content, out, ended, len(file))
		}
		if len(lines) == 0 && len(file) >= r.From && r.To >= r.From {
			t.Fatalf("%q of %q: nothing shown of a file of %d lines", script, content, len(file))
		}
		if r.Numbered || bytes.HasSuffix(out, []byte("\n")) || len(out) == 0 {
			if again := r.PrintLines(lines); !bytes.Equal(again, out) {
				t.Fatalf("%q of %q: PrintLines(%q) = %q, want %q", script, content, lines, again, out)
			}
		}
	})
}

// FuzzClaudeCodeMultiEdit renders arbitrary replacements: no panic; a
// rendering is valid UTF-8 for valid strings, shows a string of at most
// ClaudeMultiEditShown UTF-16 code units whole, and a longer one as a
// prefix of it followed by "...".
func FuzzClaudeCodeMultiEdit(f *testing.F) {
	f.Add("a", "b")
	f.Add(strings.Repeat("x", 49)+"😀", "é")
	f.Add(strings.Repeat("ab\n", 30), "")
	f.Fuzz(func(t *testing.T, old, new string) {
		if !utf8.ValidString(old) || !utf8.ValidString(new) {
			return
		}
		got, err := ClaudeCodeMultiEdit("p", []string{old}, []string{new}, []byte("Applied 1 edit to p:\n1. Replaced \""))
		if err != nil {
			return
		}
		if !utf8.Valid(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		for _, s := range []string{old, new} {
			short, _ := jsPrefix(s, ClaudeMultiEditShown)
			if len(utf16.Encode([]rune(s))) <= ClaudeMultiEditShown {
				if short != s {
					t.Errorf("%q shown as %q", s, short)
				}
			} else if cut, ok := strings.CutSuffix(short, "..."); !ok || !strings.HasPrefix(s, cut) {
				t.Errorf("%q shown as %q", s, short)
			}
			if !bytes.Contains(got, []byte(`"`+short+`"`)) {
				t.Errorf("%q: %q not in %q", s, short, got)
			}
		}
	})
}
