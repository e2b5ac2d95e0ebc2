// Package manifest defines the context pack manifest (DESIGN §4), its
// canonical encoding, the pack summary kept in packs/, and loading a
// finalized pack from a store with its digest verified.
package manifest

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Version is the manifest format version ctx writes and reads.
const Version = "0.1"

// Step types.
const (
	ToolCall = "tool_call"
	LLMCall  = "llm_call"
)

// Manifest is a context pack. Large content lives in objects; the manifest
// holds their digests. Hash is never part of the stored bytes: it is the
// digest of them, filled in when a manifest is loaded or printed.
type Manifest struct {
	Version      string         `json:"version"`
	Hash         digest.Digest  `json:"hash,omitzero"`
	Created      string         `json:"created"`
	Parent       digest.Digest  `json:"parent,omitzero"`
	Model        Model          `json:"model"`
	SystemPrompt digest.Digest  `json:"system_prompt,omitzero"`
	Prompts      []Prompt       `json:"prompts"`
	Inputs       []File         `json:"inputs"`
	Steps        []Step         `json:"steps"`
	Outputs      []Output       `json:"outputs"`
	Environment  Environment    `json:"environment"`
	Metadata     jsontext.Value `json:"metadata,omitzero"`
}

// Model names the model and its sampling parameters.
type Model struct {
	Identifier string         `json:"identifier"`
	Parameters jsontext.Value `json:"parameters,omitzero"`
}

// Prompt is one prompt message.
type Prompt struct {
	Role       string        `json:"role"`
	ContentRef digest.Digest `json:"content_ref"`
}

// File is a named piece of content: an input the agent saw.
type File struct {
	Name       string        `json:"name"`
	ContentRef digest.Digest `json:"content_ref"`
	Size       int64         `json:"size"`
}

// Output is an artifact the run produced.
type Output struct {
	Name       string        `json:"name"`
	ContentRef digest.Digest `json:"content_ref"`
	Size       int64         `json:"size"`
	Confidence string        `json:"confidence,omitzero"`
	Notes      string        `json:"notes,omitzero"`
}

// Step is one recorded action: a tool call or a model call.
type Step struct {
	Index         int            `json:"index"`
	Type          string         `json:"type"`
	Tool          string         `json:"tool,omitzero"`
	Parameters    jsontext.Value `json:"parameters,omitzero"`
	OutputRef     digest.Digest  `json:"output_ref,omitzero"`
	Deterministic bool           `json:"deterministic"`
	Timestamp     string         `json:"timestamp,omitzero"`
	Metadata      jsontext.Value `json:"metadata,omitzero"`
}

// Environment records where the run happened.
type Environment struct {
	OS           string            `json:"os,omitzero"`
	Runtime      string            `json:"runtime,omitzero"`
	ToolVersions map[string]string `json:"tool_versions,omitzero"`
	Metadata     jsontext.Value    `json:"metadata,omitzero"`
}

// Encode returns the manifest's stored form: canonical JSON without hash.
// Its digest is the pack hash.
func Encode(m *Manifest) ([]byte, error) {
	c := *m
	c.Hash = digest.Digest{}
	return marshal(&c)
}

// JSON returns the manifest as printed: canonical JSON with hash.
func JSON(m *Manifest) ([]byte, error) { return marshal(m) }

func marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return nil, fmt.Errorf("encoding manifest: %w", err)
	}
	return canon.Canonicalize(b)
}

// Parse decodes stored manifest bytes strictly: unknown members, a hash
// member, or a wrong version are errors.
func Parse(b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m, json.RejectUnknownMembers(true)); err != nil {
		return nil, fmt.Errorf("parsing manifest: %w", err)
	}
	if !m.Hash.IsZero() {
		return nil, errors.New("parsing manifest: stored manifest carries a hash member")
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("parsing manifest: %w", err)
	}
	return &m, nil
}

func (m *Manifest) check() error {
	if m.Version != Version {
		return fmt.Errorf("version %q is not %q", m.Version, Version)
	}
	if _, err := time.Parse(time.RFC3339Nano, m.Created); err != nil {
		return fmt.Errorf("created: %q is not an RFC 3339 time", m.Created)
	}
	if m.Model.Identifier == "" {
		return errors.New("model.identifier is empty")
	}
	for i, s := range m.Steps {
		if s.Index != i {
			return fmt.Errorf("steps[%d].index is %d", i, s.Index)
		}
	}
	return nil
}

// Refs returns every object digest the manifest references, in manifest
// order, each once.
func (m *Manifest) Refs() []digest.Digest {
	seen := map[digest.Digest]bool{}
	var out []digest.Digest
	add := func(d digest.Digest) {
		if !d.IsZero() && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	add(m.SystemPrompt)
	for _, p := range m.Prompts {
		add(p.ContentRef)
	}
	for _, f := range m.Inputs {
		add(f.ContentRef)
	}
	for _, s := range m.Steps {
		add(s.OutputRef)
	}
	for _, o := range m.Outputs {
		add(o.ContentRef)
	}
	return out
}

// ErrNotPack reports a digest that names no pack in the store.
var ErrNotPack = errors.New("not a pack")

// Load reads the pack d from s: the manifest object must hash to d and
// parse. A pack is normally finalized (its packs/ entry exists); a manifest
// object without an entry, as when only the objects a pack references were
// copied to another store, counts as a pack only if every object it
// references is present. Anything else is ErrNotPack. Hash is set to d.
func Load(s *store.Store, d digest.Digest) (*Manifest, error) {
	finalized, err := s.HasPack(d)
	if err != nil {
		return nil, fmt.Errorf("reading pack %s: %w", d, err)
	}
	if !finalized {
		if has, _ := s.Has(d); !has {
			return nil, fmt.Errorf("pack %s: %w", d, store.ErrNotFound)
		}
	}
	b, err := s.Get(d)
	if err != nil {
		return nil, fmt.Errorf("reading pack %s: %w", d, err)
	}
	m, err := Parse(b)
	if err != nil {
		if !finalized {
			return nil, fmt.Errorf("%s is an object but %w (no finalized pack has this hash): %w", d, ErrNotPack, store.ErrNotFound)
		}
		return nil, &store.CorruptError{What: "pack " + d.String(), Err: err}
	}
	if !finalized {
		for _, r := range m.Refs() {
			if ok, _ := s.Has(r); !ok {
				return nil, fmt.Errorf("%s is a manifest but %w here: it is not finalized and object %s is missing: %w", d, ErrNotPack, r, store.ErrNotFound)
			}
		}
	}
	m.Hash = d
	return m, nil
}
