package packlog

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ctx-tools/ctx/lib/cost"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Groupings of a usage report.
var UsageGroups = []string{"day", "week", "month", "model", "agent", "session"}

// UsageRow is what the packs of one group used and cost.
type UsageRow struct {
	Key   string // the day (2026-11-02), ISO week (2026-W45), month (2026-11), model, agent ("" the main one) or session
	Hash  string // for a session: the snapshot counted
	Packs int    // runs counted: one snapshot per session
	Steps int    // steps that recorded usage
	// Tokens sums the runs' usage; USD their figures (nil when none has
	// one), which leave out the models in Unpriced.
	Tokens   manifest.Usage
	USD      *float64
	Unpriced []string
}

// Usage sums the usage of the packs es by group (one of UsageGroups),
// counting each agent session once: its snapshot listed first (es in
// Compare's order: the one with the most steps, then the last packed).
// A pack's usage is its entry's; for an entry written before usage was
// kept, or when prices is not nil, its manifest's, priced with prices
// (else the default table). Packs whose manifest cannot be read are
// problems, and left out.
func Usage(s *store.Store, es []Entry, group string, prices *cost.Table) ([]UsageRow, []error) {
	var probs []error
	seen := map[string]bool{}
	rows := map[string]*UsageRow{}
	add := func(key string, steps int, tok *manifest.Usage, usd *float64, unpriced []string) *UsageRow {
		r := rows[key]
		if r == nil {
			r = &UsageRow{Key: key}
			rows[key] = r
		}
		r.Steps += steps
		r.Tokens.Add(tok)
		if usd != nil {
			r.USD = addUSD(r.USD, *usd)
		}
		for _, m := range unpriced {
			if !slices.Contains(r.Unpriced, m) {
				r.Unpriced = append(r.Unpriced, m)
			}
		}
		return r
	}
	for i := range es {
		e := &es[i]
		u := e.Usage
		if u == nil || prices != nil {
			m, err := manifest.Load(s, e.Hash)
			if err != nil {
				probs = append(probs, err)
				continue
			}
			u = cost.Summary(m, cmp.Or(prices, cost.Default()))
		}
		if u == nil {
			continue // no usage, no cost, not a snapshot
		}
		run := e.Hash.String()
		if u.Session != "" {
			run = "session:" + u.Session
		}
		if seen[run] {
			continue
		}
		seen[run] = true
		steps := 0
		for _, t := range u.Models {
			steps += t.Steps
		}
		switch group {
		case "day", "week", "month":
			t := e.Time()
			key := t.Format("2006-01-02")
			if group == "month" {
				key = t.Format("2006-01")
			} else if group == "week" {
				y, w := t.ISOWeek()
				key = fmt.Sprintf("%04d-W%02d", y, w)
			}
			add(key, steps, &u.Tokens, u.CostUSD, u.Unpriced).Packs++
		case "session":
			key := u.Session
			if key == "" {
				key = e.Hash.String()
			}
			r := add(key, steps, &u.Tokens, u.CostUSD, u.Unpriced)
			r.Packs++
			r.Hash = e.Hash.String()
		case "model", "agent":
			tallies := u.Models
			if group == "agent" {
				tallies = u.Agents
			}
			for _, t := range tallies {
				var unpriced []string
				if group == "model" && slices.Contains(u.Unpriced, t.Name) {
					unpriced = []string{t.Name}
				} else if group == "agent" && t.CostUSD == nil && t.Steps > 0 {
					unpriced = u.Unpriced
				}
				add(t.Name, t.Steps, &t.Tokens, t.CostUSD, unpriced).Packs++
			}
		default:
			return nil, []error{fmt.Errorf("usage by %q: want one of %s", group, strings.Join(UsageGroups, ", "))}
		}
	}
	out := make([]UsageRow, 0, len(rows))
	for _, r := range rows {
		slices.Sort(r.Unpriced)
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b UsageRow) int { return strings.Compare(a.Key, b.Key) })
	return out, probs
}

// UsageTotal sums rows.
func UsageTotal(rows []UsageRow) UsageRow {
	var t UsageRow
	for i := range rows {
		r := &rows[i]
		t.Packs += r.Packs
		t.Steps += r.Steps
		t.Tokens.Add(&r.Tokens)
		if r.USD != nil {
			t.USD = addUSD(t.USD, *r.USD)
		}
		for _, m := range r.Unpriced {
			if !slices.Contains(t.Unpriced, m) {
				t.Unpriced = append(t.Unpriced, m)
			}
		}
	}
	slices.Sort(t.Unpriced)
	return t
}

func addUSD(sum *float64, v float64) *float64 {
	if sum == nil {
		return &v
	}
	v = cost.Round(*sum + v)
	return &v
}
