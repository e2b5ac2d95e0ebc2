package claudecode

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/ctx-tools/ctx/lib/replay"
)

// Claude Code answers a file edit with a text that names the file and,
// in some versions, shows the lines around the change. Which of its forms
// a version uses does not depend on the files: EditFormOf reads it from
// the recorded result, and the renderers below produce the chosen form
// from what the edit did. A replay applies the edit and renders the answer
// with them (EditAnswerers): Write's "File created successfully at: PATH",
// Edit's cat -n snippet or one-line forms, chosen by the recording, with
// the note on the file state Claude Code 2.1.32x appends when the
// recording has it (FileStateNote); MultiEdit's "Applied N edits to
// PATH:" with a line per replacement, as Claude Code 1.0 gave it.

// EditForm is a form of Claude Code's answer to a Write or an Edit
// that changed an existing file.
type EditForm int

// Forms of the answer.
const (
	// EditUnknown: the recording shows none of the forms below.
	EditUnknown EditForm = iota
	// EditSnippet: "The file PATH has been updated. Here's the
	// result of running `cat -n` on a snippet of the edited file:\n" and
	// the numbered lines (Claude Code 1.0 and 2.0).
	EditSnippet
	// EditShort: "The file PATH has been updated successfully."
	// (Claude Code 2.1).
	EditShort
	// EditAll: "The file PATH has been updated. All occurrences of
	// 'OLD' were successfully replaced with 'NEW'." (an Edit with
	// replace_all).
	EditAll
)

const snippetHead = " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n"

// editForms are compiled at first use, not when a program that links
// this package (ctx-pack, through its importers) starts.
var editForms = sync.OnceValue(func() (f struct{ snippet, short, all *regexp.Regexp }) {
	f.snippet = regexp.MustCompile("^The file .* has been updated\\. Here's the result of running `cat -n` on a snippet of the edited file:\n")
	f.short = regexp.MustCompile(`^The file .* has been updated successfully\.$`)
	f.all = regexp.MustCompile(`(?s)^The file .* has been updated\. All occurrences of '.*' were successfully replaced with '.*'\.$`)
	return f
})

// EditFormOf returns the form recorded is in.
func EditFormOf(recorded []byte) EditForm {
	f := editForms()
	switch {
	case f.snippet.Match(recorded):
		return EditSnippet
	case f.all.Match(recorded):
		return EditAll
	case f.short.Match(recorded):
		return EditShort
	}
	return EditUnknown
}

// editAnswerer renders Claude Code's answers to Write, Edit and
// MultiEdit (EditAnswerers).
type editAnswerer struct{}

// EditAnswerers returns, for replay.Options.Edits, the renderers of
// Claude Code's answers to its edits: Write, Edit and MultiEdit.
func EditAnswerers() map[string]replay.EditAnswerer {
	return map[string]replay.EditAnswerer{"Write": editAnswerer{}, "Edit": editAnswerer{}, "MultiEdit": editAnswerer{}}
}

// Unchanged returns "": Claude Code marks an edit that failed as an error.
func (editAnswerer) Unchanged(*replay.Call) (string, error) { return "", nil }

// Answer renders Claude Code's answer to the Write, Edit or MultiEdit a.
func (editAnswerer) Answer(a *replay.AppliedEdit) ([]byte, error) {
	if a.Call.Tool == "MultiEdit" {
		var olds, news []string
		for _, r := range a.Edit.Replacements() {
			olds, news = append(olds, r.Old), append(news, r.New)
		}
		return RenderMultiEdit(spelled(a.Shown(a.Edit.Path), a.Recorded), olds, news, a.Recorded)
	}
	rec, note := CutFileStateNote(a.Recorded)
	out, err := writeAnswer(a, rec)
	if err != nil {
		return nil, err
	}
	return append(out, note...), nil
}

// writeAnswer renders Claude Code's answer to the Write or Edit a, in the
// form of rec (the recorded answer without the note on the file state,
// CutFileStateNote).
func writeAnswer(a *replay.AppliedEdit, rec []byte) ([]byte, error) {
	c := a.Changes[0]
	shown := spelled(a.Shown(c.Path), rec)
	form := EditFormOf(rec)
	numbering := Arrow
	if _, rest, ok := bytes.Cut(rec, []byte("\n")); ok {
		numbering = NumberingOf(rest)
	}
	if a.Call.Tool == "Edit" {
		r := a.Edit.Replacements()[0]
		return RenderEdit(shown, c.Before, c.Content, r.Old, r.New, r.All, form, numbering)
	}
	if !c.Existed {
		name, _ := a.Name(c.Path)
		switch {
		case form != EditUnknown && a.Absent(c.Path):
			return nil, replay.Skipf("Write: the session's answer says %s existed, and the pack does not hold it", name)
		case rec != nil && form == EditUnknown && !bytes.HasPrefix(rec, []byte(CreatedPrefix)):
			return nil, replay.Skipf("Write: the recorded answer is in none of the forms of Claude Code's Write that are rendered")
		}
		return RenderWriteCreated(shown), nil
	}
	return RenderWriteUpdated(shown, c.Content, form, numbering)
}

// FileStateNote ends Claude Code's answer to a Write or an Edit
// from 2.1.32x on: "File created successfully at: PATH" and "The file
// PATH has been updated successfully." are followed by it.
const FileStateNote = " (file state is current in your context — no need to Read it back)"

// CutFileStateNote returns recorded without FileStateNote, and
// the note when recorded ends with it (else nil): the rest is in one of
// the forms of the versions before, which the renderers produce, and the
// note is appended to what they render.
func CutFileStateNote(recorded []byte) (rest, note []byte) {
	if r, ok := bytes.CutSuffix(recorded, []byte(FileStateNote)); ok {
		return r, []byte(FileStateNote)
	}
	return recorded, nil
}

// MaxRenderedLines is how many lines of a written file Claude Code
// shows in the snippet form of a Write's answer.
const MaxRenderedLines = 16000

// CreatedPrefix starts Write's answer for a file it created.
const CreatedPrefix = "File created successfully at: "

// RenderWriteCreated renders Write's answer for a file it created:
// "File created successfully at: PATH".
func RenderWriteCreated(path string) []byte {
	return []byte(CreatedPrefix + path)
}

// RenderWriteUpdated renders Write's answer for a file that existed,
// holding content afterwards, in form (the snippet form shows the whole
// file numbered from line 1, with numbering n).
func RenderWriteUpdated(path, content string, form EditForm, n Numbering) ([]byte, error) {
	switch form {
	case EditSnippet:
		lines := splitJS(content)
		if len(lines) > MaxRenderedLines {
			return nil, replay.Skipf("the file has more than %d lines, which Claude Code cuts with a notice that is not rendered", MaxRenderedLines)
		}
		return []byte("The file " + path + snippetHead + numbered(lines, 1, n)), nil
	case EditShort:
		return []byte("The file " + path + " has been updated successfully."), nil
	}
	return nil, replay.Skipf("the recorded answer is in none of the forms of Claude Code's Write that are rendered")
}

// SnippetContext is how many lines Claude Code shows before and
// after an edit in the snippet form.
const SnippetContext = 4

// RenderEdit renders Edit's answer in form: before is the file before
// the edit, after the file after it, old and new the replaced and
// replacing strings, all whether replace_all was set. The snippet shows
// the lines of after from SnippetContext lines before the line
// where old first occurred in before to SnippetContext lines after
// new's last line, numbered with n.
func RenderEdit(path, before, after, old, new string, all bool, form EditForm, n Numbering) ([]byte, error) {
	switch {
	case form == EditShort && !all:
		return []byte("The file " + path + " has been updated successfully."), nil
	case form == EditAll && all:
		return []byte("The file " + path + " has been updated. All occurrences of '" + old + "' were successfully replaced with '" + new + "'."), nil
	case form != EditSnippet:
		return nil, replay.Skipf("the recorded answer is in none of the forms of Claude Code's Edit that are rendered")
	case old == "":
		return nil, replay.Skipf("Edit with an empty old_string: the snippet of a created file is not rendered")
	}
	i := strings.Index(before, old)
	if i < 0 {
		return nil, replay.Skipf("old_string is not in the file before the edit")
	}
	line := len(splitJS(before[:i])) - 1
	lines := splitJS(after)
	from := max(0, line-SnippetContext)
	to := min(len(lines), line+SnippetContext+len(splitJS(new)))
	if from > to {
		from = to
	}
	return []byte("The file " + path + snippetHead + numbered(lines[from:to], from+1, n)), nil
}

// MultiEditShown is how much of each string Claude Code's
// MultiEdit answer shows: its first 50 UTF-16 code units (JavaScript's
// s.substring(0, 50)), followed by "..." when there is more.
const MultiEditShown = 50

// UserModified is what Claude Code adds to an edit's answer when the
// user changed the edit before accepting it.
const UserModified = "The user modified your proposed changes before accepting them."

// multiEditForm is compiled at first use, as editForms is.
var multiEditForm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^Applied [0-9]+ edits? to .*:\n1\. Replaced "`)
})

// RenderMultiEdit renders MultiEdit's answer (Claude Code 1.0; 2.0
// has no MultiEdit), whatever the files held: "Applied N edits to PATH:"
// ("1 edit"), then for the i-th replacement `i. Replaced "OLD" with
// "NEW"`, each string cut as MultiEditShown says, the lines joined
// with "\n". recorded, the answer the session got, must be in that form:
// another one, or an answer that says the user modified the edit, is not
// rendered.
func RenderMultiEdit(path string, olds, news []string, recorded []byte) ([]byte, error) {
	switch {
	case strings.Contains(string(recorded), UserModified):
		return nil, replay.Skipf("the user modified the edits before accepting them")
	case !multiEditForm().Match(recorded):
		return nil, replay.Skipf("the recorded answer is in none of the forms of Claude Code's MultiEdit that are rendered")
	}
	var b strings.Builder
	b.WriteString("Applied " + strconv.Itoa(len(olds)) + " edit")
	if len(olds) != 1 {
		b.WriteString("s")
	}
	b.WriteString(" to " + path + ":")
	for i := range olds {
		o, err := jsPrefix(olds[i], MultiEditShown)
		if err != nil {
			return nil, err
		}
		n, err := jsPrefix(news[i], MultiEditShown)
		if err != nil {
			return nil, err
		}
		b.WriteString("\n" + strconv.Itoa(i+1) + `. Replaced "` + o + `" with "` + n + `"`)
	}
	return []byte(b.String()), nil
}

// jsPrefix returns s as JavaScript shows s.substring(0, n) followed by
// "..." when s is longer than n UTF-16 code units. A cut through a
// surrogate pair leaves half a character, which no UTF-8 text can hold.
func jsPrefix(s string, n int) (string, error) {
	units := utf16.Encode([]rune(s))
	if len(units) <= n {
		return s, nil
	}
	if utf16.IsSurrogate(rune(units[n-1])) && units[n-1] < 0xdc00 {
		return "", replay.Skipf("a string is cut inside a character outside the Basic Multilingual Plane")
	}
	return string(utf16.Decode(units[:n])) + "...", nil
}

// splitJS splits s as JavaScript's s.split(/\r?\n/) does.
func splitJS(s string) []string {
	return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}

// numbered joins lines with "\n", each numbered in form n from first on.
func numbered(lines []string, first int, n Numbering) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		n.Number(&b, first+i, l)
	}
	return b.String()
}

// Numbering is a form of the line numbers Claude Code puts before
// each line of a Read result or an Edit snippet. Which one depends on the
// Claude Code version, never on the file: a caller picks the one the
// recording shows (NumberingOf).
type Numbering int

// Line number forms.
const (
	// Arrow is "%6d→line" (Claude Code 1.0 to 2.1.11x).
	Arrow Numbering = iota
	// Tab is "N\tline", unpadded (Claude Code 2.1.12x).
	Tab
	// PaddedTab is "%6d\tline" (the first versions).
	PaddedTab
)

// NumberingOf returns the form of the numbered line text starts
// with: spaces, digits, then "→" or a tab. Anything else is Arrow.
func NumberingOf(text []byte) Numbering {
	i := 0
	for i < len(text) && text[i] == ' ' {
		i++
	}
	pad := i > 0
	j := i
	for j < len(text) && text[j] >= '0' && text[j] <= '9' {
		j++
	}
	if j == i || j >= len(text) || text[j] != '\t' {
		return Arrow
	}
	if pad {
		return PaddedTab
	}
	return Tab
}

// Number writes line number n in form f, then line, to b.
func (f Numbering) Number(b *strings.Builder, n int, line string) {
	num := strconv.Itoa(n)
	if f != Tab {
		b.WriteString(strings.Repeat(" ", max(0, 6-len(num))))
	}
	b.WriteString(num)
	if f == Arrow {
		b.WriteString("→")
	} else {
		b.WriteByte('\t')
	}
	b.WriteString(line)
}

// spelled returns the path p as rec, the recorded answer, spells it:
// Windows takes either separator, and the one the agent wrote (as the
// model gave the path) is known only from the recording. p is returned
// as it is unless rec names the same path with the other separator.
func spelled(p string, rec []byte) string {
	if !strings.Contains(p, `\`) && !bytes.Contains(rec, []byte(`\`)) {
		return p
	}
	for _, c := range []string{p, strings.ReplaceAll(p, "/", `\`), strings.ReplaceAll(p, `\`, "/")} {
		if bytes.Contains(rec, []byte(c)) {
			return c
		}
	}
	return p
}
