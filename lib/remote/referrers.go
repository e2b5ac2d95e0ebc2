package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/ctx-tools/ctx/lib/attest"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
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

// Attach pushes each file as a referrer of the pack manifest subject,
// one artifact per file, titled with the file's base name. The
// artifact's created annotation is the pack's, so the same file attached
// twice is the same artifact.
func (c *Client) Attach(ctx context.Context, subject ocispec.Descriptor, created string, files []string) ([]Referrer, error) {
	var out []Referrer
	for _, name := range files {
		typ, err := AttachType(name)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(name)
		if err != nil {
			return nil, fmt.Errorf("attaching %s: %w", name, err)
		}
		if !fi.Mode().IsRegular() || fi.Size() > maxAttachment {
			return nil, fmt.Errorf("attaching %s: not a regular file of at most %d bytes", name, maxAttachment)
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("attaching %s: %w", name, err)
		}
		base := filepath.Base(name)
		layer := ocispec.Descriptor{
			MediaType:   typ,
			Digest:      ociDigest(digest.Of(b)),
			Size:        int64(len(b)),
			Annotations: map[string]string{ocispec.AnnotationTitle: base},
		}
		annotations := map[string]string{ocispec.AnnotationCreated: created}
		if typ == BundleMediaType {
			// cosign lists attestations by these (dev.sigstore.bundle.*).
			extra, err := attest.BundleAnnotations(b)
			if err != nil {
				return nil, fmt.Errorf("attaching %s: %w", name, err)
			}
			maps.Copy(annotations, extra)
		}
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

// FetchReferrers writes the files of every referrer of the pack manifest
// subject into dir, under their titles (plain file names only), and
// returns what it fetched. A file that exists with other bytes is an
// error; with the same bytes it is left alone.
func (c *Client) FetchReferrers(ctx context.Context, subject ocispec.Descriptor, dir string) ([]Referrer, error) {
	descs, err := c.ep.referrers(ctx, plain(subject))
	if err != nil {
		return nil, fmt.Errorf("listing referrers of %s: %w", subject.Digest, err)
	}
	slices.SortFunc(descs, func(a, b ocispec.Descriptor) int { return strings.Compare(a.Digest.String(), b.Digest.String()) })
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out := []Referrer{}
	for _, d := range descs {
		if d.Size > maxManifest {
			return nil, fmt.Errorf("referrer %s is too large", d.Digest)
		}
		_, mb, err := c.ep.fetchManifest(ctx, d.Digest.String())
		if err != nil {
			return nil, fmt.Errorf("fetching referrer %s: %w", d.Digest, err)
		}
		var m ocispec.Manifest
		if err := json.Unmarshal(mb, &m); err != nil {
			return nil, fmt.Errorf("%w: referrer %s: %v", ErrBadLayer, d.Digest, err)
		}
		if m.Subject == nil || m.Subject.Digest != subject.Digest {
			return nil, fmt.Errorf("%w: referrer %s does not name the pack as its subject", ErrBadLayer, d.Digest)
		}
		r := Referrer{Digest: d.Digest.String(), ArtifactType: m.ArtifactType, Files: []string{}}
		for i, l := range m.Layers {
			name := l.Annotations[ocispec.AnnotationTitle]
			if err := manifest.CheckName(name); err != nil || strings.Contains(name, "/") || !printableName(name) {
				return nil, fmt.Errorf("%w: referrer %s: layers[%d]: title %q is not a plain file name", ErrBadLayer, d.Digest, i, clip(name))
			}
			b, err := c.fetchSmall(ctx, l, maxAttachment)
			if err != nil {
				return nil, fmt.Errorf("referrer %s: %s: %w", d.Digest, name, err)
			}
			if err := writeFileNew(filepath.Join(dir, name), b); err != nil {
				return nil, fmt.Errorf("referrer %s: %w", d.Digest, err)
			}
			r.Files = append(r.Files, name)
		}
		out = append(out, r)
	}
	return out, nil
}

func printableName(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\ufffd' || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return false
		}
	}
	return true
}

// writeFileNew writes b to name unless name holds other bytes already.
func writeFileNew(name string, b []byte) error {
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
