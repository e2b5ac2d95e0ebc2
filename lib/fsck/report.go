package fsck

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/visible"
)

// Rule ids; see the package documentation.
const (
	RuleObject   = "ST1"
	RuleLayout   = "ST2"
	RuleFileType = "ST3"
	RuleEntry    = "ST4"
	RuleManifest = "ST5"
	RuleDangling = "ST6"
	RuleRef      = "ST7"
	RuleParent   = "ST8"
	RuleTemp     = "ST9"
)

// Violation is one problem found.
type Violation struct {
	RuleID  string `json:"rule_id"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Report is the outcome of verifying a store or a pack.
type Report struct {
	Store      string        // absolute store directory
	Pack       digest.Digest // the pack verified; zero for a whole store
	Objects    int           // objects hashed
	Bytes      int64         // bytes hashed
	Packs      int           // pack entries checked (whole store)
	Refs       int           // refs checked (whole store)
	Violations []Violation   // sorted; empty when the store or pack is valid
	Warnings   []Violation   // sorted
}

// OK reports whether no violation was found.
func (r *Report) OK() bool { return len(r.Violations) == 0 }

// ExitCode is 0 for a valid store or pack and 1 otherwise.
func (r *Report) ExitCode() int {
	if r.OK() {
		return 0
	}
	return 1
}

type reportJSON struct {
	OK         bool        `json:"ok"`
	Store      string      `json:"store"`
	Pack       string      `json:"pack,omitempty"`
	Objects    int         `json:"objects_verified"`
	Bytes      int64       `json:"bytes_verified"`
	Packs      *int        `json:"packs_verified,omitempty"`
	Refs       *int        `json:"refs_verified,omitempty"`
	Violations []Violation `json:"violations,omitempty"`
	Warnings   []Violation `json:"warnings,omitempty"`
}

// JSON returns the report as canonical JSON (no trailing newline):
// {"ok","store","objects_verified","bytes_verified",…} with "pack" for a
// pack, "packs_verified" and "refs_verified" for a whole store,
// "violations" when not ok, and "warnings" when there are any.
func (r *Report) JSON() []byte {
	j := reportJSON{
		OK: r.OK(), Store: r.Store, Objects: r.Objects, Bytes: r.Bytes,
		Violations: r.Violations, Warnings: r.Warnings,
	}
	if r.Pack.IsZero() {
		j.Packs, j.Refs = &r.Packs, &r.Refs
	} else {
		j.Pack = r.Pack.String()
	}
	b, err := canon.Marshal(j)
	if err != nil {
		// Only strings and small integers: this cannot fail.
		panic(fmt.Sprintf("fsck: encoding report: %v", err))
	}
	return b
}

// Human returns a readable rendering of the report.
func (r *Report) Human() string {
	var b strings.Builder
	what := "store " + r.Store
	counts := fmt.Sprintf("%d objects (%s), %d packs, %d refs", r.Objects, size(r.Bytes), r.Packs, r.Refs)
	if !r.Pack.IsZero() {
		what = "pack " + r.Pack.String()
		counts = fmt.Sprintf("%d objects (%s)", r.Objects, size(r.Bytes))
	}
	if r.OK() {
		fmt.Fprintf(&b, "%s: ok; %s verified\n", what, counts)
	} else {
		n := "violations"
		if len(r.Violations) == 1 {
			n = "violation"
		}
		fmt.Fprintf(&b, "%s: %d %s; %s checked\n", what, len(r.Violations), n, counts)
	}
	for _, v := range r.Violations {
		// Paths and messages name store files, which a received store
		// can name as it likes: escaped, none may end its line.
		fmt.Fprintf(&b, "  %-4s %s: %s\n", v.RuleID, visible.Escape(v.Path), visible.Escape(v.Message))
	}
	for _, v := range r.Warnings {
		fmt.Fprintf(&b, "  warning %s %s: %s\n", v.RuleID, visible.Escape(v.Path), visible.Escape(v.Message))
	}
	return b.String()
}

func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// sortViolations sorts by rule id, path and message, as PACK_SPEC §6.2
// asks, and drops exact duplicates.
func sortViolations(vs []Violation) []Violation {
	slices.SortFunc(vs, func(a, b Violation) int {
		return cmp.Or(strings.Compare(a.RuleID, b.RuleID), strings.Compare(a.Path, b.Path), strings.Compare(a.Message, b.Message))
	})
	return slices.Compact(vs)
}
