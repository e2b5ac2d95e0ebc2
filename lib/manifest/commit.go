package manifest

import (
	"fmt"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Commit finalizes m in s, whose referenced objects must already be stored:
// it stores the manifest object, then s.PutPackEntry makes every object
// this Store wrote durable and writes the packs/ entry, the commit point,
// in one flush and one directory sync (see store.PutPackEntry). It sets
// m.Hash and reports whether the manifest object was new.
func Commit(s *store.Store, m *Manifest) (d digest.Digest, created bool, err error) {
	c, err := CommitWith(s, m, CommitOptions{})
	return c.Hash, c.Created, err
}

// CommitOptions tune CommitWith.
type CommitOptions struct {
	// Present says the caller found every object m references in s
	// after taking s.HoldWrites (so that ctx-gc has not removed one
	// since): they are not looked for again.
	Present bool
	// Spans asks where each step lies in the manifest's bytes.
	Spans bool
	// Usage, when set, gives the usage the packs/ entry keeps (lib/cost's
	// Summary). A pack whose entry exists already, written without usage
	// or with other prices, keeps that entry.
	Usage func(*Manifest) *SummaryUsage
}

// Committed is what CommitWith stored.
type Committed struct {
	Hash    digest.Digest
	Created bool   // the manifest object was new
	Size    int64  // the manifest's size in bytes
	Steps   []Span // with CommitOptions.Spans: each step's place in them
}

// CommitWith is Commit, tuned by opts.
func CommitWith(s *store.Store, m *Manifest, opts CommitOptions) (Committed, error) {
	var c Committed
	// Hold ctx-gc off from here: what is checked present stays present.
	if err := s.HoldWrites(); err != nil {
		return c, err
	}
	if !opts.Present {
		for _, ref := range m.Refs() {
			ok, err := s.Has(ref)
			if err != nil {
				return c, err
			}
			if !ok {
				return c, fmt.Errorf("committing pack: referenced object %s: %w", ref, store.ErrNotFound)
			}
		}
	}
	u := *m
	u.Hash = digest.Digest{}
	parts, spans, err := encodeParts(&u, opts.Spans)
	if err != nil {
		return c, err
	}
	c.Hash, c.Size, c.Created, err = s.PutParts(parts)
	if err != nil {
		return c, err
	}
	c.Steps = spans
	m.Hash = c.Hash
	sum := Summarize(m)
	if opts.Usage != nil {
		sum.Usage = opts.Usage(m)
	}
	entry, err := EncodeSummary(sum)
	if err != nil {
		return c, err
	}
	same := func(old []byte) bool {
		o, err := ParseSummary(c.Hash, old)
		return err == nil && o.Core() == sum.Core()
	}
	if _, err := s.PutPackEntryFunc(c.Hash, entry, same); err != nil {
		return c, err
	}
	return c, nil
}
