package claudecode

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/replay/replaytest"
)

var malware = ReadReminders[0]

func TestClaudeCodeRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		req     ReadRequest
		want    string // "skip: …" for an *Unsupported error
	}{
		{"whole file", "a\nb\n", ReadRequest{}, "     1→a\n     2→b\n     3→"},
		{"no final newline", "a\nb", ReadRequest{}, "     1→a\n     2→b"},
		{"reminder", "x\n", ReadRequest{Reminder: malware}, "     1→x\n     2→" + malware},
		{"crlf", "a\r\nb\r\n", ReadRequest{}, "     1→a\n     2→b\n     3→"},
		{"lone cr stays", "a\rb", ReadRequest{}, "     1→a\rb"},
		{"offset", "1\n2\n3\n4\n", ReadRequest{Offset: 2}, "     2→2\n     3→3\n     4→4\n     5→"},
		{"offset limit", "1\n2\n3\n4\n", ReadRequest{Offset: 2, Limit: 2}, "     2→2\n     3→3"},
		{"offset zero", "1\n2", ReadRequest{Offset: 0, Limit: 1}, "     1→1"},
		{"limit past end", "1\n2", ReadRequest{Limit: 10}, "     1→1\n     2→2"},
		{"empty file", "", ReadRequest{Reminder: malware}, "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"},
		{"offset past end", "1\n2\n", ReadRequest{Offset: 7, Reminder: malware}, "<system-reminder>Warning: the file exists but is shorter than the provided offset (7). The file has 3 lines.</system-reminder>"},
		{"tabs and unicode", "\tgo → ü\n", ReadRequest{}, "     1→\tgo → ü\n     2→"},
		{"invalid utf-8", "a\xffb", ReadRequest{}, "skip: the file is not valid UTF-8; Claude Code's replacement of invalid bytes is not reproduced"},
		{"long line", strings.Repeat("x", 2001), ReadRequest{}, "skip: line 1 is longer than 2000 characters, and Claude Code versions differ in how they shorten it"},
		{"line of 2000", strings.Repeat("é", 2000), ReadRequest{}, "     1→" + strings.Repeat("é", 2000)},
		{"too many lines", strings.Repeat("\n", 2000), ReadRequest{}, "skip: the file has more than 2000 lines from the offset, and Claude Code versions differ in how they cut it"},
		{"many lines with a limit", strings.Repeat("\n", 2000), ReadRequest{Offset: 1999, Limit: 5}, "  1999→\n  2000→\n  2001→"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderRead([]byte(tt.content), tt.req)
			if s := replaytest.Result(got, err); s != tt.want {
				t.Errorf("got  %q\nwant %q", s, tt.want)
			}
		})
	}
	// Seven-digit line numbers are not padded.
	many := strings.Repeat("\n", 1_000_000)
	got, err := RenderRead([]byte(many), ReadRequest{Offset: 999_999, Limit: 2})
	if s := replaytest.Result(got, err); s != "999999→\n1000000→" {
		t.Errorf("wide numbers: %q", s)
	}
}

// A Read is numbered in each of the forms of Numbering.
func TestReadNumbering(t *testing.T) {
	t.Parallel()
	for n, want := range map[Numbering]string{Arrow: "     7→a\n     8→b", Tab: "7\ta\n8\tb", PaddedTab: "     7\ta\n     8\tb"} {
		got, err := RenderRead([]byte("a\nb"), ReadRequest{Numbering: n, Offset: 7, Base: 7})
		if err != nil || string(got) != want {
			t.Errorf("numbering %d: %q, %v; want %q", n, got, err, want)
		}
	}
}

func TestClaudeReadReminder(t *testing.T) {
	t.Parallel()
	for _, r := range ReadReminders {
		if got := ReadReminder([]byte("     1→x" + r)); got != r {
			t.Errorf("reminder not recognised: %q", got)
		}
	}
	if got := ReadReminder([]byte("     1→x\n\n<system-reminder>\nsomething else\n</system-reminder>\n")); got != "" {
		t.Errorf("unknown reminder taken: %q", got)
	}
}

func TestClaudeCodeListings(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, got, want string }{
		{"glob none", string(RenderGlob(nil, false)), "No files found"},
		{"glob", string(RenderGlob([]string{"b.go", "a/c.go"}, false)), "b.go\na/c.go"},
		{"glob truncated", string(RenderGlob([]string{"a"}, true)), "a\n(Results are truncated. Consider using a more specific path or pattern.)"},
		{"grep files none", string(RenderGrepFiles(nil, GrepPage{})), "No files found"},
		{"grep one file", string(RenderGrepFiles([]string{"a.go"}, GrepPage{})), "Found 1 file\na.go"},
		{"grep files", string(RenderGrepFiles([]string{"a.go", "b.go"}, GrepPage{})), "Found 2 files\na.go\nb.go"},
		{"grep files paged", string(RenderGrepFiles([]string{"a.go"}, GrepPage{Limit: 1, Offset: 3})), "Found 1 file limit: 1, offset: 3\na.go"},
		{"grep content none", string(RenderGrepContent(nil, GrepPage{})), "No matches found"},
		{"grep content", string(RenderGrepContent([]string{"a.go:1:x", "a.go-2-y"}, GrepPage{})), "a.go:1:x\na.go-2-y"},
		{"grep content paged", string(RenderGrepContent([]string{"a.go:1:x"}, GrepPage{Limit: 1})), "a.go:1:x\n\n[Showing results with pagination = limit: 1]"},
		{"grep count", string(RenderGrepCount([]string{"a.go:3", "b:c.go:1"}, GrepPage{})), "a.go:3\nb:c.go:1\n\nFound 4 total occurrences across 2 files."},
		{"grep count one", string(RenderGrepCount([]string{"a.go:1"}, GrepPage{})), "a.go:1\n\nFound 1 total occurrence across 1 file."},
		{"grep count single file", string(RenderGrepCount([]string{"5"}, GrepPage{})), "5\n\nFound 0 total occurrences across 0 files."},
		{"grep count none", string(RenderGrepCount(nil, GrepPage{})), "No matches found\n\nFound 0 total occurrences across 0 files."},
		{"ls", string(RenderLS(".", []string{"src/", "src/util/", "src/util/s.go", "README.md", "src/main.go", "a-b/", "a/"})),
			"- .\n  - README.md\n  - a-b/\n  - a/\n  - src/\n    - main.go\n    - util/\n      - s.go\n\nNOTE: do any of the files above seem malicious? If so, you MUST refuse to continue work."},
		{"ls sub", string(RenderLS("/p/", []string{"src/main.go"})),
			"- /p/\n  - src/\n    - main.go\n\nNOTE: do any of the files above seem malicious? If so, you MUST refuse to continue work."},
		{"ls empty", string(RenderLS(".", nil)), "- .\n\nNOTE: do any of the files above seem malicious? If so, you MUST refuse to continue work."},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, tt.got, tt.want)
		}
	}
}

// TestClaudeCodeReadSamples renders every whole-file Read of the shared
// Claude Code sessions from the file content the session recorded
// (toolUseResult.file) and compares it with the tool_result Claude Code
// gave the model.
func TestClaudeCodeReadSamples(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t, "agent-logs/claude-code")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for line := 1; sc.Scan(); line++ {
			rec := gjson.ParseBytes(sc.Bytes())
			file := rec.Get("toolUseResult.file")
			if rec.Get("toolUseResult.type").String() != "text" || !file.Get("content").Exists() {
				continue
			}
			want := rec.Get("message.content.0.content").String()
			got, err := RenderRead([]byte(file.Get("content").String()), ReadRequest{
				Offset: int(file.Get("startLine").Int()), Limit: int(file.Get("numLines").Int()),
				Reminder: ReadReminder([]byte(want))})
			if err != nil {
				t.Errorf("%s:%d: %v", filepath.Base(name), line, err)
				continue
			}
			if string(got) != want {
				t.Errorf("%s:%d: rendering differs\n got %q\nwant %q", filepath.Base(name), line, got, want)
			}
			n++
		}
		f.Close()
	}
	if n == 0 {
		t.Fatal("no Read result in the shared Claude Code sessions")
	}
}

// FuzzRenderRead renders arbitrary files: no panic, and a rendering
// of n lines has n numbered lines, each "%6d→" and the line.
func FuzzRenderRead(f *testing.F) {
	f.Add("a\nb\n", 0, 0)
	f.Add("", 3, 1)
	f.Add("x\r\ny", 2, 5)
	f.Fuzz(func(t *testing.T, content string, offset, limit int) {
		if offset < 0 || limit < 0 {
			return
		}
		out, err := RenderRead([]byte(content), ReadRequest{Offset: offset, Limit: limit})
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
