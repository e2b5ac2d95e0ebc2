package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/go-json-experiment/json"
	godigest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/errdef"

	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/store"
)

// layoutEndpoint is an OCI image layout directory. Blobs go through
// oras-go's oci.Storage (written to ingest/, checked against their
// descriptor, renamed into place); index.json is read and written here,
// as oras-go's oci.Store writes it: one entry per tag, annotated with
// org.opencontainers.image.ref.name, and one without for a manifest no
// tag names (a referrer). oci.Store itself reads every manifest the index
// lists when it opens, to answer referrer queries, which made each push
// cost grow with the layout; here a push reads index.json and the blobs
// of its own pack, and only a referrers listing reads other manifests.
type layoutEndpoint struct {
	dir     string
	storage *oci.Storage

	mu    sync.Mutex
	index ocispec.Index // as last read or written
}

// openLayout opens the layout at dir (checked by checkLayout), creating
// its oci-layout and index.json files when missing, as oci.Store does.
func openLayout(dir string) (*layoutEndpoint, error) {
	st, err := oci.NewStorage(dir)
	if err != nil {
		return nil, err
	}
	e := &layoutEndpoint{dir: dir, storage: st}
	if err := os.MkdirAll(filepath.Join(dir, ocispec.ImageBlobsDir), 0o777); err != nil {
		return nil, err
	}
	if err := e.layoutFile(); err != nil {
		return nil, fmt.Errorf("invalid OCI Image Layout: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.readIndex(); err != nil {
		return nil, err
	}
	return e, nil
}

// layoutFile checks the oci-layout file, or writes it.
func (e *layoutEndpoint) layoutFile() error {
	name := filepath.Join(e.dir, ocispec.ImageLayoutFile)
	b, err := found.ReadFile(name, found.Rule{What: "layout file", Max: maxLayoutFile, Within: e.dir})
	if errors.Is(err, fs.ErrNotExist) {
		b, err := json.Marshal(ocispec.ImageLayout{Version: ocispec.ImageLayoutVersion})
		if err != nil {
			return err
		}
		return os.WriteFile(name, b, 0o666)
	}
	if err != nil {
		return err
	}
	var l ocispec.ImageLayout
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("decoding %s: %w", ocispec.ImageLayoutFile, err)
	}
	if l.Version != ocispec.ImageLayoutVersion {
		return fmt.Errorf("%s: imageLayoutVersion %q: %w", ocispec.ImageLayoutFile, l.Version, errdef.ErrUnsupportedVersion)
	}
	return nil
}

// readIndex reads index.json into e.index, writing an empty one when
// there is none. e.mu is held.
func (e *layoutEndpoint) readIndex() error {
	name := filepath.Join(e.dir, ocispec.ImageIndexFile)
	b, err := found.ReadFile(name, found.Rule{What: "layout file", Max: MaxLayoutIndex, Within: e.dir})
	if errors.Is(err, fs.ErrNotExist) {
		return e.writeIndex(ocispec.Index{})
	}
	if err != nil {
		return err
	}
	var index ocispec.Index
	if err := json.Unmarshal(b, &index); err != nil {
		return fmt.Errorf("invalid OCI Image Index: decoding %s: %w", ocispec.ImageIndexFile, err)
	}
	e.index = index
	return nil
}

// writeIndex replaces index.json with index, through a temporary file
// renamed into place, so that a reader never sees half of it. e.mu is
// held.
func (e *layoutEndpoint) writeIndex(index ocispec.Index) error {
	index.Versioned = specs.Versioned{SchemaVersion: 2}
	index.MediaType = ocispec.MediaTypeImageIndex
	if index.Manifests == nil {
		index.Manifests = []ocispec.Descriptor{}
	}
	b, err := json.Marshal(index)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", ocispec.ImageIndexFile, err)
	}
	// As the blobs: written, not synced.
	if err := (store.WriteOptions{Perm: 0o644, NoSync: true}).WriteFile(filepath.Join(e.dir, ocispec.ImageIndexFile), b); err != nil {
		return err
	}
	e.index = index
	return nil
}

func refName(d ocispec.Descriptor) string { return d.Annotations[ocispec.AnnotationRefName] }

// resolve finds ref in index.json as oci.Store does: a tag names the
// last entry annotated with it; a digest names a manifest the index
// lists (its plain descriptor) or else any blob of the layout.
func (e *layoutEndpoint) resolve(ctx context.Context, ref string) (ocispec.Descriptor, error) {
	if ref == "" {
		return ocispec.Descriptor{}, errdef.ErrMissingReference
	}
	e.mu.Lock()
	ms := e.index.Manifests
	e.mu.Unlock()
	for _, d := range slices.Backward(ms) {
		if refName(d) == ref {
			return d, nil
		}
	}
	for _, d := range slices.Backward(ms) {
		if d.Digest.String() == ref {
			return ocispec.Descriptor{MediaType: d.MediaType, Digest: d.Digest, Size: d.Size}, nil
		}
	}
	dg := godigest.Digest(ref)
	if dg.Validate() != nil {
		return ocispec.Descriptor{}, ErrNotFound
	}
	fi, err := e.lstatBlob(dg)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	if fi == nil {
		return ocispec.Descriptor{}, ErrNotFound
	}
	return ocispec.Descriptor{MediaType: "application/octet-stream", Digest: dg, Size: fi.Size()}, nil
}

// lstatBlob returns the file of blob d, nil if there is none. One that is
// not a regular file is refused: a write would follow a symlink, a read
// of a pipe would hang.
func (e *layoutEndpoint) lstatBlob(d godigest.Digest) (fs.FileInfo, error) {
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("%w: blob %q: %v", ErrBadLayer, d, err)
	}
	rel := filepath.Join(ocispec.ImageBlobsDir, d.Algorithm().String(), d.Encoded())
	fi, err := os.Lstat(filepath.Join(e.dir, rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, &found.Error{What: "layout file", Path: filepath.Join(e.dir, rel), Reason: store.DescribeMode(fi.Mode()) + ", not a regular file: refused"}
	}
	return fi, nil
}

func (e *layoutEndpoint) fetchManifest(ctx context.Context, ref string) (ocispec.Descriptor, []byte, error) {
	desc, err := e.resolve(ctx, ref)
	if err != nil {
		return desc, nil, err
	}
	rc, err := e.fetch(ctx, desc)
	if err != nil {
		return desc, nil, err
	}
	b, err := readManifest(rc, desc, ref)
	return desc, b, err
}

func (e *layoutEndpoint) exists(ctx context.Context, desc ocispec.Descriptor) (bool, error) {
	fi, err := e.lstatBlob(desc.Digest)
	return fi != nil, err
}

func (e *layoutEndpoint) push(ctx context.Context, desc ocispec.Descriptor, open func() (io.ReadCloser, error)) error {
	if fi, err := e.lstatBlob(desc.Digest); fi != nil || err != nil {
		return err
	}
	r, err := open()
	if err != nil {
		return err
	}
	defer r.Close()
	if err := e.storage.Push(ctx, desc, r); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return err
	}
	return nil
}

func (e *layoutEndpoint) fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	return fetchLayoutBlob(e.dir, desc)
}

// pushManifest stores the manifest blob, then lists it in index.json
// under each tag, or untagged when there is none. index.json is read
// again first, so that what another process wrote since is kept.
func (e *layoutEndpoint) pushManifest(ctx context.Context, desc ocispec.Descriptor, b []byte, tags []string) error {
	if err := e.push(ctx, desc, bytesOpener(b)); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.readIndex(); err != nil {
		return err
	}
	index := e.index
	index.Manifests = retag(index.Manifests, desc, tags)
	return e.writeIndex(index)
}

// retag returns the index entries ms with desc listed under each tag (an
// entry annotated with the tag's name, replacing the tag's entry), or
// listed untagged when tags is empty, as oci.Store would list them: a
// manifest a tag moved away from stays listed, untagged, and a manifest
// that has a tagged entry has no untagged one.
func retag(ms []ocispec.Descriptor, desc ocispec.Descriptor, tags []string) []ocispec.Descriptor {
	untagged := func(d ocispec.Descriptor) ocispec.Descriptor {
		d.Annotations = maps.Clone(d.Annotations)
		delete(d.Annotations, ocispec.AnnotationRefName)
		if len(d.Annotations) == 0 {
			d.Annotations = nil
		}
		return d
	}
	before := map[godigest.Digest]ocispec.Descriptor{}
	for _, d := range ms {
		before[d.Digest] = untagged(d)
	}
	out := slices.DeleteFunc(slices.Clone(ms), func(d ocispec.Descriptor) bool {
		return refName(d) != "" && slices.Contains(tags, refName(d))
	})
	entry := untagged(desc)
	if len(tags) == 0 {
		out = append(out, entry)
	}
	for _, t := range tags {
		tagged := entry
		tagged.Annotations = maps.Clone(entry.Annotations)
		if tagged.Annotations == nil {
			tagged.Annotations = map[string]string{}
		}
		tagged.Annotations[ocispec.AnnotationRefName] = t
		out = append(out, tagged)
	}
	// Every manifest listed before stays listed; a manifest is listed
	// untagged only when nothing tags it, and once.
	listed := map[godigest.Digest]bool{}
	for _, d := range out {
		if refName(d) != "" {
			listed[d.Digest] = true
		}
	}
	out = slices.DeleteFunc(out, func(d ocispec.Descriptor) bool {
		if refName(d) != "" {
			return false
		}
		drop := listed[d.Digest]
		listed[d.Digest] = true
		return drop
	})
	for _, d := range ms {
		if !listed[d.Digest] {
			listed[d.Digest] = true
			out = append(out, before[d.Digest])
		}
	}
	return out
}

// referrers lists the manifests index.json lists whose subject is desc,
// as oras-go's registry.Referrers does over oci.Store: the manifests of
// packs (artifactType ArtifactType in the index), which have no subject,
// are not read.
func (e *layoutEndpoint) referrers(ctx context.Context, desc ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	e.mu.Lock()
	ms := e.index.Manifests
	e.mu.Unlock()
	seen := map[godigest.Digest]bool{}
	var out []ocispec.Descriptor
	for _, d := range ms {
		if seen[d.Digest] || d.ArtifactType == ArtifactType || d.MediaType != ocispec.MediaTypeImageManifest && d.MediaType != ocispec.MediaTypeImageIndex {
			continue
		}
		seen[d.Digest] = true
		if d.Size > maxManifest {
			return nil, fmt.Errorf("%w: manifest %s is %d bytes, more than %d", ErrBadLayer, d.Digest, d.Size, maxManifest)
		}
		rc, err := e.fetch(ctx, d)
		if errors.Is(err, ErrNotFound) {
			continue // listed, but not there: no referrer
		}
		if err != nil {
			return nil, err
		}
		b, err := readManifest(rc, d, d.Digest.String())
		if err != nil {
			return nil, err
		}
		var m struct {
			ArtifactType string              `json:"artifactType"`
			Config       ocispec.Descriptor  `json:"config"`
			Subject      *ocispec.Descriptor `json:"subject"`
			Annotations  map[string]string   `json:"annotations"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("%w: manifest %s: %v", ErrBadLayer, d.Digest, err)
		}
		if s := m.Subject; s == nil || s.Digest != desc.Digest || s.Size != desc.Size || s.MediaType != desc.MediaType {
			continue
		}
		r := ocispec.Descriptor{MediaType: d.MediaType, Digest: d.Digest, Size: d.Size, ArtifactType: m.ArtifactType, Annotations: m.Annotations}
		if r.ArtifactType == "" && d.MediaType == ocispec.MediaTypeImageManifest {
			r.ArtifactType = m.Config.MediaType
		}
		out = append(out, r)
	}
	return out, nil
}
