package htmlview

import (
	"fmt"
	"html/template"

	"github.com/ctx-tools/ctx/lib/drift"
	"github.com/ctx-tools/ctx/lib/replay"
)

// changeLink names one file a step changed, linking to its diff.
type changeLink struct {
	ID     string
	Index  int
	Change string
	Name   Text
}

// fileChange is what a step's edit did to one file: its diff, when both
// sides are text that was kept.
type fileChange struct {
	ID, Change string
	Name       Text
	Diff       template.HTML
	Truncated  bool
	Note       string
}

// setChanges shows, on each step, what its edit did to the files (by step
// index), and lists them all at the top of the page.
func (p *packPage) setChanges(changes map[int][]replay.FileChange) {
	p.Changes = nil
	for i := range p.Steps {
		s := &p.Steps[i]
		s.Changes = nil
		for j, c := range changes[s.Index] {
			fc := changeView(s.Index, j, c)
			s.Changes = append(s.Changes, fc)
			p.Changes = append(p.Changes, changeLink{ID: fc.ID, Index: s.Index, Change: c.Change, Name: fc.Name})
		}
	}
}

// changeView shows change i of step index: a unified diff of the file
// before and after (from nothing when created, to nothing when deleted).
func changeView(index, i int, c replay.FileChange) fileChange {
	fc := fileChange{ID: fmt.Sprintf("change-%d-%d", index, i), Change: c.Change, Name: vis(c.Name)}
	before, after := c.BeforeText, c.AfterText
	switch {
	case c.Before != "" && before == nil || c.After != "" && after == nil:
		fc.Note = "too large to show here"
	case !drift.IsText(before) || !drift.IsText(after):
		fc.Note = "binary, not shown"
	default:
		d, cut := drift.Unified(c.Name, before, after, 0, 0, 0)
		fc.Diff, fc.Truncated = udiff(d), cut
		if d == "" {
			fc.Note = "same content"
		}
	}
	return fc
}
