package cost

import "github.com/ctx-tools/ctx/lib/manifest"

// Summary returns the usage a packs/ entry keeps for m, priced with t: nil
// for a pack whose steps recorded no usage and no cost and that is not a
// session's snapshot. It is manifest.CommitOptions.Usage.
func Summary(m *manifest.Manifest, t *Table) *manifest.SummaryUsage {
	p := Of(m, t)
	session := ""
	if m.Snapshot() {
		session = m.Session()
	}
	if p.Tokens.IsZero() && p.USD == nil && session == "" {
		return nil
	}
	u := &manifest.SummaryUsage{CostUSD: p.USD, Session: session, Tokens: p.Tokens, Unpriced: p.Unpriced}
	if p.USD != nil || len(p.Unpriced) > 0 {
		u.Prices = p.Prices
	}
	for _, tl := range p.Models {
		u.Models = append(u.Models, manifest.SummaryTally{CostUSD: tl.USD, Name: tl.Name, Steps: tl.Steps, Tokens: tl.Tokens})
	}
	for _, tl := range p.Agents {
		u.Agents = append(u.Agents, manifest.SummaryTally{CostUSD: tl.USD, Name: tl.Name, Steps: tl.Steps, Tokens: tl.Tokens})
	}
	return u
}

// Entry is manifest.CommitOptions.Usage with the default table.
func Entry(m *manifest.Manifest) *manifest.SummaryUsage { return Summary(m, Default()) }
