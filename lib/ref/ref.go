// Package ref resolves the references by which users name packs and
// objects: sha256:<hex>, <hex>, ctx://<hex>, a unique hex prefix of at least
// four digits, "latest" or a tag name, each optionally followed by ^ (parent)
// or ~N (N-th ancestor). It also reads references from a stream of ctx
// output, so that any tool's output line names a pack for the next tool.
package ref

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// MinPrefix is the shortest hex prefix accepted as a reference.
const MinPrefix = 4

// ErrInvalid reports text that is not a reference at all.
var ErrInvalid = errors.New("invalid reference")

// AmbiguousError reports a prefix that matches several packs or objects.
type AmbiguousError struct {
	Ref        string
	Candidates []digest.Digest
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "reference %q is ambiguous: it matches %d", e.Ref, len(e.Candidates))
	for i, c := range e.Candidates {
		if i == 10 {
			fmt.Fprintf(&b, ", … (%d more)", len(e.Candidates)-i)
			break
		}
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(c.String())
	}
	return b.String()
}

// Resolve returns the pack named by r. A full hash is returned as is, even
// if no such pack exists (manifest.Load says so); prefixes are matched
// against finalized packs only.
func Resolve(s *store.Store, r string) (digest.Digest, error) {
	base, up, err := split(r)
	if err != nil {
		return digest.Digest{}, err
	}
	d, err := resolveBase(s, r, base, s.Packs)
	if err != nil {
		return d, err
	}
	for range up {
		parent, err := parentOf(s, d)
		if err != nil {
			return d, fmt.Errorf("resolving %s: %w", r, err)
		}
		if parent.IsZero() {
			return d, fmt.Errorf("resolving %s: pack %s has no parent: %w", r, d, store.ErrNotFound)
		}
		d = parent
	}
	return d, nil
}

// parentOf returns the parent of pack d: from its packs/ entry, or from
// its manifest when the pack has no entry here (only its objects copied).
func parentOf(s *store.Store, d digest.Digest) (digest.Digest, error) {
	sum, err := manifest.LoadSummary(s, d)
	if err == nil {
		return sum.Parent, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return digest.Digest{}, err
	}
	m, err := manifest.Load(s, d)
	if err != nil {
		return digest.Digest{}, err
	}
	return m.Parent, nil
}

// ResolveObject returns the object named by r: a full hash, a unique prefix
// among all objects, or a pack reference (whose manifest object it names).
func ResolveObject(s *store.Store, r string) (digest.Digest, error) {
	base, up, err := split(r)
	if err != nil {
		return digest.Digest{}, err
	}
	if up > 0 {
		return Resolve(s, r)
	}
	return resolveBase(s, r, base, s.Objects)
}

// split separates trailing ^ and ~N suffixes from the base reference.
func split(r string) (base string, up int, err error) {
	base = strings.TrimSpace(r)
	for {
		switch {
		case strings.HasSuffix(base, "^"):
			base = base[:len(base)-1]
			up++
			continue
		case strings.LastIndexByte(base, '~') > 0:
			i := strings.LastIndexByte(base, '~')
			n := 1
			if num := base[i+1:]; num != "" {
				v, err := strconv.Atoi(num)
				if err != nil || v < 0 {
					return "", 0, fmt.Errorf("%w %q: ~ must be followed by a number", ErrInvalid, r)
				}
				n = v
			}
			base = base[:i]
			up += n
			continue
		}
		break
	}
	if base == "" {
		return "", 0, fmt.Errorf("%w %q", ErrInvalid, r)
	}
	return base, up, nil
}

func resolveBase(s *store.Store, r, base string, list func(prefix string) ([]digest.Digest, error)) (digest.Digest, error) {
	hex, isHash := strings.CutPrefix(base, "sha256:")
	if !isHash {
		hex, isHash = strings.CutPrefix(base, "ctx://")
	}
	if len(hex) == digest.HexSize && digest.IsHex(hex) {
		return digest.Parse(hex)
	}
	if !isHash && (base == store.Latest || !digest.IsHex(base) || len(base) < MinPrefix) {
		if base == store.Latest {
			d, err := s.Ref(store.Latest)
			if errors.Is(err, store.ErrNotFound) {
				return d, fmt.Errorf("latest: no pack has been made in this store yet: %w", store.ErrNotFound)
			}
			return d, err
		}
		if err := store.CheckTagName(base); err != nil {
			if digest.IsHex(base) {
				return digest.Digest{}, fmt.Errorf("%w %q: a hash prefix needs at least %d hex digits", ErrInvalid, r, MinPrefix)
			}
			return digest.Digest{}, fmt.Errorf("%w %q: not a hash, hash prefix, latest or tag name", ErrInvalid, r)
		}
		d, err := s.Ref(base)
		if errors.Is(err, store.ErrNotFound) {
			if digest.IsHex(base) {
				return d, fmt.Errorf("no pack or tag named %q (a hash prefix needs at least %d hex digits): %w", base, MinPrefix, store.ErrNotFound)
			}
			return d, fmt.Errorf("no pack or tag named %q: %w", base, store.ErrNotFound)
		}
		return d, err
	}
	if len(hex) < MinPrefix || !digest.IsHex(hex) {
		return digest.Digest{}, fmt.Errorf("%w %q: a hash prefix needs at least %d hex digits", ErrInvalid, r, MinPrefix)
	}
	cands, err := list(strings.ToLower(hex))
	if err != nil {
		return digest.Digest{}, err
	}
	switch len(cands) {
	case 0:
		return digest.Digest{}, fmt.Errorf("no pack matches %q: %w", r, store.ErrNotFound)
	case 1:
		return cands[0], nil
	}
	slices.SortFunc(cands, func(a, b digest.Digest) int { return bytes.Compare(a[:], b[:]) })
	return digest.Digest{}, &AmbiguousError{Ref: r, Candidates: cands}
}

// Load resolves r and loads the finalized pack it names. Errors name the
// reference when it is not already visible in them (a prefix, a tag, ^).
func Load(s *store.Store, r string) (*manifest.Manifest, error) {
	d, err := Resolve(s, r)
	if err != nil {
		return nil, err
	}
	m, err := manifest.Load(s, d)
	if err != nil && !strings.Contains(r, d.Hex()) {
		return nil, fmt.Errorf("%s: %w", r, err)
	}
	return m, err
}
