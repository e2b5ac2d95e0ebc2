package edit

import (
	"errors"
	"fmt"
	"strings"
)

// Codex edits files with apply_patch, whose input is a patch in its own
// format (openai/codex codex-rs/apply-patch):
//
//	*** Begin Patch
//	*** Add File: PATH        then "+line" lines
//	*** Delete File: PATH
//	*** Update File: PATH     then an optional "*** Move to: PATH" and
//	                          chunks: "@@" or "@@ CONTEXT", then " ctx",
//	                          "-old", "+new" lines, optionally
//	                          "*** End of File"
//	*** End Patch
//
// ParsePatch reads it and PatchOp.Apply applies one file's part of it to
// a known original the way apply_patch does.

// Kinds of PatchOp.
const (
	PatchAdd    = "add"
	PatchDelete = "delete"
	PatchUpdate = "update"
)

// PatchOp is one file's part of a patch: Kind is PatchAdd (Add holds the
// new file's content), PatchDelete, or PatchUpdate (Chunks, and MoveTo
// when the file is also renamed). Paths are as the patch writes them.
type PatchOp struct {
	Kind   string
	Path   string
	MoveTo string
	Add    string
	Chunks []PatchChunk
}

// PatchChunk is one "@@" section of an update: Context is the "@@ CONTEXT"
// line ("" if none), Old the lines it replaces (context lines included),
// New their replacement, EOF set when it must match at the end of the file.
type PatchChunk struct {
	Context  string
	Old, New []string
	EOF      bool
}

// ParsePatch parses patch text; a heredoc wrapper (<<'EOF' … EOF) is
// accepted, as apply_patch accepts it.
func ParsePatch(text string) ([]PatchOp, error) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	if len(lines) >= 4 && (lines[0] == "<<EOF" || lines[0] == "<<'EOF'" || lines[0] == `<<"EOF"`) && strings.HasSuffix(lines[len(lines)-1], "EOF") {
		lines = lines[1 : len(lines)-1]
	}
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != "*** Begin Patch" || strings.TrimSpace(lines[len(lines)-1]) != "*** End Patch" {
		return nil, errors.New("not a patch between *** Begin Patch and *** End Patch")
	}
	lines = lines[1 : len(lines)-1]
	var ops []PatchOp
	for len(lines) > 0 {
		head := strings.TrimSpace(lines[0])
		lines = lines[1:]
		switch {
		case strings.HasPrefix(head, "*** Add File: "):
			op := PatchOp{Kind: PatchAdd, Path: strings.TrimPrefix(head, "*** Add File: ")}
			var b strings.Builder
			for len(lines) > 0 && strings.HasPrefix(lines[0], "+") {
				b.WriteString(lines[0][1:])
				b.WriteByte('\n')
				lines = lines[1:]
			}
			op.Add = b.String()
			ops = append(ops, op)
		case strings.HasPrefix(head, "*** Delete File: "):
			ops = append(ops, PatchOp{Kind: PatchDelete, Path: strings.TrimPrefix(head, "*** Delete File: ")})
		case strings.HasPrefix(head, "*** Update File: "):
			op := PatchOp{Kind: PatchUpdate, Path: strings.TrimPrefix(head, "*** Update File: ")}
			if len(lines) > 0 && strings.HasPrefix(lines[0], "*** Move to: ") {
				op.MoveTo = strings.TrimPrefix(lines[0], "*** Move to: ")
				lines = lines[1:]
			}
			for len(lines) > 0 {
				if strings.TrimSpace(lines[0]) == "" {
					lines = lines[1:]
					continue
				}
				if strings.HasPrefix(lines[0], "*") {
					break
				}
				var c PatchChunk
				switch {
				case lines[0] == "@@":
					lines = lines[1:]
				case strings.HasPrefix(lines[0], "@@ "):
					c.Context = lines[0][3:]
					lines = lines[1:]
				case len(op.Chunks) > 0:
					return nil, fmt.Errorf("update of %s: a chunk does not start with @@: %q", op.Path, lines[0])
				}
				n := 0
			chunk:
				for len(lines) > 0 {
					l := lines[0]
					switch {
					case l == "*** End of File":
						c.EOF = true
						lines = lines[1:]
						break chunk
					case l == "":
						c.Old, c.New = append(c.Old, ""), append(c.New, "")
					case l[0] == ' ':
						c.Old, c.New = append(c.Old, l[1:]), append(c.New, l[1:])
					case l[0] == '+':
						c.New = append(c.New, l[1:])
					case l[0] == '-':
						c.Old = append(c.Old, l[1:])
					default:
						if n == 0 {
							return nil, fmt.Errorf("update of %s: unexpected line %q", op.Path, l)
						}
						break chunk
					}
					n++
					lines = lines[1:]
				}
				if n == 0 {
					return nil, fmt.Errorf("update of %s: an empty chunk", op.Path)
				}
				op.Chunks = append(op.Chunks, c)
			}
			if len(op.Chunks) == 0 {
				return nil, fmt.Errorf("update of %s has no chunks", op.Path)
			}
			ops = append(ops, op)
		default:
			return nil, fmt.Errorf("%q is not a hunk header", head)
		}
	}
	return ops, nil
}

// ApplyChunks applies an update's chunks to original as apply_patch does:
// each chunk's old lines are sought from where the last one ended (after
// its context line, when it has one), exactly, then ignoring trailing,
// then surrounding white space; the result ends in a newline. A chunk
// that does not apply is a *Conflict.
func ApplyChunks(original string, chunks []PatchChunk) (string, error) {
	lines := strings.Split(original, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	type repl struct {
		at, n int
		new   []string
	}
	var repls []repl
	pos := 0
	for i, c := range chunks {
		if c.Context != "" {
			at := seekLines(lines, []string{c.Context}, pos, false)
			if at < 0 {
				return "", &Conflict{Reason: fmt.Sprintf("chunk %d: context %q not found", i, c.Context)}
			}
			pos = at + 1
		}
		if len(c.Old) == 0 {
			// A pure addition goes at the end, before a last empty line
			// (a file ending in a blank line).
			at := len(lines)
			if at > 0 && lines[at-1] == "" {
				at--
			}
			repls = append(repls, repl{at, 0, c.New})
			continue
		}
		old, nw := c.Old, c.New
		at := seekLines(lines, old, pos, c.EOF)
		if at < 0 && old[len(old)-1] == "" {
			old = old[:len(old)-1]
			if len(nw) > 0 && nw[len(nw)-1] == "" {
				nw = nw[:len(nw)-1]
			}
			at = seekLines(lines, old, pos, c.EOF)
		}
		if at < 0 {
			return "", &Conflict{Reason: fmt.Sprintf("chunk %d: the lines it replaces are not in the file", i)}
		}
		repls = append(repls, repl{at, len(old), nw})
		pos = at + len(old)
	}
	for i := len(repls) - 1; i >= 0; i-- {
		r := repls[i]
		tail := append(append([]string{}, r.new...), lines[min(r.at+r.n, len(lines)):]...)
		lines = append(lines[:r.at], tail...)
	}
	if len(lines) == 0 || lines[len(lines)-1] != "" {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n"), nil
}

// seekLines finds pattern in lines at or after start (at the end when eof
// is set): exactly, then ignoring trailing white space, then ignoring
// white space at both ends. It returns -1 when not found; the Unicode
// punctuation folding apply_patch tries last is not reproduced.
func seekLines(lines, pattern []string, start int, eof bool) int {
	if len(pattern) > len(lines) {
		return -1
	}
	from := start
	if eof {
		from = len(lines) - len(pattern)
	}
	for _, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t\r\n\v\f") },
		strings.TrimSpace,
	} {
		for i := from; i+len(pattern) <= len(lines); i++ {
			ok := true
			for j, p := range pattern {
				if norm(lines[i+j]) != norm(p) {
					ok = false
					break
				}
			}
			if ok {
				return i
			}
		}
	}
	return -1
}
