package htmlview

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/ctx-tools/ctx/lib/blame"
)

// BlameFile is one blamed file for the Blame page: its path, its lines
// and their attribution.
type BlameFile struct {
	Path  string
	Text  []string
	Lines []blame.Line
}

// blamePage is the Blame page's body.
type blamePage struct {
	Files []blameFileView
	Packs []blamePackView
}

type blameFileView struct {
	ID                    string
	Path                  Text
	Agent, Mixed, Unknown int
	Rows                  template.HTML // the table rows, built in Go: a file has thousands
}

type blamePackView struct {
	Short, URI string
	Model      Text
	Session    Text
	Lines      int
	Class      string // the colour band of the pack's lines
}

// Blame renders ctx-blame's page: per file, a table of its lines, each
// with the pack and step that wrote it (a new range shows its origin, the
// lines after it only a band of the pack's colour), and the packs with
// the lines they wrote. Everything from a pack or a file is escaped.
func Blame(files []BlameFile) ([]byte, error) {
	p := &blamePage{}
	packs := map[string]int{} // index in p.Packs
	size := 0
	for fi, f := range files {
		v := blameFileView{ID: fmt.Sprintf("file-%d", fi), Path: vis(f.Path)}
		var rows strings.Builder
		prev := ""
		for i, l := range f.Lines {
			key, class := "", "by-unknown"
			switch l.By {
			case blame.ByAgent:
				v.Agent++
			case blame.ByMixed:
				v.Mixed++
			default:
				v.Unknown++
			}
			if o := l.Origin; o != nil {
				key = fmt.Sprintf("%s#%d/%s/%v/%v", o.Pack, o.Step, l.By, l.Moved, l.Reindented)
				pi, ok := packs[o.Pack]
				if !ok {
					pi = len(p.Packs)
					packs[o.Pack] = pi
					hex := strings.TrimPrefix(o.Pack, "sha256:")
					p.Packs = append(p.Packs, blamePackView{Short: hex[:12], URI: "ctx://" + hex, Model: vis(o.Model), Session: vis(o.Session), Class: fmt.Sprintf("band-%d", pi%8)})
				}
				p.Packs[pi].Lines++
				class = p.Packs[pi].Class
			}
			rows.WriteString(`<tr id="`)
			rows.WriteString(v.ID)
			fmt.Fprintf(&rows, `-L%d"><td class="ln"><a href="#%s-L%d">%d</a></td><td class="who %s">`, i+1, v.ID, i+1, i+1, class)
			if key != prev {
				writeOrigin(&rows, l)
			}
			prev = key
			rows.WriteString(`</td><td class="code"><code>`)
			writeVis(&rows, f.Text[i])
			rows.WriteString("</code></td></tr>\n")
		}
		v.Rows = template.HTML(rows.String())
		size += rows.Len()
		p.Files = append(p.Files, v)
	}
	title := "ctx-blame"
	if len(files) == 1 {
		title = "ctx-blame " + vis(files[0].Path).String()
	}
	return render(title, page{Blame: p}, size)
}

// writeOrigin writes the origin cell of the first line of a range.
func writeOrigin(b *strings.Builder, l blame.Line) {
	o := l.Origin
	if o == nil {
		b.WriteString(`<span class="meta">unknown</span>`)
		return
	}
	hex := strings.TrimPrefix(o.Pack, "sha256:")
	b.WriteString(`<code title="ctx://`)
	b.WriteString(hex)
	b.WriteString(`">`)
	b.WriteString(hex[:12])
	b.WriteString(`</code> <span class="idx">#`)
	fmt.Fprint(b, o.Step)
	b.WriteString(`</span> <span class="tool">`)
	writeVis(b, o.Tool)
	b.WriteString(`</span>`)
	for _, m := range []struct {
		on   bool
		text string
	}{{l.By == blame.ByMixed, "mixed"}, {l.Moved, "moved"}, {l.Reindented, "re-indented"}} {
		if m.on {
			b.WriteString(` <span class="badge">` + m.text + `</span>`)
		}
	}
	b.WriteString(`<br /><span class="meta">`)
	writeVis(b, o.Model)
	if o.Timestamp != "" {
		b.WriteString(" · ")
		writeVis(b, o.Timestamp)
	}
	if o.Prompt != nil {
		fmt.Fprintf(b, " · prompt %d", *o.Prompt)
	}
	b.WriteString(`</span>`)
}
