package attest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/sidecar"
	"github.com/ctx-tools/ctx/lib/store"
)

// Options configures Verify.
type Options struct {
	// Open returns the store to look packs up in, given the artifact's
	// directory.
	Open func(dir string) (*store.Store, error)
	// Keys returns the keys trusted for attestations verified with store s.
	Keys func(s *store.Store) ([]PublicKey, error)
	// KeysFrom says where trusted keys come from, for the reason given
	// when there are none.
	KeysFrom string
	// Signed makes an artifact without a bundle a finding (no_provenance)
	// even when its sidecar checks out.
	Signed bool
}

// Verify checks the artifact at path. With path+".sigstore.json" beside
// it, in this order: the DSSE signature is a trusted key's
// (bad_signature, untrusted_signature), the statement carries ctx's
// predicate (wrong_predicate_type), its subject is the artifact's bytes
// (modified, or wrong_subject when it names another artifact), the pack it
// names resolves and records that output with that digest, and the
// predicate and the sidecar, if any, agree with the pack (broken
// otherwise). Without a store (Open says store.ErrNoStore) the pack is not
// compared: the signature and the subject make the verdict, and Reason
// says so. Without a bundle it is sidecar.Verify. The error is for what
// stops verification itself: an unreadable artifact, no store for a
// sidecar, bad keys.
func Verify(path string, o Options) (*sidecar.Verdict, error) {
	bpath := path + Suffix
	b, err := readBundle(bpath)
	if errors.Is(err, fs.ErrNotExist) {
		v, err := sidecar.Verify(path, o.Open)
		if err == nil && o.Signed && v.OK() {
			v.Status, v.Reason = sidecar.NoProvenance, "no signed attestation "+bpath
		}
		return v, err
	}
	v := &sidecar.Verdict{Artifact: path, Bundle: bpath}
	readErr := err
	if v.Actual, err = sidecar.HashFile(path); err != nil {
		return nil, err
	}
	if readErr != nil {
		return v.Set(sidecar.Broken, "bundle cannot be read: %v", readErr), nil
	}
	bu, err := parseBundle(b)
	if err != nil {
		return v.Set(sidecar.Broken, "bundle does not parse: %v", err), nil
	}
	if bu.keyless() {
		return v.Set(sidecar.UntrustedSignature, "the bundle is signed with a certificate (keyless); ctx checks key-signed bundles only: use gh attestation verify or cosign verify-blob-attestation --certificate-identity"), nil
	}
	env := bu.DSSEEnvelope
	if env.PayloadType != PayloadType {
		return v.Set(sidecar.WrongPredicateType, "payload type %q is not an in-toto statement", clip(env.PayloadType)), nil
	}

	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	s, err := o.Open(dir)
	if errors.Is(err, store.ErrNoStore) {
		// A recipient may have only the artifact, its bundle and the
		// signer's key: what they prove is checked, the pack is not.
		s, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	keys, err := o.Keys(s)
	if err != nil {
		return nil, err
	}
	signer, status, reason := checkSignatures(bu, keys, o.KeysFrom)
	if signer == nil {
		return v.Set(status, "%s", reason), nil
	}
	v.Signer = signer.ID

	st, err := parseStatement(env.Payload)
	if err != nil {
		return v.Set(sidecar.Broken, "statement does not parse: %v", err), nil
	}
	if st.PredicateType != PredicateType {
		return v.Set(sidecar.WrongPredicateType, "predicate type %q is not %s", clip(st.PredicateType), PredicateType), nil
	}
	pred, pack, err := parsePredicate(st.Predicate)
	if err != nil {
		return v.Set(sidecar.Broken, "statement does not parse: %v", err), nil
	}
	v.ContextPack, v.URI = pack, pack.URI()

	subj, ok := subjectFor(st.Subject, v.Actual)
	if !ok {
		first := st.Subject[0]
		v.Output = first.Name
		v.Expected, _ = digest.Parse(first.Digest[digest.Algorithm])
		if matchesName(path, first.Name) {
			return v.Set(sidecar.Modified, "the artifact's content differs from the subject of the signed statement"), nil
		}
		return v.Set(sidecar.WrongSubject, "the signed statement is about %q, not this artifact", clip(first.Name)), nil
	}
	v.Output, v.Expected = subj.Name, v.Actual
	if s == nil {
		v.Inputs, v.Tools = record(*pred)
		v.Status, v.Reason = sidecar.Verified, "signature and subject checked; no store here to compare the statement with pack "+pack.String()
		return v, nil
	}

	m, err := manifest.Load(s, pack)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return v.Set(sidecar.Broken, "pack %s is not in the store %s", pack, s.Root()), nil
	case errors.Is(err, store.ErrCorrupt):
		return v.Set(sidecar.Broken, "pack %s is corrupt; ctx-verify --pack %s tells how", pack, pack), nil
	case err != nil:
		return nil, err
	}
	v.Created, v.Model = m.Created, m.Model.Identifier

	var want Statement
	if subj.Name == m.Hash.URI() && v.Actual == m.Hash {
		want = ForPack(m)
		v.Output = ""
	} else {
		i := slices.IndexFunc(m.Outputs, func(o manifest.Output) bool { return o.Name == subj.Name })
		switch {
		case i < 0:
			return v.Set(sidecar.Broken, "pack %s has no output named %q", m.Hash, subj.Name), nil
		case m.Outputs[i].ContentRef != v.Actual:
			return v.Set(sidecar.Broken, "pack %s records output %q as %s, not the signed subject", m.Hash, subj.Name, m.Outputs[i].ContentRef), nil
		}
		want = ForOutputs(m)[i]
		v.Confidence, v.Notes = m.Outputs[i].Confidence, m.Outputs[i].Notes
	}
	v.Inputs, v.Tools = record(want.Predicate)
	if diff := differences(*pred, want.Predicate); len(diff) > 0 {
		return v.Set(sidecar.Broken, "the signed statement disagrees with the pack's record on %s", strings.Join(diff, ", ")), nil
	}
	if reason, err := checkSidecar(path, m, subj.Name, v); err != nil {
		return nil, err
	} else if reason != "" {
		return v.Set(sidecar.Broken, "%s", reason), nil
	}
	v.Status = sidecar.Verified
	return v, nil
}

// MaxBundle bounds the size of a bundle file ctx-verify reads: actions/attest
// allows a predicate of 16 MB, which base64 makes about 22 MB.
const MaxBundle = 64 << 20

// readBundle reads a bundle file found beside an artifact by lib/found's
// rule: a regular file (a FIFO would hang, a device never end) of at most
// MaxBundle bytes.
func readBundle(path string) ([]byte, error) {
	b, err := found.ReadFile(path, found.Rule{What: "bundle", Max: MaxBundle})
	var fe *found.Error
	if errors.As(err, &fe) {
		return nil, errors.New(fe.Reason)
	}
	return b, err
}

// checkSignatures finds a trusted key whose signature the envelope
// carries. When there is none it says why: no trusted key at all, a
// signature naming a trusted key that does not verify with it (the
// statement was changed, or another key claims that key's name), or a key
// that is not trusted.
func checkSignatures(bu *bundle, keys []PublicKey, keysFrom string) (*PublicKey, string, string) {
	env := bu.DSSEEnvelope
	msg := PAE(env.PayloadType, env.Payload)
	for _, sig := range env.Signatures {
		for i := range keys {
			if keys[i].verify(msg, sig.Sig) {
				return &keys[i], "", ""
			}
		}
	}
	named := []string{}
	if h := bu.hint(); h != "" {
		named = append(named, h)
	}
	for _, sig := range env.Signatures {
		if sig.KeyID != "" && !slices.Contains(named, sig.KeyID) {
			named = append(named, sig.KeyID)
		}
	}
	for _, k := range keys {
		if slices.Contains(named, k.ID) || slices.Contains(named, k.cosignHint()) {
			// Which of the two cannot be told: only the key's name is in
			// the bundle, not the key.
			return nil, sidecar.BadSignature, fmt.Sprintf("the signature naming trusted key %s (%s) does not verify with that key: the statement was changed after signing, or another key signed it under that key's name", k.ID, k.Source)
		}
	}
	if len(keys) == 0 {
		return nil, sidecar.UntrustedSignature, "no trusted keys: give --key PUB or " + keysFrom
	}
	who := "an unnamed key"
	if len(named) > 0 {
		who = "key " + strings.Join(named, ", ")
	}
	return nil, sidecar.UntrustedSignature, fmt.Sprintf("signed by %s, which is not a trusted key (%s)", who, keysFrom)
}

// subjectFor returns the subject whose SHA-256 is d.
func subjectFor(subjects []Resource, d digest.Digest) (Resource, bool) {
	for _, s := range subjects {
		if s.Digest[digest.Algorithm] == d.Hex() {
			return s, true
		}
	}
	return Resource{}, false
}

// matchesName reports whether the artifact at path is plausibly the one
// named name: its slash path is name or ends with "/"+name.
func matchesName(path, name string) bool {
	p := filepath.ToSlash(filepath.Clean(path))
	return name != "" && (p == name || strings.HasSuffix(p, "/"+name))
}

// record returns the input digests (each once) and tool names of a
// predicate, as a verdict lists them.
func record(p Predicate) ([]digest.Digest, []string) {
	inputs, tools := []digest.Digest{}, []string{}
	for _, in := range p.Inputs {
		d, err := digest.Parse(in.Digest[digest.Algorithm])
		if err == nil && !slices.Contains(inputs, d) {
			inputs = append(inputs, d)
		}
	}
	for _, t := range p.Tools {
		tools = append(tools, t.Name)
	}
	return inputs, tools
}

// differences names the predicate fields in which got departs from want,
// comparing canonical forms. The pack's digest was matched already; its
// uri and mediaType must still say the same.
func differences(got, want Predicate) []string {
	var diff []string
	for _, f := range []struct {
		name string
		a, b any
	}{
		{"contextPack", got.ContextPack, want.ContextPack},
		{"runCreated", got.RunCreated, want.RunCreated},
		{"model", got.Model, want.Model},
		{"inputs", got.Inputs, want.Inputs},
		{"tools", got.Tools, want.Tools},
		{"confidence", got.Confidence, want.Confidence},
		{"notes", got.Notes, want.Notes},
		{"outputs", got.Outputs, want.Outputs},
	} {
		if !sameJSON(f.a, f.b) {
			diff = append(diff, f.name)
		}
	}
	return diff
}

func sameJSON(a, b any) bool {
	ca, err1 := canonJSON(a)
	cb, err2 := canonJSON(b)
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}

func canonJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return nil, err
	}
	return canon.Canonicalize(b)
}

// checkSidecar compares the artifact's sidecar, when there is one, with
// the pack's record of the signed output: it must name the same pack and
// output and agree with the pack. It returns why not, or "".
func checkSidecar(path string, m *manifest.Manifest, output string, v *sidecar.Verdict) (string, error) {
	p := path + sidecar.Suffix
	b, err := sidecar.ReadSidecar(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	v.Sidecar = p
	if err != nil {
		return fmt.Sprintf("sidecar cannot be read: %v", err), nil
	}
	sc, err := sidecar.Parse(b)
	if err != nil {
		return fmt.Sprintf("sidecar does not parse: %s", strings.TrimPrefix(err.Error(), "parsing sidecar: ")), nil
	}
	if sc.ContextPack != m.Hash || sc.Output != output {
		return fmt.Sprintf("the sidecar names output %q of pack %s, the signed statement output %q of pack %s", sc.Output, sc.ContextPack, output, m.Hash), nil
	}
	want := sidecar.Record(m, output)
	if want == nil {
		return fmt.Sprintf("pack %s has no output named %q", m.Hash, output), nil
	}
	if diff := sidecar.Differences(sc, *want); len(diff) > 0 {
		return fmt.Sprintf("sidecar disagrees with the pack's record of %q on %s", output, strings.Join(diff, ", ")), nil
	}
	return "", nil
}

// clip shortens a string read from a bundle for a message: a hostile
// bundle of many megabytes must not become a reason of that size.
func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
