package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/ctx-tools/ctx/lib/attest"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/visible"
)

// Referrer is an artifact attached to a pack's OCI manifest (its
// subject): a sidecar, a signed attestation bundle, an HTML report.
type Referrer struct {
	Digest       string   `json:"digest"`
	ArtifactType string   `json:"artifact_type"`
	Files        []string `json:"files"`
}

// attachTypes maps file name suffixes to the artifact types of
// attachments, most specific first.
var attachTypes = []struct{ suffix, typ string }{
	{".ctx.json", SidecarMediaType},
	{".sigstore.json", BundleMediaType},
	{".html", ReportMediaType},
}

// AttachType returns the artifact type of a file attached to a pack,
// from its name.
func AttachType(name string) (string, error) {
	for _, t := range attachTypes {
		if strings.HasSuffix(name, t.suffix) {
			return t.typ, nil
		}
	}
	return "", fmt.Errorf("cannot attach %s: its name must end in .ctx.json (a sidecar), .sigstore.json (an attestation bundle) or .html (a report)", name)
}

// maxAttachment bounds an attachment, pushed and pulled in memory.
const maxAttachment = 64 << 20

// ArgError reports a bad argument of a push — a tag, an attachment's
// name — found before anything was written: a usage error.
type ArgError struct{ msg string }

func (e *ArgError) Error() string { return e.msg }

// CheckTags refuses a tag that is not a valid OCI tag.
func CheckTags(tags []string) error {
	for _, t := range tags {
		if !ValidTag(t) {
			return &ArgError{fmt.Sprintf("invalid tag %s: a tag is [A-Za-z0-9_][A-Za-z0-9._-]{0,127}", quote(t))}
		}
	}
	return nil
}

// attachment is a file to attach, read and checked.
type attachment struct {
	name, typ   string
	b           []byte
	annotations map[string]string
}

// loadAttachments reads and checks every file to attach — its name
// gives a kind (AttachType), it is a regular file of at most 64 MiB, a
// bundle parses as one — so that a bad one is found before the first
// upload.
func loadAttachments(files []string) ([]attachment, error) {
	var out []attachment
	for _, name := range files {
		typ, err := AttachType(name)
		if err != nil {
			return nil, &ArgError{err.Error()}
		}
		b, err := found.ReadFile(name, found.Rule{What: "attachment", Max: maxAttachment})
		if err != nil {
			return nil, err
		}
		a := attachment{name: name, typ: typ, b: b}
		if typ == BundleMediaType {
			// cosign lists attestations by these (dev.sigstore.bundle.*).
			a.annotations, err = attest.BundleAnnotations(b)
			if err != nil {
				return nil, fmt.Errorf("attachment %s: %w", name, err)
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// CheckAttachments does every check Push makes of files to attach,
// for a caller to run before it creates anything (a layout directory).
func CheckAttachments(files []string) error {
	_, err := loadAttachments(files)
	return err
}

// Attach pushes each file as a referrer of the pack manifest subject,
// one artifact per file, titled with the file's base name. The
// artifact's created annotation is the pack's, so the same file attached
// twice is the same artifact. Every file is checked before the first
// upload.
func (c *Client) Attach(ctx context.Context, subject ocispec.Descriptor, created string, files []string) ([]Referrer, error) {
	as, err := loadAttachments(files)
	if err != nil {
		return nil, err
	}
	return c.attach(ctx, subject, created, as)
}

func (c *Client) attach(ctx context.Context, subject ocispec.Descriptor, created string, as []attachment) ([]Referrer, error) {
	var out []Referrer
	for _, a := range as {
		name, typ, b := a.name, a.typ, a.b
		base := filepath.Base(name)
		layer := ocispec.Descriptor{
			MediaType:   typ,
			Digest:      ociDigest(digest.Of(b)),
			Size:        int64(len(b)),
			Annotations: map[string]string{ocispec.AnnotationTitle: base},
		}
		annotations := map[string]string{ocispec.AnnotationCreated: created}
		maps.Copy(annotations, a.annotations)
		m := ocispec.Manifest{
			Versioned:    specs.Versioned{SchemaVersion: 2},
			MediaType:    ocispec.MediaTypeImageManifest,
			ArtifactType: typ,
			Config:       plain(EmptyDescriptor),
			Layers:       []ocispec.Descriptor{layer},
			Subject:      &ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size},
			Annotations:  annotations,
		}
		mb, desc, err := encodeManifest(m)
		if err != nil {
			return nil, err
		}
		for _, blob := range []struct {
			d ocispec.Descriptor
			b []byte
		}{{EmptyDescriptor, emptyJSON}, {layer, b}} {
			ok, err := c.ep.exists(ctx, blob.d)
			if err != nil {
				return nil, fmt.Errorf("attaching %s: %w", name, err)
			}
			if !ok {
				if err := c.ep.push(ctx, plain(blob.d), bytesOpener(blob.b)); err != nil {
					return nil, fmt.Errorf("attaching %s: %w", name, err)
				}
			}
		}
		if err := c.ep.pushManifest(ctx, desc, mb, nil); err != nil {
			return nil, fmt.Errorf("attaching %s: %w", name, err)
		}
		out = append(out, Referrer{Digest: desc.Digest.String(), ArtifactType: typ, Files: []string{base}})
	}
	return out, nil
}

func plain(d ocispec.Descriptor) ocispec.Descriptor {
	d.Data = nil
	return d
}

// PackDescriptor returns the descriptor of the pack manifest a hash tag
// names on the remote.
func (c *Client) PackDescriptor(ctx context.Context, tag string) (ocispec.Descriptor, error) {
	return c.ep.resolve(ctx, tag)
}

// Bounds on a pack's referrers, so that a registry cannot list them
// forever or make a pull fetch without end.
const (
	// MaxReferrers is the most referrers of one pack a pull considers.
	MaxReferrers = 10000
	// MaxReferrerPages is the most pages (Link: rel="next") of a
	// referrers listing that are followed.
	MaxReferrerPages = 100
	// maxReferrerLayers is the most files one referrer may carry.
	maxReferrerLayers = 16
)

// ErrTooMany reports a remote listing more than a bound allows.
var ErrTooMany = errors.New("too many")

// ReferrerOptions choose which referrers FetchReferrers writes.
type ReferrerOptions struct {
	// AllKinds writes referrers of any artifact type; without it only
	// the kinds ctx attaches (AttachType: sidecars, attestation bundles,
	// reports), each a single file whose name ends as its kind's does.
	AllKinds bool
}

// FetchReferrers writes the files of the referrers of the pack manifest
// subject into dir, under their titles (plain file names only, none
// hidden by lib/visible's rule), and returns what it wrote and how many
// referrers it left out for being of another kind. Referrers are fetched
// --jobs at a time; every referrer manifest is fetched and checked before
// the first file is written. A file that exists with other bytes is an
// error; with the same bytes it is left alone.
func (c *Client) FetchReferrers(ctx context.Context, subject ocispec.Descriptor, dir string, opts ReferrerOptions) ([]Referrer, int, error) {
	descs, err := c.ep.referrers(ctx, plain(subject))
	if err != nil {
		return nil, 0, fmt.Errorf("listing referrers of %s: %w", subject.Digest, err)
	}
	if len(descs) > MaxReferrers {
		return nil, 0, fmt.Errorf("%w: %s has %d referrers on the remote, more than %d", ErrTooMany, subject.Digest, len(descs), MaxReferrers)
	}
	slices.SortFunc(descs, func(a, b ocispec.Descriptor) int { return strings.Compare(a.Digest.String(), b.Digest.String()) })

	// First every manifest, checked; then the files.
	type referrer struct {
		r      Referrer
		layers []ocispec.Descriptor
		skip   bool
	}
	refs := make([]referrer, len(descs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.jobs)
	for i, d := range descs {
		g.Go(func() error {
			if d.Size > maxManifest {
				return fmt.Errorf("%w: referrer %s is %d bytes, more than %d", ErrBadLayer, d.Digest, d.Size, maxManifest)
			}
			_, mb, err := c.ep.fetchManifest(gctx, d.Digest.String())
			if err != nil {
				return fmt.Errorf("fetching referrer %s: %w", d.Digest, err)
			}
			var m ocispec.Manifest
			if err := json.Unmarshal(mb, &m); err != nil {
				return fmt.Errorf("%w: referrer %s: %v", ErrBadLayer, d.Digest, err)
			}
			if m.Subject == nil || m.Subject.Digest != subject.Digest {
				return fmt.Errorf("%w: referrer %s does not name the pack as its subject", ErrBadLayer, d.Digest)
			}
			if !opts.AllKinds && !ctxKind(m.ArtifactType) {
				refs[i].skip = true
				return nil
			}
			if len(m.Layers) > maxReferrerLayers || !opts.AllKinds && len(m.Layers) != 1 {
				return fmt.Errorf("%w: referrer %s has %d files", ErrBadLayer, d.Digest, len(m.Layers))
			}
			for j, l := range m.Layers {
				name := l.Annotations[ocispec.AnnotationTitle]
				if err := manifest.CheckName(name); err != nil || strings.Contains(name, "/") || !plainName(name) {
					return fmt.Errorf("%w: referrer %s: layers[%d]: title %s is not a plain file name", ErrBadLayer, d.Digest, j, quote(name))
				}
				if !opts.AllKinds {
					if typ, err := AttachType(name); err != nil || typ != m.ArtifactType || l.MediaType != m.ArtifactType {
						return fmt.Errorf("%w: referrer %s: %s is not a file of its kind %s (pull with --all-kinds to take any file)", ErrBadLayer, d.Digest, quote(name), quote(m.ArtifactType))
					}
				}
				if l.Size < 0 || l.Size > maxAttachment {
					return fmt.Errorf("%w: referrer %s: %s is %d bytes, more than %d", ErrBadLayer, d.Digest, quote(name), l.Size, maxAttachment)
				}
			}
			refs[i] = referrer{r: Referrer{Digest: d.Digest.String(), ArtifactType: m.ArtifactType, Files: []string{}}, layers: m.Layers}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	// One file per name: two referrers may carry the same file, not two
	// files under one name.
	type file struct {
		desc     ocispec.Descriptor
		referrer string
	}
	files := map[string]file{}
	var names []string
	for _, r := range refs {
		for _, l := range r.layers {
			name := l.Annotations[ocispec.AnnotationTitle]
			f, dup := files[name]
			if dup && f.desc.Digest != l.Digest {
				return nil, 0, fmt.Errorf("%w: referrers %s and %s both carry a file %s, with other content", ErrBadLayer, f.referrer, r.r.Digest, quote(name))
			}
			if !dup {
				files[name] = file{l, r.r.Digest}
				names = append(names, name)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(c.jobs)
	for _, name := range names {
		f := files[name]
		g.Go(func() error {
			b, err := c.fetchSmall(gctx, f.desc, maxAttachment)
			if err != nil {
				return fmt.Errorf("referrer %s: %s: %w", f.referrer, name, err)
			}
			if err := writeFileNew(filepath.Join(dir, name), b); err != nil {
				return fmt.Errorf("referrer %s: %w", f.referrer, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	out := []Referrer{}
	skipped := 0
	for _, r := range refs {
		if r.skip {
			skipped++
			continue
		}
		for _, l := range r.layers {
			r.r.Files = append(r.r.Files, l.Annotations[ocispec.AnnotationTitle])
		}
		out = append(out, r.r)
	}
	return out, skipped, nil
}

// ctxKind reports whether t is the artifact type of an attachment ctx
// pushes.
func ctxKind(t string) bool {
	for _, a := range attachTypes {
		if a.typ == t {
			return true
		}
	}
	return false
}

// plainName reports whether a file name from a remote can be written
// and shown as it is: UTF-8 without a character lib/visible hides (C0
// and C1 controls, bidirectional and invisible formatting characters,
// line and paragraph separators, tags).
func plainName(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if visible.Hidden(r) || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// quote quotes untrusted text for a message, clipped, with every
// character lib/visible hides escaped.
func quote(s string) string { return strconv.Quote(visible.Escape(clip(s))) }

// writeFileNew writes b to name unless name holds other bytes already.
// What is there is compared only if it is a regular file: a symlink or a
// pipe in its place is neither followed nor read.
func writeFileNew(name string, b []byte) error {
	if fi, err := os.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s exists and %s", name, store.DescribeMode(fi.Mode()))
	}
	old, err := os.ReadFile(name)
	if err == nil {
		if bytes.Equal(old, b) {
			return nil
		}
		return fmt.Errorf("%s exists with other content", name)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(name)
		return err
	}
	return f.Close()
}
