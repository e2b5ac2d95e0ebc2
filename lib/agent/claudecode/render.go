package claudecode

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctx-tools/ctx/lib/replay"
)

// Claude Code's results of Read, Glob, Grep and LS, reproduced byte for
// byte from what the tool found (a file's bytes, a list of names, matching
// lines), as Claude Code gives them to its model. Where its output depends
// on something a renderer cannot know or does not reproduce, the renderer
// returns a *render.Unsupported error (replay.Skipf) saying so, rather
// than a guess.

// Claude Code's limits, as its tools apply them (Claude Code 2.1).
const (
	// ReadLines is how many lines Read returns without a limit.
	ReadLines = 2000
	// ReadLineLength is the longest line Read returns unshortened.
	ReadLineLength = 2000
	// ReadBytes is the largest file Read returns without a limit.
	ReadBytes = 256 * 1024
	// GlobFiles is how many paths Glob lists.
	GlobFiles = 100
	// GrepHeadLimit is Grep's head_limit when none is given.
	GrepHeadLimit = 250
	// GrepColumns is the longest line Grep prints (rg --max-columns).
	GrepColumns = 500
	// LSEntries is how many entries LS lists.
	LSEntries = 1000
)

// ReadReminders are the notices Claude Code appends to a Read of a
// non-empty text file. Which one (or none) depends on the Claude Code
// version and the model, neither of which changes what was read: a caller
// picks the one the recorded result ends with.
var ReadReminders = []string{
	"\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware. You CAN and SHOULD provide analysis of malware, what it is doing. But you MUST refuse to improve or augment the code. You can still analyze existing code, write reports, or answer questions about the code behavior.\n</system-reminder>\n",
	"\n\n<system-reminder>\nWhenever you read a file, you should consider whether it looks malicious. If it does, you MUST refuse to improve or augment the code. You can still analyze existing code, write reports, or answer high-level questions about the code behavior.\n</system-reminder>\n",
}

// ReadReminder returns the one of ReadReminders that recorded
// ends with, or "".
func ReadReminder(recorded []byte) string {
	for _, r := range ReadReminders {
		if strings.HasSuffix(string(recorded), r) {
			return r
		}
	}
	return ""
}

// ReadRequest is a Read call: Offset is the first line (0 and 1 both mean
// the first), Limit the number of lines (0: up to ReadLines),
// Reminder the notice to append (see ReadReminders) and Numbering
// the form of the line numbers. Base, when above 1, is the number of
// content's first line: content is then those lines of a longer file
// (read in part), and Offset counts in the file.
type ReadRequest struct {
	Offset, Limit int
	Reminder      string
	Numbering     Numbering
	Base          int
}

// RenderRead renders Read's result for a text file holding content:
// the selected lines numbered (r.Numbering: "%6d→line" by default)
// joined by "\n" (line endings "\r\n" read as "\n"; the empty string
// after a final "\n" counts as a line), then the reminder. An empty file,
// or an offset past the end, gives Claude Code's warning instead.
func RenderRead(content []byte, r ReadRequest) ([]byte, error) {
	if !utf8.Valid(content) {
		return nil, replay.Skipf("the file is not valid UTF-8; Claude Code's replacement of invalid bytes is not reproduced")
	}
	if r.Limit == 0 && len(content) > ReadBytes {
		return nil, replay.Skipf("the file is larger than %d bytes, which Claude Code refuses to read without a limit", ReadBytes)
	}
	text := strings.ReplaceAll(string(content), "\r\n", "\n")
	var lines []string
	if text != "" {
		lines = strings.Split(text, "\n")
	}
	base := max(r.Base, 1)
	start := max(r.Offset, 1) - base + 1
	if base > 1 && (start < 1 || start > len(lines)) {
		return nil, replay.Skipf("lines from %d are not known", r.Offset)
	}
	if start > len(lines) {
		if len(lines) == 0 {
			return []byte("<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"), nil
		}
		return fmt.Appendf(nil, "<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>", r.Offset, len(lines)), nil
	}
	end := len(lines)
	if r.Limit > 0 {
		end = min(end, start-1+r.Limit)
	} else if end-start+1 > ReadLines {
		return nil, replay.Skipf("the file has more than %d lines from the offset, and Claude Code versions differ in how they cut it", ReadLines)
	}
	var b strings.Builder
	for n := start; n <= end; n++ {
		line := lines[n-1]
		if utf16Len(line) > ReadLineLength {
			return nil, replay.Skipf("line %d is longer than %d characters, and Claude Code versions differ in how they shorten it", n+base-1, ReadLineLength)
		}
		if n > start {
			b.WriteByte('\n')
		}
		r.Numbering.Number(&b, n+base-1, line)
	}
	b.WriteString(r.Reminder)
	return []byte(b.String()), nil
}

// utf16Len is the length of s as JavaScript counts it.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

const claudeTruncated = "(Results are truncated. Consider using a more specific path or pattern.)"

// RenderGlob renders Glob's result: the paths one per line (in the
// order Glob found them, oldest modification first), then a note when
// there were more than GlobFiles; "No files found" for none.
func RenderGlob(paths []string, truncated bool) []byte {
	if len(paths) == 0 {
		return []byte("No files found")
	}
	s := strings.Join(paths, "\n")
	if truncated {
		s += "\n" + claudeTruncated
	}
	return []byte(s)
}

// GrepPage is the pagination Grep applied: Limit is set when the
// results were cut at head_limit, Offset when entries were skipped.
type GrepPage struct {
	Limit, Offset int
}

func (p GrepPage) String() string {
	var parts []string
	if p.Limit > 0 {
		parts = append(parts, fmt.Sprintf("limit: %d", p.Limit))
	}
	if p.Offset > 0 {
		parts = append(parts, fmt.Sprintf("offset: %d", p.Offset))
	}
	return strings.Join(parts, ", ")
}

// RenderGrepFiles renders Grep's files_with_matches result: "Found N
// file(s)" and the paths one per line, or "No files found".
func RenderGrepFiles(paths []string, page GrepPage) []byte {
	if len(paths) == 0 {
		return []byte("No files found")
	}
	noun := "files"
	if len(paths) == 1 {
		noun = "file"
	}
	s := fmt.Sprintf("Found %d %s", len(paths), noun)
	if p := page.String(); p != "" {
		s += " " + p
	}
	return []byte(s + "\n" + strings.Join(paths, "\n"))
}

// RenderGrepContent renders Grep's content result: ripgrep's output
// lines joined by "\n", or "No matches found".
func RenderGrepContent(lines []string, page GrepPage) []byte {
	s := strings.Join(lines, "\n")
	if s == "" {
		s = "No matches found"
	}
	if p := page.String(); p != "" {
		s += "\n\n[Showing results with pagination = " + p + "]"
	}
	return []byte(s)
}

// RenderGrepCount renders Grep's count result: ripgrep's "PATH:N"
// lines, then the totals Claude Code adds up from them.
func RenderGrepCount(lines []string, page GrepPage) []byte {
	s := strings.Join(lines, "\n")
	if s == "" {
		s = "No matches found"
	}
	matches, files := 0, 0
	for _, l := range lines {
		i := strings.LastIndexByte(l, ':')
		if i <= 0 {
			continue
		}
		if n, ok := leadingInt(l[i+1:]); ok {
			matches += n
			files++
		}
	}
	occ := "occurrences"
	if matches == 1 {
		occ = "occurrence"
	}
	fnoun := "files"
	if files == 1 {
		fnoun = "file"
	}
	s += fmt.Sprintf("\n\nFound %d total %s across %d %s.", matches, occ, files, fnoun)
	if p := page.String(); p != "" {
		s += " with pagination = " + p
	}
	return []byte(s)
}

// leadingInt parses the digits s starts with, as JavaScript's parseInt
// does for the counts ripgrep prints.
func leadingInt(s string) (int, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.Atoi(s[:i])
	return n, err == nil
}

const claudeLSNote = "\nNOTE: do any of the files above seem malicious? If so, you MUST refuse to continue work."

// RenderLS renders LS's tree. root is the working directory as the
// result names it ("/abs/dir/"); paths are the entries relative to it,
// directories ending in "/". They are sorted and printed as a tree, two spaces of
// indent per level, each line "- name" ("- name/" for a directory).
func RenderLS(root string, paths []string) []byte {
	type node struct {
		name     string
		dir      bool
		children []*node
		index    map[string]*node
	}
	top := &node{index: map[string]*node{}}
	sorted := append([]string(nil), paths...)
	sortJS(sorted)
	for _, p := range sorted {
		dir := strings.HasSuffix(p, "/")
		parts := strings.Split(strings.TrimSuffix(p, "/"), "/")
		cur := top
		for i, part := range parts {
			n, ok := cur.index[part]
			if !ok {
				n = &node{name: part, index: map[string]*node{}}
				cur.index[part] = n
				cur.children = append(cur.children, n)
			}
			if i < len(parts)-1 || dir {
				n.dir = true
			}
			cur = n
		}
	}
	var b strings.Builder
	b.WriteString("- " + root + "\n")
	var print func(n *node, indent string)
	print = func(n *node, indent string) {
		for _, c := range n.children {
			b.WriteString(indent + "- " + c.name)
			if c.dir {
				b.WriteByte('/')
			}
			b.WriteByte('\n')
			print(c, indent+"  ")
		}
	}
	print(top, "  ")
	b.WriteString(claudeLSNote)
	return []byte(b.String())
}

// sortJS sorts as JavaScript's default sort does: by UTF-16 code units,
// which differs from Go's byte order only between supplementary
// characters and U+E000–U+FFFF.
func sortJS(s []string) {
	less := func(a, b string) int {
		ua, ub := []rune(a), []rune(b)
		for i := 0; i < len(ua) && i < len(ub); i++ {
			ka, kb := jsKey(ua[i]), jsKey(ub[i])
			if ka == kb {
				ka, kb = int(ua[i]), int(ub[i])
			}
			if ka != kb {
				return ka - kb
			}
		}
		return len(ua) - len(ub)
	}
	slices.SortFunc(s, less)
}

// jsKey orders a rune as its first UTF-16 code unit does.
func jsKey(r rune) int {
	if r >= 0x10000 {
		return 0xD800 + int((r-0x10000)>>10)
	}
	return int(r)
}
