// Package ref resolves the references by which users name packs and
// objects: sha256:<hex>, <hex>, ctx://<hex>, a unique hex prefix of at least
// four digits, "latest" or a tag name, each optionally followed by ^ (parent)
// or ~N (N-th ancestor). A snapshot of an agent session has no parent: its
// ^ is the session's snapshot taken before it (packlog.Previous). It also reads references from a stream of ctx
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
	"github.com/ctx-tools/ctx/lib/packlog"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/suggest"
)

// MinPrefix is the shortest hex prefix accepted as a reference.
const MinPrefix = 4

// ErrInvalid reports text that is not a reference at all.
var ErrInvalid = errors.New("invalid reference")

// Error reports a reference that names no usable pack or object. Ref is
// the reference as given. Err says why, for errors.Is and errors.As:
// ErrInvalid (not a reference), store.ErrNotFound (it names nothing here,
// or a parent that does not exist), an *AmbiguousError, or what went wrong
// reading the store (store.ErrCorrupt, I/O errors).
type Error struct {
	Ref string
	Err error

	named bool // Err's text already names the reference
}

// Error returns a sentence that names the reference.
func (e *Error) Error() string {
	if e.named {
		return e.Err.Error()
	}
	return e.Ref + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// notFound is a sentence that errors.Is matches to store.ErrNotFound,
// so messages need no ": not found" tail.
type notFound string

func (e notFound) Error() string        { return string(e) }
func (e notFound) Is(target error) bool { return target == store.ErrNotFound }

// invalid returns a reference error wrapping ErrInvalid; detail, if any,
// says what is wrong.
func invalid(r, detail string) *Error {
	err := fmt.Errorf("%w %q", ErrInvalid, r)
	if detail != "" {
		err = fmt.Errorf("%w %q: %s", ErrInvalid, r, detail)
	}
	return &Error{Ref: r, Err: err, named: true}
}

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
// if no such pack exists (Load says so); prefixes are matched against
// finalized packs only. Its errors are *Error.
func Resolve(s *store.Store, r string) (digest.Digest, error) {
	base, up, err := split(r)
	if err != nil {
		return digest.Digest{}, err
	}
	d, err := resolveBase(s, r, base, "pack", s.Packs)
	if err != nil {
		return d, err
	}
	for range up {
		parent, err := parentOf(s, d)
		if err != nil {
			return d, &Error{Ref: r, Err: err}
		}
		if parent.IsZero() {
			return d, &Error{Ref: r, Err: notFound(fmt.Sprintf("pack %s has no parent (nor an earlier snapshot of its session)", d))}
		}
		d = parent
	}
	return d, nil
}

// TagName returns the tag r names as a whole (r is a tag name, with no
// ^ or ~N), and whether it is one: what Resolve reads from refs/tags/.
// Hashes, hash prefixes and latest are not tags.
func TagName(r string) (string, bool) {
	base, up, err := split(r)
	if err != nil || up > 0 || base == store.Latest {
		return "", false
	}
	if digest.IsHex(base) && len(base) >= MinPrefix {
		return "", false
	}
	if store.CheckTagName(base) != nil {
		return "", false
	}
	return base, true
}

// parentOf returns the parent of pack d: from its packs/ entry, or from
// its manifest when the pack has no entry here (only its objects copied).
// A pack without a parent that is a snapshot of an agent session has the
// session's previous snapshot in its place.
func parentOf(s *store.Store, d digest.Digest) (digest.Digest, error) {
	return Predecessor(s, d)
}

// Predecessor returns what pack d follows: its parent, else, for a
// snapshot of an agent session, the snapshot taken before it; zero if
// neither exists.
func Predecessor(s *store.Store, d digest.Digest) (digest.Digest, error) {
	p, err := parent(s, d)
	if err != nil || !p.IsZero() {
		return p, err
	}
	return packlog.Previous(s, d)
}

func parent(s *store.Store, d digest.Digest) (digest.Digest, error) {
	sum, err := manifest.LoadSummary(s, d)
	if err == nil {
		return sum.Parent, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return digest.Digest{}, err
	}
	m, err := manifest.Load(s, d)
	if err != nil {
		return digest.Digest{}, loadErr(d, err)
	}
	return m.Parent, nil
}

// ResolveObject returns the object named by r: a full hash or a unique
// prefix of an object in the store, or a pack reference (whose manifest
// object it names). Its errors are *Error.
func ResolveObject(s *store.Store, r string) (digest.Digest, error) {
	base, up, err := split(r)
	if err != nil {
		return digest.Digest{}, err
	}
	if up > 0 {
		return Resolve(s, r)
	}
	d, err := resolveBase(s, r, base, "object", s.Objects)
	if err != nil {
		return d, err
	}
	switch ok, err := s.Has(d); {
	case err != nil:
		return d, &Error{Ref: r, Err: err}
	case !ok:
		return d, &Error{Ref: r, Err: notFound(fmt.Sprintf("no object %s in this store", d)), named: strings.Contains(strings.ToLower(r), d.Hex())}
	}
	return d, nil
}

// Load resolves r and loads the finalized pack it names. Its errors are
// *Error.
func Load(s *store.Store, r string) (*manifest.Manifest, error) {
	d, err := Resolve(s, r)
	if err != nil {
		return nil, err
	}
	return LoadResolved(s, r, d)
}

// LoadResolved loads pack d, which r resolved to, with errors (*Error)
// that name r.
func LoadResolved(s *store.Store, r string, d digest.Digest) (*manifest.Manifest, error) {
	m, err := manifest.Load(s, d)
	if err != nil {
		return nil, loadError(r, d, err)
	}
	return m, nil
}

// LoadResolvedPair is LoadResolved of the packs a and b, which ra and rb
// resolved to, loaded as manifest.LoadPair loads them.
func LoadResolvedPair(s *store.Store, ra, rb string, a, b digest.Digest) (ma, mb *manifest.Manifest, errA, errB error) {
	ma, mb, errA, errB = manifest.LoadPair(s, a, b)
	if errA != nil {
		errA = loadError(ra, a, errA)
	}
	if errB != nil {
		errB = loadError(rb, b, errB)
	}
	return ma, mb, errA, errB
}

// LoadResolvedForLike is LoadResolved loading pack d as
// manifest.LoadForLike loads it, for LoadResolvedLike.
func LoadResolvedForLike(s *store.Store, r string, d digest.Digest) (*manifest.Manifest, *manifest.Like, error) {
	m, like, err := manifest.LoadForLike(s, d)
	if err != nil {
		return nil, nil, loadError(r, d, err)
	}
	return m, like, nil
}

// LoadResolvedLike is LoadResolved loading pack d as manifest.LoadLike
// loads it, taking like's steps.
func LoadResolvedLike(s *store.Store, r string, d digest.Digest, like *manifest.Like) (*manifest.Manifest, error) {
	m, err := manifest.LoadLike(s, d, like)
	if err != nil {
		return nil, loadError(r, d, err)
	}
	return m, nil
}

// loadError is the *Error of loading pack d, which r resolved to.
func loadError(r string, d digest.Digest, err error) error {
	// A reference that spells out the hash is named by the message.
	return &Error{Ref: r, Err: loadErr(d, err), named: strings.Contains(strings.ToLower(r), d.Hex())}
}

// loadErr says in a sentence that pack d is absent; other errors (a
// manifest that is not a finalized pack, corruption, I/O) keep their own
// words, which name d.
func loadErr(d digest.Digest, err error) error {
	if errors.Is(err, store.ErrNotFound) && !errors.Is(err, manifest.ErrNotPack) {
		return notFound(fmt.Sprintf("no pack %s in this store", d))
	}
	return err
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
					return "", 0, invalid(r, "~ must be followed by a number")
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
		return "", 0, invalid(r, "")
	}
	return base, up, nil
}

// resolveBase resolves a reference without ^ or ~N; kind ("pack" or
// "object") is what a hash prefix is matched against.
func resolveBase(s *store.Store, r, base, kind string, list func(prefix string) ([]digest.Digest, error)) (digest.Digest, error) {
	hex, isHash := strings.CutPrefix(base, "sha256:")
	if !isHash {
		hex, isHash = strings.CutPrefix(base, "ctx://")
	}
	if len(hex) == digest.HexSize && digest.IsHex(hex) {
		d, err := digest.Parse(hex)
		if err != nil {
			return d, &Error{Ref: r, Err: err}
		}
		return d, nil
	}
	if !isHash && (base == store.Latest || !digest.IsHex(base) || len(base) < MinPrefix) {
		if base == store.Latest {
			d, err := s.Ref(store.Latest)
			switch {
			case errors.Is(err, store.ErrNotFound):
				return d, &Error{Ref: r, Err: notFound("latest names no pack: none has been made in this store yet"), named: true}
			case err != nil:
				return d, &Error{Ref: r, Err: err}
			}
			return d, nil
		}
		if err := store.CheckTagName(base); err != nil {
			if digest.IsHex(base) {
				return digest.Digest{}, invalid(r, fmt.Sprintf("a hash prefix needs at least %d hex digits", MinPrefix))
			}
			return digest.Digest{}, invalid(r, "not a hash, hash prefix, latest or tag name")
		}
		d, err := s.Ref(base)
		switch {
		case errors.Is(err, store.ErrNotFound) && digest.IsHex(base):
			return d, &Error{Ref: r, Err: notFound(fmt.Sprintf("no pack or tag named %q (a hash prefix needs at least %d hex digits)", base, MinPrefix)), named: true}
		case errors.Is(err, store.ErrNotFound):
			return d, &Error{Ref: r, Err: notFound(fmt.Sprintf("no pack or tag named %q%s", base, didYouMean(s, base))), named: true}
		case err != nil:
			return d, &Error{Ref: r, Err: err}
		}
		return d, nil
	}
	if len(hex) < MinPrefix || !digest.IsHex(hex) {
		return digest.Digest{}, invalid(r, fmt.Sprintf("a hash prefix needs at least %d hex digits", MinPrefix))
	}
	cands, err := list(strings.ToLower(hex))
	if err != nil {
		return digest.Digest{}, &Error{Ref: r, Err: err}
	}
	switch len(cands) {
	case 0:
		return digest.Digest{}, &Error{Ref: r, Err: notFound(fmt.Sprintf("no %s matches %q", kind, r)), named: true}
	case 1:
		return cands[0], nil
	}
	slices.SortFunc(cands, func(a, b digest.Digest) int { return bytes.Compare(a[:], b[:]) })
	return digest.Digest{}, &Error{Ref: r, Err: &AmbiguousError{Ref: r, Candidates: cands}, named: true}
}

// didYouMean names the tags (and latest) that name is probably a typo of,
// as "; did you mean …?", or "" when none is near.
func didYouMean(s *store.Store, name string) string {
	names := []string{store.Latest}
	tags, _, _ := s.Tags()
	for _, t := range tags {
		names = append(names, t.Name)
	}
	near := suggest.Nearest(name, names)
	if len(near) == 0 {
		return ""
	}
	return "; did you mean " + suggest.Join(near, "") + "?"
}
