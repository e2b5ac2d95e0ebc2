package drift

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/visible"
)

// StyledWith renders r for reading, with styles for a colour terminal: a
// headline with the counts (bold), then the entries grouped by type in
// report order, each with its location, the step's tool, the two sides
// and any diff (hashes yellow, removed diff lines red, added ones green,
// hunk headers cyan, as git diff shows them); identical packs give "no
// differences". It says what a step only one pack has did: a
// model turn's first lines of text, read from objs, and a tool call's
// tool and parameters; objs may be nil (no text read).
func (r *Report) StyledWith(objs Objects) *visible.Text {
	b := new(visible.Text)
	if r.Identical {
		b.WriteString("no differences")
		if n := count(r.Ignored); n > 0 {
			fmt.Fprintf(b, " (%s ignored)", counts(r.Ignored))
		}
		b.WriteString("\n")
		r.volatileNote(b)
		return b
	}
	b.WriteString("a ")
	b.Paint(visible.Yellow, r.A.String())
	b.WriteString("\nb ")
	b.Paint(visible.Yellow, r.B.String())
	b.WriteString("\n")
	b.Paint(visible.Bold, fmt.Sprintf("%d %s: %s", len(r.Drift), plural(len(r.Drift), "difference"), counts(r.Summary)))
	if n := count(r.Ignored); n > 0 {
		fmt.Fprintf(b, " (%s ignored)", counts(r.Ignored))
	}
	b.WriteString("\n")
	r.volatileNote(b)
	for _, t := range types {
		if r.Summary[t] == 0 {
			continue
		}
		b.WriteString("\n")
		b.Paint(visible.Bold, fmt.Sprintf("%s (%d)", t, r.Summary[t]))
		b.WriteString("\n")
		for i := range r.Drift {
			if e := &r.Drift[i]; e.Type == t {
				e.human(b, objs)
			}
		}
	}
	return b
}

// volatileNote says how many metadata differences were left out as
// volatile, and how to see them.
func (r *Report) volatileNote(b *visible.Text) {
	if r.VolatileMetadata > 0 {
		what := "values that differ"
		if r.VolatileMetadata == 1 {
			what = "value that differs"
		}
		b.Paint(visible.Dim, fmt.Sprintf("%d metadata %s in every run (ids, times) left out; --all-metadata shows them", r.VolatileMetadata, what))
		b.WriteString("\n")
	}
}

func (e *Entry) human(b *visible.Text, objs Objects) {
	if e.loneStep(b, objs) {
		return
	}
	// Fields from the packs are escaped: none may end the line.
	b.WriteString("  " + visible.Escape(e.Path))
	if e.Tool != "" {
		fmt.Fprintf(b, " (%s)", visible.Escape(e.Tool))
	}
	if e.AStep != nil && e.BStep != nil && *e.AStep != *e.BStep {
		fmt.Fprintf(b, " [a: steps[%d]]", *e.AStep)
	}
	b.WriteString(": " + e.Change)
	switch e.Change {
	case Changed:
		switch {
		case e.A != nil && e.B != nil && e.Diff == "":
			fmt.Fprintf(b, " %s → %s", visible.Escape(string(e.A)), visible.Escape(string(e.B)))
		case e.ASize != nil && e.BSize != nil:
			fmt.Fprintf(b, " (%d → %d bytes)", *e.ASize, *e.BSize)
		}
	case Added:
		side(b, e.B, e.BSize)
	case Removed:
		side(b, e.A, e.ASize)
	}
	if e.Binary {
		b.WriteString(", binary")
	}
	b.WriteString("\n")
	if e.Note != "" {
		b.WriteString("    " + visible.Escape(e.Note) + "\n")
	}
	if e.Diff != "" {
		for _, l := range strings.SplitAfter(strings.TrimSuffix(e.Diff, "\n"), "\n") {
			l = strings.TrimSuffix(l, "\n")
			b.WriteString("    ")
			switch {
			case strings.HasPrefix(l, "@@"):
				b.Paint(visible.Cyan, l)
			case strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++"):
				b.Paint(visible.Bold, l)
			case strings.HasPrefix(l, "-"):
				b.Paint(visible.Red, l)
			case strings.HasPrefix(l, "+"):
				b.Paint(visible.Green, l)
			default:
				b.WriteString(l)
			}
			b.WriteString("\n")
		}
	}
}

// Bounds of what loneStep shows of a step.
const (
	previewLines = 3   // lines of a model turn's text
	previewRunes = 100 // runes of a line, or of a tool call's parameters
	previewBytes = 4 << 10
)

// loneStep renders a step only one pack has (added or removed) as what it
// did, and reports whether it did: "steps[2]: added Bash
// {"command":"ls -la"}", or "steps[3]: added llm_call" followed by the
// first lines of the model's text, rather than the step's JSON.
func (e *Entry) loneStep(b *visible.Text, objs Objects) bool {
	v, ref := e.B, e.BRef
	if e.Change == Removed {
		v, ref = e.A, e.ARef
	}
	if e.Type != ToolDrift || e.Change != Added && e.Change != Removed || v == nil {
		return false
	}
	var step struct {
		Type       string         `json:"type"`
		Tool       string         `json:"tool"`
		Parameters jsontext.Value `json:"parameters"`
	}
	if json.Unmarshal(v, &step) != nil || step.Type == "" {
		return false
	}
	b.WriteString("  " + visible.Escape(e.Path) + ": " + e.Change + " ")
	if step.Tool != "" {
		b.WriteString(visible.Escape(step.Tool))
		if len(step.Parameters) > 0 && string(step.Parameters) != "{}" {
			b.WriteString(" " + visible.Escape(visible.Clip(string(step.Parameters), previewRunes)))
		}
	} else {
		b.WriteString(visible.Escape(step.Type))
	}
	b.WriteString("\n")
	if step.Tool == "" && objs != nil && !ref.IsZero() {
		for _, l := range firstLines(objs, ref) {
			b.Paint(visible.Dim, "    "+l)
			b.WriteString("\n")
		}
	}
	return true
}

// firstLines returns the first lines of object d's text (visible.FirstLines
// of at most previewBytes of it); none when it cannot be read or is not
// text.
func firstLines(objs Objects, d digest.Digest) []string {
	r, err := objs.Open(d)
	if err != nil {
		return nil
	}
	defer r.Close()
	buf, err := io.ReadAll(io.LimitReader(r, previewBytes))
	if err != nil {
		return nil
	}
	if len(buf) == previewBytes {
		// A rune cut at the bound is not a reason to show nothing.
		for k := 0; k < utf8.UTFMax && !utf8.Valid(buf); k++ {
			buf = buf[:len(buf)-1]
		}
	}
	if !utf8.Valid(buf) {
		return nil
	}
	return visible.FirstLines(string(buf), previewLines, previewRunes)
}

func side(b *visible.Text, v []byte, size *int64) {
	switch {
	case v != nil:
		fmt.Fprintf(b, " %s", visible.Escape(string(v)))
	case size != nil:
		fmt.Fprintf(b, " (%d bytes)", *size)
	}
}

func count(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// counts renders "1 prompt_drift, 2 param_drift" in report order.
func counts(m map[string]int) string {
	var parts []string
	for _, t := range types {
		if m[t] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", m[t], t))
		}
	}
	return strings.Join(parts, ", ")
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}
