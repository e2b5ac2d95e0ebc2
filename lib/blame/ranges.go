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

// PackLines counts, per pack, the lines of lines (lines a commit or the
// index adds to file) that the pack's recorded edits wrote: by the file's
// recorded history where it has one, else by their text.
func (ix *Index) PackLines(file string, lines []string) map[string]int {
	counts := map[string]int{}
	var last version
	if p, ok := ix.Lookup(file); ok {
		last = ix.last[p]
	}
	written := map[string]*Origin{}
	for _, l := range last {
		if l.origin != nil {
			written[strings.TrimSpace(l.text)] = l.origin
		}
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if o := written[t]; o != nil {
			counts[o.Pack]++
		} else if w, ok := ix.pool[t]; ok && len(t) >= minMovedLen {
			counts[w.origin.Pack]++
		}
	}
	return counts
}

// SortedPacks returns the packs of counts, most lines first.
func SortedPacks(counts map[string]int) []string {
	ps := slices.Collect(maps.Keys(counts))
	slices.SortFunc(ps, func(a, b string) int { return cmp.Or(-cmp.Compare(counts[a], counts[b]), strings.Compare(a, b)) })
	return ps
}
