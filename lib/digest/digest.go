// Package digest provides the SHA-256 content digest that names every object,
// manifest and pack in a ctx store.
package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
)

// Algorithm is the only hash algorithm ctx uses.
const Algorithm = "sha256"

// Size is the length of a digest in bytes.
const Size = sha256.Size

// HexSize is the length of a digest's hex form.
const HexSize = 2 * Size

// Digest is a SHA-256 digest. Its text form is "sha256:<64 lowercase hex>".
// The zero value is not a valid digest; IsZero reports it.
type Digest [Size]byte

// Of returns the digest of b.
func Of(b []byte) Digest { return Digest(sha256.Sum256(b)) }

// OfReader returns the digest of everything read from r and its length.
func OfReader(r io.Reader) (Digest, int64, error) {
	h := NewHasher()
	n, err := io.Copy(h, r)
	return h.Digest(), n, err
}

// Parse parses a digest in one of the full forms "sha256:<hex>",
// "ctx://<hex>" or a bare "<hex>" of 64 lowercase or uppercase hex digits.
func Parse(s string) (Digest, error) {
	h := s
	switch {
	case strings.HasPrefix(h, "sha256:"):
		h = h[len("sha256:"):]
	case strings.HasPrefix(h, "ctx://"):
		h = h[len("ctx://"):]
	}
	var d Digest
	if len(h) != HexSize {
		return d, fmt.Errorf("invalid digest %q: want sha256:<64 hex digits>", s)
	}
	// Decoded by hand: this runs for every reference of every manifest read.
	for i := range d {
		hi, ok1 := unhex(h[2*i])
		lo, ok2 := unhex(h[2*i+1])
		if !ok1 || !ok2 {
			return Digest{}, fmt.Errorf("invalid digest %q: want sha256:<64 hex digits>", s)
		}
		d[i] = hi<<4 | lo
	}
	return d, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// IsHex reports whether s is non-empty and consists only of hex digits.
func IsHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// String returns "sha256:<hex>".
func (d Digest) String() string { return Algorithm + ":" + d.Hex() }

// Hex returns the 64 lowercase hex digits.
func (d Digest) Hex() string { return hex.EncodeToString(d[:]) }

// URI returns "ctx://<hex>".
func (d Digest) URI() string { return "ctx://" + d.Hex() }

// Short returns the first 12 hex digits, for human-readable output.
func (d Digest) Short() string { return d.Hex()[:12] }

// IsZero reports whether d is the zero value.
func (d Digest) IsZero() bool { return d == Digest{} }

// MarshalText implements encoding.TextMarshaler.
func (d Digest) MarshalText() ([]byte, error) {
	if d.IsZero() {
		return nil, errors.New("marshalling a zero digest")
	}
	return []byte(d.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler; it requires the
// "sha256:" prefix (not a bare hex or ctx:// form, which Parse takes) and,
// as Parse, takes upper- or lowercase hex digits: "sha256:AB…" is read as
// the digest MarshalText writes as "sha256:ab…".
func (d *Digest) UnmarshalText(b []byte) error {
	s := string(b)
	if !strings.HasPrefix(s, "sha256:") {
		return fmt.Errorf("invalid digest %q: want sha256:<64 hex digits>", s)
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Hasher computes a Digest over the bytes written to it.
type Hasher struct{ h hash.Hash }

// NewHasher returns a Hasher.
func NewHasher() *Hasher { return &Hasher{h: sha256.New()} }

// Write implements io.Writer; it never fails.
func (h *Hasher) Write(p []byte) (int, error) { return h.h.Write(p) }

// Digest returns the digest of the bytes written so far.
func (h *Hasher) Digest() Digest {
	var d Digest
	h.h.Sum(d[:0])
	return d
}

// MismatchError reports content whose digest is not the expected one.
type MismatchError struct {
	Want, Got Digest
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("digest mismatch: want %s, got %s", e.Want, e.Got)
}
