package blame

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// Range is a run of lines of a file with one attribution: ctx-blame's
// output line. Line numbers are 1-based and inclusive.
type Range struct {
	File       string `json:"file"`
	Start      int    `json:"start_line"`
	End        int    `json:"end_line"`
	By         string `json:"by"`
	Pack       string `json:"pack,omitzero"`
	URI        string `json:"uri,omitzero"`
	Step       *int   `json:"step,omitzero"`
	Tool       string `json:"tool,omitzero"`
	Session    string `json:"session,omitzero"`
	Model      string `json:"model,omitzero"`
	Agent      string `json:"agent,omitzero"`
	Prompt     *int   `json:"prompt,omitzero"`
	Timestamp  string `json:"timestamp,omitzero"`
	Moved      bool   `json:"moved,omitzero"`
	Reindented bool   `json:"reindented,omitzero"`
}

// Ranges groups the attributed lines of file into runs of equal
// attribution.
func Ranges(file string, lines []Line) []Range {
	var out []Range
	for i, l := range lines {
		if n := len(out); n > 0 && same(out[n-1], l) {
			out[n-1].End = i + 1
			continue
		}
		r := Range{File: file, Start: i + 1, End: i + 1, By: l.By, Moved: l.Moved, Reindented: l.Reindented}
		if o := l.Origin; o != nil {
			step := o.Step
			r.Pack, r.URI, r.Step, r.Tool = o.Pack, "ctx://"+strings.TrimPrefix(o.Pack, "sha256:"), &step, o.Tool
			r.Session, r.Model, r.Agent, r.Prompt, r.Timestamp = o.Session, o.Model, o.Agent, o.Prompt, o.Timestamp
		}
		out = append(out, r)
	}
	return out
}

func same(r Range, l Line) bool {
	if r.By != l.By || r.Moved != l.Moved || r.Reindented != l.Reindented {
		return false
	}
	if l.Origin == nil {
		return r.Pack == ""
	}
	return r.Pack == l.Origin.Pack && r.Step != nil && *r.Step == l.Origin.Step
}

// PackLines counts, per pack, the lines numbered lines (1-based: the
// lines a commit or the index adds) of content, the text of file, that
// the pack's recorded edits wrote as they are, as Blame attributes them:
// a mixed line is a person's change, and does not count. past is
// what is known of the lines' past, as for Blame.
func (ix *Index) PackLines(file string, content []byte, lines []int, past *Past, names ...string) (map[string]int, error) {
	counts := map[string]int{}
	attr, err := ix.Blame(file, content, past, names...)
	if err != nil {
		return nil, err
	}
	for _, n := range lines {
		if n >= 1 && n <= len(attr) && attr[n-1].By == ByAgent {
			counts[attr[n-1].Origin.Pack]++
		}
	}
	return counts, nil
}

// SortedPacks returns the packs of counts, most lines first.
func SortedPacks(counts map[string]int) []string {
	ps := slices.Collect(maps.Keys(counts))
	slices.SortFunc(ps, func(a, b string) int { return cmp.Or(-cmp.Compare(counts[a], counts[b]), strings.Compare(a, b)) })
	return ps
}
