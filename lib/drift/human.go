package drift

import (
	"fmt"
	"strings"

	"github.com/ctx-tools/ctx/lib/visible"
)

// Human renders r for reading: a headline with the counts, then the
// entries grouped by type in report order, each with its location, the
// step's tool, the two sides and any diff. Identical packs give "no
// differences".
func (r *Report) Human() string { return r.Styled().String() }

// Styled is Human with styles for a colour terminal: the headline bold,
// hashes yellow, removed diff lines red, added ones green, hunk headers
// cyan, as git diff shows them.
func (r *Report) Styled() *visible.Text {
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
				e.human(b)
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

func (e *Entry) human(b *visible.Text) {
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
