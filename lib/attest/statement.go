package attest

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// Fixed names of the formats involved.
const (
	// PredicateType names ctx's predicate, version included; it changes
	// only together with its version (docs/attestation.md).
	PredicateType = "https://ctx-tools.github.io/attestation/context-pack/v0.1"
	// StatementType is the in-toto Statement v1 type ctx writes.
	StatementType = "https://in-toto.io/Statement/v1"
	// statementTypeLegacy is accepted when reading: cosign attest-blob
	// still writes it.
	statementTypeLegacy = "https://in-toto.io/Statement/v0.1"
	// PayloadType is the DSSE payload type of an in-toto statement.
	PayloadType = "application/vnd.in-toto+json"
	// ManifestMediaType is the media type of a pack's manifest object.
	ManifestMediaType = "application/vnd.ctx.manifest.v1+json"
)

// Statement is an in-toto Statement v1 with ctx's predicate.
type Statement struct {
	Type          string     `json:"_type"`
	Subject       []Resource `json:"subject"`
	PredicateType string     `json:"predicateType"`
	Predicate     Predicate  `json:"predicate"`
}

// Resource is an in-toto ResourceDescriptor, with the fields ctx uses.
type Resource struct {
	Name      string            `json:"name,omitzero"`
	URI       string            `json:"uri,omitzero"`
	Digest    map[string]string `json:"digest,omitzero"`
	MediaType string            `json:"mediaType,omitzero"`
}

// Predicate is ctx's context-pack predicate (docs/attestation.md): what
// the pack records about the run that produced the subject.
type Predicate struct {
	ContextPack Resource   `json:"contextPack"`
	RunCreated  string     `json:"runCreated"`
	Model       Model      `json:"model"`
	Inputs      []Resource `json:"inputs"`
	Tools       []Tool     `json:"tools"`
	Confidence  string     `json:"confidence,omitzero"`
	Notes       string     `json:"notes,omitzero"`
	// Outputs is set only in the pack-level statement.
	Outputs []Resource `json:"outputs,omitzero"`
}

// Model is the model identifier and its sampling parameters.
type Model struct {
	Identifier string         `json:"identifier"`
	Parameters jsontext.Value `json:"parameters,omitzero"`
}

// Tool is a tool the run's steps called, with its recorded version.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version,omitzero"`
}

func sha256Set(d digest.Digest) map[string]string {
	return map[string]string{digest.Algorithm: d.Hex()}
}

// packResource names a pack the way predicates and pack subjects do.
func packResource(d digest.Digest) Resource {
	return Resource{URI: d.URI(), Digest: sha256Set(d), MediaType: ManifestMediaType}
}

// base returns the predicate fields every statement of m shares.
func base(m *manifest.Manifest) Predicate {
	p := Predicate{
		ContextPack: packResource(m.Hash),
		RunCreated:  m.Created,
		Model:       Model{Identifier: m.Model.Identifier, Parameters: m.Model.Parameters},
		Inputs:      []Resource{},
		Tools:       []Tool{},
	}
	for _, in := range m.Inputs {
		p.Inputs = append(p.Inputs, Resource{Name: in.Name, Digest: sha256Set(in.ContentRef)})
	}
	var names []string
	for _, s := range m.Steps {
		if s.Tool != "" && !slices.Contains(names, s.Tool) {
			names = append(names, s.Tool)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		p.Tools = append(p.Tools, Tool{Name: n, Version: m.Environment.ToolVersions[n]})
	}
	return p
}

// ForOutputs returns the statement of every output of m, in manifest
// order. m.Hash must be set.
func ForOutputs(m *manifest.Manifest) []Statement {
	out := make([]Statement, len(m.Outputs))
	for i, o := range m.Outputs {
		p := base(m)
		p.Confidence, p.Notes = o.Confidence, o.Notes
		out[i] = Statement{
			Type:          StatementType,
			Subject:       []Resource{{Name: o.Name, Digest: sha256Set(o.ContentRef)}},
			PredicateType: PredicateType,
			Predicate:     p,
		}
	}
	return out
}

// ForPack returns the pack-level statement of m: its subject is the pack
// (name ctx://<hex>, digest the pack hash, which is also the manifest
// object's SHA-256), and its predicate lists the outputs.
func ForPack(m *manifest.Manifest) Statement {
	p := base(m)
	p.Outputs = []Resource{}
	for _, o := range m.Outputs {
		p.Outputs = append(p.Outputs, Resource{Name: o.Name, Digest: sha256Set(o.ContentRef)})
	}
	return Statement{
		Type:          StatementType,
		Subject:       []Resource{{Name: m.Hash.URI(), Digest: sha256Set(m.Hash)}},
		PredicateType: PredicateType,
		Predicate:     p,
	}
}

// OCIManifestMediaType is the media type of the OCI image manifest a
// pushed pack is laid out as.
const OCIManifestMediaType = "application/vnd.oci.image.manifest.v1+json"

// ForImage returns the pack-level statement of m as pushed to a
// registry: its subject is the pack's OCI image manifest, named as cosign
// names an image (name the repository, "registry/repository"; image
// the manifest's digest), so that cosign verify-attestation
// REPOSITORY@DIGEST finds it among the manifest's referrers and accepts
// it. The predicate is ForPack's.
func ForImage(m *manifest.Manifest, name string, image digest.Digest) Statement {
	st := ForPack(m)
	st.Subject = []Resource{{Name: name, Digest: sha256Set(image), MediaType: OCIManifestMediaType}}
	return st
}

// Encode returns the statement's canonical JSON, without a newline: the
// bytes that are signed.
func Encode(st Statement) ([]byte, error) { return encode(st, "statement") }

// encode returns v as canonical JSON; what names it in an error.
func encode(v any, what string) ([]byte, error) {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", what, err)
	}
	return canon.Canonicalize(b)
}

// EncodePredicate returns the predicate alone as canonical JSON, for tools
// that build the statement themselves (actions/attest's predicate-path).
func EncodePredicate(p Predicate) ([]byte, error) { return encode(p, "predicate") }

// parsedStatement is a statement as read for verification: the predicate
// is kept raw until its type is known to be ctx's.
type parsedStatement struct {
	Type          string         `json:"_type"`
	Subject       []Resource     `json:"subject"`
	PredicateType string         `json:"predicateType"`
	Predicate     jsontext.Value `json:"predicate"`
}

// parseStatement decodes an in-toto statement. Members it does not know
// are ignored, as the in-toto specification asks of consumers.
func parseStatement(b []byte) (*parsedStatement, error) {
	var st parsedStatement
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, err
	}
	switch {
	case st.Type != StatementType && st.Type != statementTypeLegacy:
		return nil, fmt.Errorf("_type %q is not an in-toto statement", clip(st.Type))
	case len(st.Subject) == 0:
		return nil, errors.New("no subject")
	case st.PredicateType == "":
		return nil, errors.New("no predicateType")
	}
	return &st, nil
}

// parsePredicate decodes ctx's predicate. Unknown members are ignored (a
// later compatible version may add some); the pack's digest is required.
func parsePredicate(b jsontext.Value) (*Predicate, digest.Digest, error) {
	var p Predicate
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, digest.Digest{}, fmt.Errorf("predicate: %w", err)
	}
	h, ok := p.ContextPack.Digest[digest.Algorithm]
	if !ok {
		return nil, digest.Digest{}, errors.New("predicate: contextPack.digest.sha256 is missing")
	}
	d, err := digest.Parse(h)
	if err != nil || h != d.Hex() {
		return nil, digest.Digest{}, fmt.Errorf("predicate: contextPack.digest.sha256 %q is not 64 lowercase hex digits", clip(h))
	}
	return &p, d, nil
}
