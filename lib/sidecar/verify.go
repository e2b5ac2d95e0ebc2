package sidecar

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/visible"
)

// Verdict statuses. Only Verified is a success.
const (
	Verified     = "verified"      // the artifact is what the pack recorded
	Modified     = "modified"      // the artifact's bytes differ from the recorded output
	NoProvenance = "no_provenance" // no sidecar beside the artifact
	Broken       = "broken"        // a sidecar that cannot be read or followed to its pack and output

	// Statuses of a signed attestation (<artifact>.sigstore.json).
	BadSignature       = "bad_signature"        // a trusted key's signature does not match the statement
	UntrustedSignature = "untrusted_signature"  // signed by no trusted key
	WrongSubject       = "wrong_subject"        // the attestation is about another artifact
	WrongPredicateType = "wrong_predicate_type" // the attestation is not ctx's context-pack predicate
)

// Verdict is the outcome of verifying one artifact against its sidecar and
// the pack the sidecar names. Pack details come from the pack when it
// could be loaded, else from the sidecar.
type Verdict struct {
	Artifact    string          `json:"artifact"`
	Sidecar     string          `json:"sidecar,omitzero"`
	Bundle      string          `json:"bundle,omitzero"`
	Signer      string          `json:"signer,omitzero"`
	Status      string          `json:"status"`
	Reason      string          `json:"reason,omitzero"`
	ContextPack digest.Digest   `json:"context_pack,omitzero"`
	URI         string          `json:"uri,omitzero"`
	Created     string          `json:"created,omitzero"`
	Model       string          `json:"model,omitzero"`
	Output      string          `json:"output,omitzero"`
	Expected    digest.Digest   `json:"expected,omitzero"`
	Actual      digest.Digest   `json:"actual,omitzero"`
	Inputs      []digest.Digest `json:"inputs,omitzero"`
	Tools       []string        `json:"tools,omitzero"`
	Confidence  string          `json:"confidence,omitzero"`
	Notes       string          `json:"notes,omitzero"`
}

// OK reports whether the artifact is verified.
func (v *Verdict) OK() bool { return v.Status == Verified }

// ExitCode is 0 for a verified artifact and 1 otherwise.
func (v *Verdict) ExitCode() int {
	if v.OK() {
		return 0
	}
	return 1
}

// MaxSidecar bounds a sidecar file read beside an artifact.
const MaxSidecar = 16 << 20

// ReadSidecar reads the sidecar file found at name (beside an artifact)
// by lib/found's rule: a regular file of at most MaxSidecar bytes, so that
// a pipe or device there cannot hang or flood a verification.
func ReadSidecar(name string) ([]byte, error) {
	return found.ReadFile(name, found.Rule{What: "sidecar", Max: MaxSidecar})
}

// Verify checks the artifact at path against path+".ctx.json". open
// returns the store to look the pack up in, given the artifact's
// directory. The error is for what stops verification itself: an artifact
// that cannot be read, or no store.
func Verify(path string, open func(dir string) (*store.Store, error)) (*Verdict, error) {
	v := &Verdict{Artifact: path, Sidecar: path + Suffix}
	actual, err := HashFile(path)
	if err != nil {
		return nil, err
	}
	v.Actual = actual

	b, err := ReadSidecar(v.Sidecar)
	if errors.Is(err, fs.ErrNotExist) {
		v.Status, v.Reason = NoProvenance, "no sidecar "+v.Sidecar
		return v, nil
	}
	if err != nil {
		return v.broken("sidecar cannot be read: %v", err), nil
	}
	sc, err := Parse(b)
	if err != nil {
		return v.broken("sidecar does not parse: %s", strings.TrimPrefix(err.Error(), "parsing sidecar: ")), nil
	}
	v.ContextPack, v.URI, v.Output = sc.ContextPack, sc.ContextPack.URI(), sc.Output
	v.Expected, v.Inputs, v.Tools = sc.ContentRef, sc.Inputs, sc.Tools
	v.Confidence, v.Notes = sc.Confidence, sc.Notes

	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	s, err := open(dir)
	if err != nil {
		return nil, err
	}
	m, err := manifest.Load(s, sc.ContextPack)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return v.broken("pack %s is not in the store %s", sc.ContextPack, s.Root()), nil
	case errors.Is(err, store.ErrCorrupt):
		return v.broken("pack %s is corrupt; ctx-verify --pack %s tells how", sc.ContextPack, sc.ContextPack), nil
	case err != nil:
		return nil, err
	}
	v.Created, v.Model = m.Created, m.Model.Identifier
	want := Record(m, sc.Output)
	if want == nil {
		return v.broken("pack %s has no output named %q", m.Hash, sc.Output), nil
	}
	// The pack is the record: report what it says, whatever the sidecar
	// claims.
	v.Expected, v.Inputs, v.Tools = want.ContentRef, want.Inputs, want.Tools
	v.Confidence, v.Notes = want.Confidence, want.Notes
	if diff := Differences(sc, *want); len(diff) > 0 {
		return v.broken("sidecar disagrees with the pack's record of %q on %s", sc.Output, strings.Join(diff, ", ")), nil
	}
	if actual != want.ContentRef {
		v.Status, v.Reason = Modified, "the artifact's content differs from the output the pack recorded"
		return v, nil
	}
	v.Status = Verified
	return v, nil
}

func (v *Verdict) broken(format string, args ...any) *Verdict {
	return v.Set(Broken, format, args...)
}

// Set sets the verdict's status and reason and returns it.
func (v *Verdict) Set(status, format string, args ...any) *Verdict {
	v.Status, v.Reason = status, fmt.Sprintf(format, args...)
	return v
}

// Record returns the pack's own sidecar for its output name, or nil when
// m has no such output.
func Record(m *manifest.Manifest, name string) *Sidecar {
	for _, rec := range ForPack(m) {
		if rec.Output == name {
			return &rec
		}
	}
	return nil
}

// Differences names the fields in which a sidecar departs from the
// pack's record of it (Record).
func Differences(got, want Sidecar) []string {
	var diff []string
	if !got.ContentRef.IsZero() && got.ContentRef != want.ContentRef {
		diff = append(diff, "content_ref")
	}
	if !slices.Equal(got.Inputs, want.Inputs) {
		diff = append(diff, "inputs")
	}
	if !slices.Equal(got.Tools, want.Tools) {
		diff = append(diff, "tools")
	}
	if got.Confidence != want.Confidence {
		diff = append(diff, "confidence")
	}
	if got.Notes != want.Notes {
		diff = append(diff, "notes")
	}
	return diff
}

// HashFile returns the digest of the artifact at path; a directory is an
// error.
func HashFile(path string) (digest.Digest, error) {
	f, err := os.Open(path)
	if err != nil {
		return digest.Digest{}, fmt.Errorf("reading artifact: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return digest.Digest{}, fmt.Errorf("reading artifact %s: is a directory", path)
	}
	d, _, err := digest.OfReader(f)
	if err != nil {
		return digest.Digest{}, fmt.Errorf("reading artifact %s: %w", path, err)
	}
	return d, nil
}

// Human renders the verdict for reading, with the commands that inspect
// and replay the pack.
func (v *Verdict) Human() string { return v.Styled().String() }

// Styled is Human with the verdict green when verified, red otherwise,
// for a colour terminal.
func (v *Verdict) Styled() *visible.Text {
	b := new(visible.Text)
	// Fields from the pack and the sidecar are escaped: none may end its
	// line.
	fmt.Fprintf(b, "%s: ", visible.Escape(v.Artifact))
	style := visible.Red
	if v.Status == Verified {
		style = visible.Green
	}
	b.Paint(style, strings.ReplaceAll(v.Status, "_", " "))
	if v.Reason != "" && v.Status != Modified {
		fmt.Fprintf(b, " (%s)", visible.Escape(v.Reason))
	}
	b.WriteString("\n")
	line := func(k, val string) {
		if val != "" {
			fmt.Fprintf(b, "  %-10s %s\n", k, visible.Escape(val))
		}
	}
	if !v.ContextPack.IsZero() {
		line("pack", v.ContextPack.String())
	}
	line("created", v.Created)
	line("model", v.Model)
	line("output", v.Output)
	line("bundle", v.Bundle)
	line("signer", v.Signer)
	if v.Status == Modified {
		line("expected", v.Expected.String())
		line("actual", v.Actual.String())
	}
	line("tools", strings.Join(v.Tools, ", "))
	line("confidence", v.Confidence)
	line("notes", v.Notes)
	if !v.ContextPack.IsZero() && v.Status != Broken {
		fmt.Fprintf(b, "  next: ctx-show %s; ctx-replay %s\n", v.ContextPack, v.ContextPack)
	}
	return b
}
