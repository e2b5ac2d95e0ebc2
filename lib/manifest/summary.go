package manifest

import (
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Summary is a pack's entry in packs/: enough to list and filter packs
// without reading their manifests.
type Summary struct {
	Hash    digest.Digest `json:"hash"`
	Created string        `json:"created"`
	Model   string        `json:"model"`
	Steps   int           `json:"steps"`
	Inputs  int           `json:"inputs"`
	Outputs int           `json:"outputs"`
	Parent  digest.Digest `json:"parent,omitzero"`
	// Usage is what the pack's steps used and cost, for packs whose steps
	// recorded usage or cost, or that are a session's snapshot; nil in
	// entries written before it was kept.
	Usage *SummaryUsage `json:"usage,omitzero"`
}

// SummaryUsage is what a pack's steps used and cost, kept in its packs/
// entry so that ctx-log reports it without reading manifests. Tokens,
// the tallies' names, steps and tokens, and Session follow from the
// manifest; the dollar figures from the price table named by Prices as
// it was when the pack was made (lib/cost).
type SummaryUsage struct {
	Agents   []SummaryTally `json:"agents,omitzero"`   // by agent, "" the main one
	CostUSD  *float64       `json:"cost_usd,omitzero"` // nil: nothing priced
	Models   []SummaryTally `json:"models,omitzero"`
	Prices   string         `json:"prices,omitzero"`
	Session  string         `json:"session,omitzero"` // the session a snapshot is of
	Tokens   Usage          `json:"tokens"`
	Unpriced []string       `json:"unpriced,omitzero"` // models left out of CostUSD
}

// SummaryTally is the tokens and cost of the steps of one model or agent.
type SummaryTally struct {
	CostUSD *float64 `json:"cost_usd,omitzero"`
	Name    string   `json:"name"`
	Steps   int      `json:"steps"`
	Tokens  Usage    `json:"tokens"`
}

// Core returns s without its usage: what two entries of one pack written
// by different versions of ctx, or with different price tables, share.
func (s Summary) Core() Summary {
	s.Usage = nil
	return s
}

// Summarize returns the summary of m, whose Hash must be set, without
// usage (which CommitOptions.Usage adds).
func Summarize(m *Manifest) Summary {
	return Summary{
		Hash: m.Hash, Created: m.Created, Model: m.Model.Identifier,
		Steps: len(m.Steps), Inputs: len(m.Inputs), Outputs: len(m.Outputs),
		Parent: m.Parent,
	}
}

// EncodeSummary returns the canonical bytes of a packs/ entry, with a
// trailing newline.
func EncodeSummary(s Summary) ([]byte, error) {
	b, err := marshal(s)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// LoadSummary reads and parses the packs/ entry of d.
func LoadSummary(s *store.Store, d digest.Digest) (Summary, error) {
	b, err := s.PackEntry(d)
	if err != nil {
		return Summary{}, err
	}
	return ParseSummary(d, b)
}

// ParseSummary parses the packs/ entry b of pack d strictly.
func ParseSummary(d digest.Digest, b []byte) (Summary, error) {
	var sum Summary
	if err := json.Unmarshal(b, &sum, json.RejectUnknownMembers(true)); err != nil {
		return Summary{}, &store.CorruptError{What: "pack entry " + d.String(), Err: err}
	}
	if sum.Hash != d {
		return Summary{}, &store.CorruptError{What: "pack entry " + d.String(), Err: fmt.Errorf("it names %s", sum.Hash)}
	}
	return sum, nil
}
