package edit

import (
	"errors"
	"fmt"
	"slices"
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
// then surrounding white space; the replacements are then made from the
// last to the first in the order of where they go. The result ends in a
// newline. A chunk that does not apply is a *Conflict, and so is a patch
// whose matching would cost more than searchBudget allows (a chunk
// sought in vain, again and again, through a large file): the time
// stays linear in the sizes of the file and the patch.
func ApplyChunks(original string, chunks []PatchChunk) (string, error) {
	lines := strings.Split(original, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	patchLines := 0
	for _, c := range chunks {
		patchLines += 1 + len(c.Old)
	}
	budget := searchBudget(len(lines), patchLines)
	sk := &seeker{lines: lines, budget: budget, total: budget}
	var repls []repl
	pos := 0
	for i, c := range chunks {
		if c.Context != "" {
			at, err := sk.seek([]string{c.Context}, pos, false)
			if err != nil {
				return "", &Conflict{Reason: fmt.Sprintf("chunk %d: %v", i, err)}
			}
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
		at, err := sk.seek(old, pos, c.EOF)
		if err == nil && at < 0 && old[len(old)-1] == "" {
			old = old[:len(old)-1]
			if len(nw) > 0 && nw[len(nw)-1] == "" {
				nw = nw[:len(nw)-1]
			}
			at, err = sk.seek(old, pos, c.EOF)
		}
		if err != nil {
			return "", &Conflict{Reason: fmt.Sprintf("chunk %d: %v", i, err)}
		}
		if at < 0 {
			return "", &Conflict{Reason: fmt.Sprintf("chunk %d: the lines it replaces are not in the file", i)}
		}
		repls = append(repls, repl{at, len(old), nw})
		pos = at + len(old)
	}
	lines = replace(lines, repls)
	if len(lines) == 0 || lines[len(lines)-1] != "" {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n"), nil
}

// repl replaces the n lines at at with new.
type repl struct {
	at, n int
	new   []string
}

// replace makes the replacements rs in lines as apply_patch does: sorted
// by where they go (stably), then each from the last to the first, so
// that one removes lines a later one put there when they overlap (a pure
// addition at the end, inside a replacement of the last lines). The
// result is built from the end as a stack of slices, so the cost is
// linear, not one copy of the file's tail per replacement.
func replace(lines []string, rs []repl) []string {
	if len(rs) == 0 {
		return lines
	}
	slices.SortStableFunc(rs, func(a, b repl) int { return a.at - b.at })
	var segs [][]string // the lines after the boundary, the first on top
	boundary := len(lines)
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		segs = append(segs, lines[r.at:boundary])
		boundary = r.at
		for n := r.n; n > 0 && len(segs) > 0; {
			top := segs[len(segs)-1]
			if len(top) <= n {
				n -= len(top)
				segs = segs[:len(segs)-1]
				continue
			}
			segs[len(segs)-1] = top[n:]
			n = 0
		}
		segs = append(segs, r.new)
	}
	segs = append(segs, lines[:boundary])
	total := 0
	for _, sg := range segs {
		total += len(sg)
	}
	out := make([]string, 0, total+1)
	for i := len(segs) - 1; i >= 0; i-- {
		out = append(out, segs[i]...)
	}
	return out
}

// searchBudget is how many line comparisons ApplyChunks may make for a
// file of n lines and a patch of p: a few passes over both, and room for
// a patch of many chunks that each need the white-space folding passes
// (which first search the rest of the file in vain).
func searchBudget(n, p int) int { return 8*(n+p) + 1<<22 }

// seeker finds patterns in lines, within a budget of line comparisons.
type seeker struct {
	lines         []string
	budget, total int // comparisons left, and allowed in all
}

// errSearchBudget is a search that ran out of its budget.
type errSearchBudget int

func (e errSearchBudget) Error() string {
	return fmt.Sprintf("not matched within %d line comparisons: taken as not applying (the file is not the one the patch was made for)", int(e))
}

// seek finds pattern in the lines at or after start (at the end when eof
// is set): exactly, then ignoring trailing white space, then ignoring
// white space at both ends. It returns -1 when not found; the Unicode
// punctuation folding apply_patch tries last is not reproduced. Each pass
// is a Knuth-Morris-Pratt search over lines, linear in what it reads.
func (s *seeker) seek(pattern []string, start int, eof bool) (int, error) {
	lines := s.lines
	m := len(pattern)
	if m > len(lines) {
		return -1, nil
	}
	from := start
	if eof {
		from = len(lines) - m
	}
	if from < 0 || from+m > len(lines) {
		return -1, nil
	}
	if m == 0 {
		return from, nil
	}
	pat := make([]string, m)
	fail := make([]int, m)
	for _, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t\r\n\v\f") },
		strings.TrimSpace,
	} {
		for j, p := range pattern {
			pat[j] = norm(p)
		}
		// fail[j]: the length of the longest proper prefix of pat[:j+1]
		// that is also its suffix.
		k := 0
		for j := 1; j < m; j++ {
			for k > 0 && pat[j] != pat[k] {
				k = fail[k-1]
			}
			if pat[j] == pat[k] {
				k++
			}
			fail[j] = k
		}
		k = 0
		for i := from; i < len(lines); i++ {
			l := norm(lines[i])
			for k > 0 && l != pat[k] {
				k = fail[k-1]
				s.budget--
			}
			if l == pat[k] {
				k++
			}
			if k == m {
				return i - m + 1, nil
			}
			if s.budget--; s.budget < 0 {
				return -1, errSearchBudget(s.total)
			}
		}
	}
	return -1, nil
}
