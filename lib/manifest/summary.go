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
}

// Summarize returns the summary of m, whose Hash must be set.
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
