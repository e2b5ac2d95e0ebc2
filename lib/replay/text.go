package replay

import (
	"fmt"
	"strings"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/visible"
)

// Human renders the report for --human: a header with the fidelity, one
// line per step, the drift, and a count of statuses.
func (r *Report) Human() string {
	var b strings.Builder
	fmt.Fprintf(&b, "replay of %s: %s\n", r.Pack, r.Fidelity)
	if len(r.Steps) > 0 {
		b.WriteString("\nsteps:\n")
	}
	width := 4
	// Fields from the pack are escaped: none may end its line.
	for _, s := range r.Steps {
		width = max(width, len(visible.Escape(s.Tool)))
	}
	counts := map[Status]int{}
	for _, s := range r.Steps {
		counts[s.Status]++
		tool := visible.Escape(s.Tool)
		if tool == "" {
			tool = "-"
		}
		det := "deterministic"
		if !s.Deterministic {
			det = "non-deterministic"
		}
		fmt.Fprintf(&b, "  %4d  %-*s  %-17s  %-17s  %dms\n", s.Index, width, tool, s.Status, det, s.DurationMS)
		if s.Status == Diverged || s.Status == DivergedExpected {
			fmt.Fprintf(&b, "        expected %s\n        got      %s\n", visible.Escape(s.Expected), visible.Escape(s.Actual))
		}
		if s.Reason != "" {
			fmt.Fprintf(&b, "        %s\n", visible.Escape(s.Reason))
		}
		for _, c := range s.Changes {
			fmt.Fprintf(&b, "        %s %s\n", c.Change, visible.Escape(c.Name))
		}
	}
	if len(r.Outputs) > 0 {
		b.WriteString("\nwritten outputs after the last step:\n")
	}
	for _, o := range r.Outputs {
		fmt.Fprintf(&b, "  %-9s %s\n", o.Status, visible.Escape(o.Name))
		if o.Reason != "" {
			fmt.Fprintf(&b, "            %s\n", visible.Escape(o.Reason))
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
	fmt.Fprintf(&b, "\n%s\n", summary)
	if o := r.Summary.Outputs; o != nil {
		fmt.Fprintf(&b, "%d of %d written files reproduced exactly\n", o.Reproduced, o.Written)
	}
	switch v := counts[Matched]; {
	case v == 0:
		b.WriteString("nothing verified: no step was executed and compared equal\n")
	default:
		fmt.Fprintf(&b, "%d of %d steps verified (executed and compared equal)\n", v, len(r.Steps))
	}
	return b.String()
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
