package claudecode

import (
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/replay/replaytest"
)

func TestNumberingOf(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]Numbering{
		"     1→x":    Arrow,
		"1\tx":        Tab,
		"12\tx\n13\t": Tab,
		"     1\tx":   PaddedTab,
		"1234567\tx":  Tab,
		"":            Arrow,
		"<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>": Arrow,
	} {
		if got := NumberingOf([]byte(text)); got != want {
			t.Errorf("NumberingOf(%q) = %d, want %d", text, got, want)
		}
	}
}

func TestRenderEdit(t *testing.T) {
	t.Parallel()
	const p = "/p/f.js"
	const head = "The file /p/f.js has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n"
	var lines string
	for i := 1; i <= 20; i++ {
		lines += "line " + string(rune('a'+i-1)) + "\n"
	}
	tests := []struct {
		name                    string
		before, after, old, new string
		all                     bool
		form                    EditForm
		n                       Numbering
		want                    string
	}{
		{"one line, whole file", "console.log('Hello World');", "const a = 1;\nconsole.log(a);", "console.log('Hello World');", "const a = 1;\nconsole.log(a);", false, EditSnippet, Arrow,
			head + "     1→const a = 1;\n     2→console.log(a);"},
		{"four lines around", lines, strings.Replace(lines, "line k", "LINE K", 1), "line k", "LINE K", false, EditSnippet, Arrow,
			head + "     7→line g\n     8→line h\n     9→line i\n    10→line j\n    11→LINE K\n    12→line l\n    13→line m\n    14→line n\n    15→line o"},
		{"tab numbering", "a\nb\n", "a\nB\n", "b", "B", false, EditSnippet, Tab,
			head + "1\ta\n2\tB\n3\t"},
		{"short form", "a", "b", "a", "b", false, EditShort, Arrow, "The file /p/f.js has been updated successfully."},
		{"replace all", "a a", "b b", "a", "b", true, EditAll, Arrow, "The file /p/f.js has been updated. All occurrences of 'a' were successfully replaced with 'b'."},
		{"unknown form", "a", "b", "a", "b", false, EditUnknown, Arrow, "skip: the recorded answer is in none of the forms of Claude Code's Edit that are rendered"},
	}
	for _, tt := range tests {
		got, err := RenderEdit(p, tt.before, tt.after, tt.old, tt.new, tt.all, tt.form, tt.n)
		if s := replaytest.Result(got, err); s != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, s, tt.want)
		}
	}
	for rec, want := range map[string]EditForm{
		head + "     1→x":                            EditSnippet,
		"The file /x has been updated successfully.": EditShort,
		"The file /x has been updated. All occurrences of 'a\nb' were successfully replaced with 'c'.": EditAll,
		"Applied 2 edits to /x": EditUnknown,
	} {
		if got := EditFormOf([]byte(rec)); got != want {
			t.Errorf("EditFormOf(%q) = %d, want %d", rec, got, want)
		}
	}
}

func TestRenderWrite(t *testing.T) {
	t.Parallel()
	if got := string(RenderWriteCreated("/p/x")); got != "File created successfully at: /p/x" {
		t.Errorf("created: %q", got)
	}
	got, err := RenderWriteUpdated("/p/x", "a\nb\n", EditSnippet, Arrow)
	if want := "The file /p/x has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     1→a\n     2→b\n     3→"; replaytest.Result(got, err) != want {
		t.Errorf("updated: %q", replaytest.Result(got, err))
	}
}

// The answers below follow the template of MultiEdit's result in Claude
// Code 1.0.0 and 1.0.128 (the same in both; 2.0 has no MultiEdit).
func TestRenderMultiEdit(t *testing.T) {
	t.Parallel()
	const form = "Applied 1 edit to /p/x:\n1. Replaced \"" // what a recorded answer starts with
	long := strings.Repeat("abcde", 10)                    // 50 characters: shown whole
	tests := []struct {
		name       string
		olds, news []string
		recorded   string
		want       string
	}{
		{"one", []string{"a"}, []string{"b"}, form,
			"Applied 1 edit to /p/x:\n1. Replaced \"a\" with \"b\""},
		{"several, multi-line, empty", []string{"x", "a\nb", "gone"}, []string{"y", "c\n", ""}, form,
			"Applied 3 edits to /p/x:\n1. Replaced \"x\" with \"y\"\n2. Replaced \"a\nb\" with \"c\n\"\n3. Replaced \"gone\" with \"\""},
		{"cut at 50 UTF-16 code units", []string{long, long + "f"}, []string{"é" + long, "😀" + long[:47]}, form,
			"Applied 2 edits to /p/x:\n1. Replaced \"" + long + "\" with \"é" + long[:49] + "...\"\n2. Replaced \"" + long + "...\" with \"😀" + long[:47] + "\""},
		{"a cut through a surrogate pair", []string{long[:49] + "😀"}, []string{"b"}, form,
			"skip: a string is cut inside a character outside the Basic Multilingual Plane"},
		{"the user modified the edits", []string{"a"}, []string{"b"}, "Applied 1 edit to /p/x.  " + UserModified + ":\n1. Replaced \"a\" with \"c\"",
			"skip: the user modified the edits before accepting them"},
		{"another form", []string{"a"}, []string{"b"}, "The file /p/x has been updated successfully.",
			"skip: the recorded answer is in none of the forms of Claude Code's MultiEdit that are rendered"},
		{"no answer recorded", []string{"a"}, []string{"b"}, "",
			"skip: the recorded answer is in none of the forms of Claude Code's MultiEdit that are rendered"},
	}
	for _, tt := range tests {
		got, err := RenderMultiEdit("/p/x", tt.olds, tt.news, []byte(tt.recorded))
		if s := replaytest.Result(got, err); s != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, s, tt.want)
		}
	}
}

func TestCutFileStateNote(t *testing.T) {
	t.Parallel()
	rest, note := CutFileStateNote([]byte("File created successfully at: /p/a.txt" + FileStateNote))
	if string(rest) != "File created successfully at: /p/a.txt" || string(note) != FileStateNote {
		t.Errorf("cut: %q, %q", rest, note)
	}
	if rest, note := CutFileStateNote([]byte("The file /p/a.txt has been updated successfully.")); string(rest) != "The file /p/a.txt has been updated successfully." || note != nil {
		t.Errorf("no note: %q, %q", rest, note)
	}
}
