package attest

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// Bundle file names and media types.
const (
	// Suffix is appended to an artifact's name to name its bundle.
	Suffix = ".sigstore.json"
	// BundleMediaType is the Sigstore bundle version ctx writes.
	BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// bundleMediaTypeAlt is the other spelling of v0.3 the Sigstore
	// clients accept.
	bundleMediaTypeAlt = "application/vnd.dev.sigstore.bundle+json;version=0.3"
)

// PAE is DSSE's pre-authentication encoding of a payload: what is signed.
func PAE(payloadType string, payload []byte) []byte {
	b := make([]byte, 0, len(payload)+len(payloadType)+32)
	b = append(b, "DSSEv1 "...)
	b = strconv.AppendInt(b, int64(len(payloadType)), 10)
	b = append(b, ' ')
	b = append(b, payloadType...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(payload)), 10)
	b = append(b, ' ')
	return append(b, payload...)
}

// envelope is a DSSE envelope in the Sigstore bundle's protobuf JSON form.
type envelope struct {
	Payload     []byte      `json:"payload"`
	PayloadType string      `json:"payloadType"`
	Signatures  []signature `json:"signatures"`
}

type signature struct {
	Sig   []byte `json:"sig"`
	KeyID string `json:"keyid,omitzero"`
}

type bundle struct {
	MediaType            string               `json:"mediaType"`
	VerificationMaterial verificationMaterial `json:"verificationMaterial"`
	DSSEEnvelope         *envelope            `json:"dsseEnvelope,omitzero"`
	// MessageSignature is read only to say that ctx does not check it.
	MessageSignature jsontext.Value `json:"messageSignature,omitzero"`
}

type verificationMaterial struct {
	PublicKey *struct {
		Hint string `json:"hint"`
	} `json:"publicKey,omitzero"`
	// Keyless bundles carry a certificate instead of a key hint.
	Certificate          jsontext.Value `json:"certificate,omitzero"`
	X509CertificateChain jsontext.Value `json:"x509CertificateChain,omitzero"`
	TlogEntries          jsontext.Value `json:"tlogEntries,omitzero"`
	TimestampData        jsontext.Value `json:"timestampVerificationData,omitzero"`
}

// Sign signs a statement (canonical JSON, as Encode returns it) and
// returns the Sigstore bundle's bytes: canonical JSON and a newline. An
// ed25519 key always gives the same bytes for the same statement; ECDSA
// signatures are randomised, so an ECDSA key's bundles differ each time
// (and each verifies).
func (s *Signer) Sign(statement []byte) ([]byte, error) {
	sig, err := s.signPAE(PAE(PayloadType, statement))
	if err != nil {
		return nil, fmt.Errorf("signing statement: %w", err)
	}
	b := bundle{MediaType: BundleMediaType, DSSEEnvelope: &envelope{
		Payload: statement, PayloadType: PayloadType,
		Signatures: []signature{{Sig: sig, KeyID: s.pub.ID}},
	}}
	b.VerificationMaterial.PublicKey = &struct {
		Hint string `json:"hint"`
	}{s.pub.ID}
	out, err := json.Marshal(b, json.Deterministic(true))
	if err != nil {
		return nil, fmt.Errorf("encoding bundle: %w", err)
	}
	out, err = canon.Canonicalize(out)
	if err != nil {
		return nil, fmt.Errorf("encoding bundle: %w", err)
	}
	return append(out, '\n'), nil
}

// Signed is one signed statement, ready to be written beside its artifact
// or pushed as an OCI referrer.
type Signed struct {
	// Name is the subject's name: an output name, or ctx://<hex> for the
	// pack-level statement.
	Name string
	// Subject is the subject's digest.
	Subject digest.Digest
	// Bundle is the Sigstore bundle's bytes.
	Bundle []byte
}

// Annotations are the OCI annotations cosign puts on a bundle pushed as a
// referrer (cosign specs/BUNDLE_SPEC.md); the artifact type of that
// referrer is BundleMediaType.
func (Signed) Annotations() map[string]string { return annotations(PredicateType) }

func annotations(predicateType string) map[string]string {
	return map[string]string{
		"dev.sigstore.bundle.content":       "dsse-envelope",
		"dev.sigstore.bundle.predicateType": predicateType,
	}
}

// BundleAnnotations returns the cosign referrer annotations of a bundle
// file's bytes (see Signed.Annotations), for a push that attaches bundles
// it did not sign itself. It reads the predicate type from the statement
// and checks no signature: verification is the reader's.
func BundleAnnotations(b []byte) (map[string]string, error) {
	bu, err := parseBundle(b)
	if err != nil {
		return nil, fmt.Errorf("reading bundle: %w", err)
	}
	st, err := parseStatement(bu.DSSEEnvelope.Payload)
	if err != nil {
		return nil, fmt.Errorf("reading bundle: statement: %w", err)
	}
	return annotations(st.PredicateType), nil
}

// SignOutputs signs the statement of every output of m, in manifest order.
func (s *Signer) SignOutputs(m *manifest.Manifest) ([]Signed, error) {
	var out []Signed
	for i, st := range ForOutputs(m) {
		b, err := s.sign(st)
		if err != nil {
			return nil, err
		}
		out = append(out, Signed{Name: m.Outputs[i].Name, Subject: m.Outputs[i].ContentRef, Bundle: b})
	}
	return out, nil
}

// SignPack signs the pack-level statement of m.
func (s *Signer) SignPack(m *manifest.Manifest) (Signed, error) {
	b, err := s.sign(ForPack(m))
	if err != nil {
		return Signed{}, err
	}
	return Signed{Name: m.Hash.URI(), Subject: m.Hash, Bundle: b}, nil
}

func (s *Signer) sign(st Statement) ([]byte, error) {
	b, err := Encode(st)
	if err != nil {
		return nil, err
	}
	return s.Sign(b)
}

// parseBundle decodes a Sigstore bundle holding a DSSE envelope.
func parseBundle(b []byte) (*bundle, error) {
	var bu bundle
	if err := json.Unmarshal(b, &bu); err != nil {
		return nil, err
	}
	switch {
	case bu.MediaType != BundleMediaType && bu.MediaType != bundleMediaTypeAlt:
		return nil, fmt.Errorf("mediaType %q is not a Sigstore bundle v0.3", clip(bu.MediaType))
	case bu.DSSEEnvelope == nil && len(bu.MessageSignature) > 0:
		return nil, errors.New("it holds a message signature, not a DSSE envelope with an attestation")
	case bu.DSSEEnvelope == nil:
		return nil, errors.New("no dsseEnvelope")
	case len(bu.DSSEEnvelope.Signatures) == 0:
		return nil, errors.New("the DSSE envelope has no signature")
	}
	return &bu, nil
}

// hint returns the bundle's public-key hint, or "".
func (bu *bundle) hint() string {
	if bu.VerificationMaterial.PublicKey == nil {
		return ""
	}
	return bu.VerificationMaterial.PublicKey.Hint
}

// keyless reports whether the bundle is signed with a certificate.
func (bu *bundle) keyless() bool {
	vm := bu.VerificationMaterial
	return len(vm.Certificate) > 0 || len(vm.X509CertificateChain) > 0
}
