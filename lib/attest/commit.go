package attest

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json"
)

// CommitPredicateType names the predicate of a commit's statement: which
// recorded agent steps wrote which lines of the files the commit changed.
const CommitPredicateType = "https://ctx-tools.github.io/attestation/commit-lines/v0.1"

// CommitStatement is an in-toto Statement v1 whose subject is a git
// commit (digest algorithm gitCommit, in-toto's convention for git
// objects) and whose predicate lists the packs and the line ranges they
// wrote.
type CommitStatement struct {
	Type          string          `json:"_type"`
	Subject       []Resource      `json:"subject"`
	PredicateType string          `json:"predicateType"`
	Predicate     CommitPredicate `json:"predicate"`
}

// CommitPredicate is the attribution of the lines of the files a commit
// changed, as ctx-blame gives it at that commit.
type CommitPredicate struct {
	Packs []Resource   `json:"packs"`
	Files []CommitFile `json:"files"`
}

// CommitFile is one file's attributed ranges (lines nobody recorded are
// left out).
type CommitFile struct {
	Path   string        `json:"path"`
	Ranges []CommitRange `json:"ranges"`
}

// CommitRange is a run of lines, 1-based and inclusive, that a pack's
// step wrote ("agent") or wrote and a person changed ("mixed"), with the
// SHA-256 of its lines.
type CommitRange struct {
	Start       int    `json:"start_line"`
	End         int    `json:"end_line"`
	By          string `json:"by"`
	Pack        string `json:"pack"`
	Step        int    `json:"step"`
	ContentHash string `json:"content_hash"`
}

// ForCommit returns the statement of commit (40 hex digits) with the
// attributed files, naming every pack they cite.
func ForCommit(commit string, files []CommitFile) CommitStatement {
	st := CommitStatement{
		Type:          StatementType,
		Subject:       []Resource{{Name: "commit:" + commit, Digest: map[string]string{"gitCommit": commit}}},
		PredicateType: CommitPredicateType,
		Predicate:     CommitPredicate{Packs: []Resource{}, Files: files},
	}
	if st.Predicate.Files == nil {
		st.Predicate.Files = []CommitFile{}
	}
	var packs []string
	for _, f := range files {
		for _, r := range f.Ranges {
			if !slices.Contains(packs, r.Pack) {
				packs = append(packs, r.Pack)
			}
		}
	}
	slices.Sort(packs)
	for _, p := range packs {
		st.Predicate.Packs = append(st.Predicate.Packs, Resource{URI: "ctx://" + p[len("sha256:"):], Digest: map[string]string{"sha256": p[len("sha256:"):]}, MediaType: ManifestMediaType})
	}
	return st
}

// EncodeCommit returns the statement as canonical JSON.
func EncodeCommit(st CommitStatement) ([]byte, error) { return encode(st, "statement") }

// SignCommit signs a commit's statement into a Sigstore bundle.
func (s *Signer) SignCommit(st CommitStatement) ([]byte, error) {
	b, err := EncodeCommit(st)
	if err != nil {
		return nil, err
	}
	return s.Sign(b)
}

// ErrNotCommitStatement reports a bundle that is not a commit's.
var ErrNotCommitStatement = errors.New("not a commit statement")

// VerifyCommit checks that bundle is a commit statement signed by one of
// keys (keysFrom says where they came from). It returns the statement and
// the key; or, when no trusted key signed it, the status (BadSignature or
// UntrustedSignature, as lib/sidecar names them) and why; or an error for
// a bundle that is not a commit's signed statement.
func VerifyCommit(b []byte, keys []PublicKey, keysFrom string) (st *CommitStatement, key *PublicKey, status, why string, err error) {
	bu, err := parseBundle(b)
	if err != nil {
		return nil, nil, "", "", err
	}
	if bu.DSSEEnvelope.PayloadType != PayloadType {
		return nil, nil, "", "", fmt.Errorf("payload type %q, want %q", clip(bu.DSSEEnvelope.PayloadType), PayloadType)
	}
	var s CommitStatement
	if err := json.Unmarshal(bu.DSSEEnvelope.Payload, &s, json.RejectUnknownMembers(true)); err != nil {
		return nil, nil, "", "", fmt.Errorf("%w: %v", ErrNotCommitStatement, err)
	}
	if s.Type != StatementType || s.PredicateType != CommitPredicateType || len(s.Subject) != 1 || s.Subject[0].Digest["gitCommit"] == "" {
		return nil, nil, "", "", fmt.Errorf("%w: predicate type %q", ErrNotCommitStatement, clip(s.PredicateType))
	}
	key, status, why = checkSignatures(bu, keys, keysFrom)
	if key == nil {
		return &s, nil, status, why, nil
	}
	return &s, key, "", "", nil
}
