package replay

import (
	"fmt"
	"strings"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/visible"
)

// Human renders the report for --human: a header saying how many steps
// were verified and then the fidelity, one line per step, the drift, and
// a count of statuses.
func (r *Report) Human() string { return r.Styled().String() }

// Styled is Human with styles for a colour terminal: the fidelity and
// each step's status green when it holds, yellow when degraded or
// skipped, red when it failed. The count of verified steps comes first
// and uncoloured: "exact" says nothing diverged, not that every step was
// checked.
func (r *Report) Styled() *visible.Text {
	b := new(visible.Text)
	counts := map[Status]int{}
	for _, s := range r.Steps {
		counts[s.Status]++
	}
	verified := counts[Matched]
	fmt.Fprintf(b, "replay of %s: %d of %d %s verified; fidelity ", r.Pack, verified, len(r.Steps), plural(len(r.Steps), "step"))
	b.Paint(fidelityStyle(r.Fidelity, verified < len(r.Steps)), string(r.Fidelity))
	b.WriteString("\n")
	if len(r.Steps) > 0 {
		b.WriteString("\nsteps:\n")
	}
	width := 4
	// Fields from the pack are escaped: none may end its line.
	for _, s := range r.Steps {
		width = max(width, len(visible.Escape(s.Tool)))
	}
	for _, s := range r.Steps {
		tool := visible.Escape(s.Tool)
		if tool == "" {
			tool = "-"
		}
		det := "deterministic"
		if !s.Deterministic {
			det = "non-deterministic"
		}
		fmt.Fprintf(b, "  %4d  %-*s  ", s.Index, width, tool)
		b.Paint(statusStyle(s.Status), fmt.Sprintf("%-17s", s.Status))
		fmt.Fprintf(b, "  %-17s  %dms\n", det, s.DurationMS)
		if s.Status == Diverged || s.Status == DivergedExpected {
			fmt.Fprintf(b, "        expected %s\n        got      %s\n", visible.Escape(s.Expected), visible.Escape(s.Actual))
		}
		if s.Reason != "" {
			fmt.Fprintf(b, "        %s\n", visible.Escape(s.Reason))
		}
		for _, c := range s.Changes {
			fmt.Fprintf(b, "        %s %s\n", c.Change, visible.Escape(c.Name))
		}
	}
	if len(r.Outputs) > 0 {
		b.WriteString("\nwritten outputs after the last step:\n")
	}
	for _, o := range r.Outputs {
		fmt.Fprintf(b, "  %-9s %s\n", o.Status, visible.Escape(o.Name))
		if o.Reason != "" {
			fmt.Fprintf(b, "            %s\n", visible.Escape(o.Reason))
		}
	}
	if len(r.Drift) > 0 {
		b.WriteString("\ndrift:\n")
	}
	for _, d := range r.Drift {
		b.WriteString("  " + visible.Escape(d.Text()) + "\n")
	}
	var parts []string
	for _, st := range []Status{Matched, Diverged, DivergedExpected, Failed, Skipped} {
		if n := counts[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	summary := "no steps replayed"
	if len(parts) > 0 {
		summary = fmt.Sprintf("%d steps: %s", len(r.Steps), strings.Join(parts, ", "))
	}
	fmt.Fprintf(b, "\n%s\n", summary)
	if o := r.Summary.Outputs; o != nil {
		fmt.Fprintf(b, "%d of %d written files reproduced exactly\n", o.Reproduced, o.Written)
	}
	switch v := counts[Matched]; {
	case v == 0:
		b.WriteString("nothing verified: no step was executed and compared equal\n")
	default:
		fmt.Fprintf(b, "%d of %d steps verified (executed and compared equal)\n", v, len(r.Steps))
	}
	return b
}

// fidelityStyle colours a fidelity: exact green only when every step was
// verified, since an exact replay that skipped steps proves less.
func fidelityStyle(f Fidelity, partial bool) visible.Style {
	switch {
	case f == Exact && !partial:
		return visible.Green
	case f == Lost:
		return visible.Red
	}
	return visible.Yellow
}

func statusStyle(s Status) visible.Style {
	switch s {
	case Matched:
		return visible.Green
	case Diverged, Failed:
		return visible.Red
	case DivergedExpected, Skipped:
		return visible.Yellow
	}
	return visible.Plain
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

// Text renders one drift entry as a sentence.
func (d Drift) Text() string {
	var s string
	switch d.Type {
	case DriftToolVersion:
		actual := d.Actual
		if actual == "" {
			actual = "an executor of unknown version"
		}
		s = fmt.Sprintf("tool %s: recorded version %s, replayed with %s", d.Tool, d.Expected, actual)
	case DriftMissingInput:
		s = fmt.Sprintf("input %s is missing (expected %s)", d.Name, short(d.Expected))
	case DriftInputChanged:
		s = fmt.Sprintf("input %s changed: recorded %s, found %s", d.Name, short(d.Expected), short(d.Actual))
	case DriftOS, DriftRuntime:
		s = fmt.Sprintf("%s: recorded %s, replayed on %s", d.Type, d.Expected, d.Actual)
	default:
		s = fmt.Sprintf("%s %s%s: %s → %s", d.Type, d.Tool, d.Name, d.Expected, d.Actual)
	}
	if d.Reason != "" && d.Type != DriftToolVersion {
		s += ": " + d.Reason
	}
	return s
}

func short(s string) string {
	if d, err := digest.Parse(s); err == nil {
		return "sha256:" + d.Short()
	}
	return s
}
