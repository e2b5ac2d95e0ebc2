package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Transfer counts blobs and their bytes.
type Transfer struct {
	Blobs int   `json:"blobs"`
	Bytes int64 `json:"bytes"`
}

func (t *Transfer) add(size int64) {
	t.Blobs++
	t.Bytes += size
}

// PushResult is what ctx-push prints for a pack.
type PushResult struct {
	Hash     digest.Digest `json:"hash"`
	Remote   string        `json:"remote"`
	Digest   string        `json:"digest"`
	Tags     []string      `json:"tags"`
	Layers   int           `json:"layers"`
	Uploaded Transfer      `json:"uploaded"`
	Skipped  Transfer      `json:"skipped"`
	// Referrers are the attachments pushed with the pack.
	Referrers []Referrer `json:"referrers,omitzero"`
}

// Image is a pack laid out as an OCI image manifest.
type Image struct {
	Pack     *manifest.Manifest
	Config   []byte // the pack's manifest object
	Layout   Layout
	Layers   []ocispec.Descriptor
	Manifest []byte
	Desc     ocispec.Descriptor
	tars     [][]byte // bucket tars kept from Build, by bucket; nil where not
}

// Build lays out pack d of s: it reads every object the pack references,
// checking its digest, to compute the bucket layers' digests.
func Build(ctx context.Context, s *store.Store, d digest.Digest, jobs int) (*Image, error) {
	m, err := manifest.Load(s, d)
	if err != nil {
		return nil, err
	}
	config, err := s.Get(d)
	if err != nil {
		return nil, err
	}
	refs := m.Refs()
	objs := make([]Object, len(refs))
	for i, r := range refs {
		size, err := s.Size(r)
		if err != nil {
			return nil, fmt.Errorf("pack %s: %w", d, err)
		}
		objs[i] = Object{Digest: r, Size: size}
	}
	l, err := Plan(objs)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", d, err)
	}
	layers := make([]ocispec.Descriptor, len(l.Buckets), len(l.Buckets)+len(l.Large))
	tars := make([][]byte, len(l.Buckets))
	var held atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(jobs, 1))
	open := storeOpener(s)
	for i, b := range l.Buckets {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			h := digest.NewHasher()
			var w io.Writer = h
			// Small buckets are kept for the upload, saving a second read
			// of every object; the rest stream from the store again.
			var buf *bytes.Buffer
			if size := b.Size(); held.Add(size) <= maxHeld {
				buf = bytes.NewBuffer(make([]byte, 0, size))
				w = io.MultiWriter(h, buf)
			} else {
				held.Add(-size)
			}
			if _, err := WriteBucket(w, b, open); err != nil {
				return fmt.Errorf("pack %s: %w", d, err)
			}
			layers[i] = BucketDescriptor(b, h.Digest())
			if buf != nil {
				tars[i] = buf.Bytes()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for _, o := range l.Large {
		layers = append(layers, ObjectDescriptor(o))
	}
	if len(layers) == 0 {
		// A manifest has at least one layer: the empty one.
		layers = append(layers, plain(EmptyDescriptor))
	}
	mb, desc, err := EncodeManifest(ConfigDescriptor(d, int64(len(config))), layers, m.Created)
	if err != nil {
		return nil, err
	}
	return &Image{Pack: m, Config: config, Layout: l, Layers: layers, Manifest: mb, Desc: desc, tars: tars}, nil
}

// maxHeld bounds the bucket tars Build keeps in memory for the upload
// (a variable for tests).
var maxHeld int64 = 64 << 20

func storeOpener(s *store.Store) Opener {
	return func(d digest.Digest) (io.ReadCloser, error) { return s.Open(d) }
}

// PushOptions are a push's extras.
type PushOptions struct {
	// Tags are tags to set on the remote besides the 64-hex hash.
	Tags []string
	// Attach are files to attach to the pack as referrers (AttachType).
	Attach []string
}

// Push uploads pack d of s and tags it with its 64-hex hash and
// opts.Tags. Blobs the remote has are not uploaded; a pack already there
// under its hash tag costs one request, plus one per extra tag.
func (c *Client) Push(ctx context.Context, s *store.Store, d digest.Digest, opts PushOptions) (*PushResult, error) {
	// Every argument is checked before the first upload.
	if err := CheckTags(opts.Tags); err != nil {
		return nil, err
	}
	attach, err := loadAttachments(opts.Attach)
	if err != nil {
		return nil, err
	}
	var have *ocispec.Descriptor
	ci, err := c.cacheLoad(d)
	if err != nil {
		return nil, err
	}
	if ci != nil {
		// Known layout: if the remote has it, nothing needs reading.
		res, err := c.repush(ctx, d, ci, opts.Tags, attach, &have)
		if res != nil || err != nil {
			return res, err
		}
	}
	img, err := Build(ctx, s, d, c.jobs)
	if err != nil {
		return nil, err
	}
	res, err := c.push(ctx, s, img, opts.Tags, have)
	if err == nil {
		c.cacheStore(d, img.Manifest)
	}
	if err != nil {
		return nil, err
	}
	if len(attach) > 0 {
		res.Referrers, err = c.attach(ctx, img.Desc, img.Pack.Created, attach)
		if err != nil {
			return nil, fmt.Errorf("pack %s: %w", d, err)
		}
	}
	return res, nil
}

// repush finishes a push when the remote holds the cached manifest ci
// under the pack's hash tag (1 request, plus one per tag); it returns
// nil, nil when it does not.
// *found is set to what the remote has under the hash tag (the zero
// descriptor for nothing), so that push need not ask again.
func (c *Client) repush(ctx context.Context, d digest.Digest, ci *cachedImage, tags []string, attach []attachment, found **ocispec.Descriptor) (*PushResult, error) {
	have, err := c.ep.resolve(ctx, d.Hex())
	if errors.Is(err, ErrNotFound) {
		*found = &ocispec.Descriptor{}
		return nil, nil
	}
	if err == nil && have.Digest != ci.desc.Digest {
		*found = &have
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("looking up pack %s on %s: %w", d, c.Remote.URL, err)
	}
	res := &PushResult{Hash: d, Remote: c.Remote.URL, Digest: ci.desc.Digest.String(), Layers: ci.layers,
		Tags: append([]string{d.Hex()}, tags...), Skipped: Transfer{Blobs: ci.layers + 1, Bytes: ci.blobs}}
	if len(tags) > 0 {
		if err := c.ep.pushManifest(ctx, ci.desc, ci.bytes, tags); err != nil {
			return nil, fmt.Errorf("tagging pack %s on %s: %w", d, c.Remote.URL, err)
		}
	}
	if len(attach) > 0 {
		res.Referrers, err = c.attach(ctx, ci.desc, ci.created, attach)
		if err != nil {
			return nil, fmt.Errorf("pack %s: %w", d, err)
		}
	}
	return res, nil
}

// have, when known, is what the remote has under the pack's hash tag.
func (c *Client) push(ctx context.Context, s *store.Store, img *Image, tags []string, have *ocispec.Descriptor) (*PushResult, error) {
	d := img.Pack.Hash
	res := &PushResult{Hash: d, Remote: c.Remote.URL, Digest: img.Desc.Digest.String(), Layers: len(img.Layers)}
	res.Tags = append([]string{d.Hex()}, tags...)
	var blobSizes int64
	for _, l := range img.Layers {
		blobSizes += l.Size
	}
	blobSizes += int64(len(img.Config))

	var err error
	if have == nil {
		var h ocispec.Descriptor
		h, err = c.ep.resolve(ctx, d.Hex())
		have = &h
	}
	switch {
	case err == nil && have.Digest == img.Desc.Digest:
		res.Skipped = Transfer{Blobs: len(img.Layers) + 1, Bytes: blobSizes}
		if len(tags) > 0 {
			if err := c.ep.pushManifest(ctx, img.Desc, img.Manifest, tags); err != nil {
				return nil, fmt.Errorf("tagging pack %s on %s: %w", d, c.Remote.URL, err)
			}
		}
		return res, nil
	case err != nil && !errors.Is(err, ErrNotFound):
		return nil, fmt.Errorf("looking up pack %s on %s: %w", d, c.Remote.URL, err)
	}

	open := storeOpener(s)
	type blob struct {
		desc ocispec.Descriptor
		open func() (io.ReadCloser, error)
	}
	blobs := []blob{{ConfigDescriptor(d, int64(len(img.Config))), bytesOpener(img.Config)}}
	for i, l := range img.Layers {
		switch l.MediaType {
		case BucketMediaType:
			// Layers begin with the buckets, in the same order.
			b := img.Layout.Buckets[i]
			if t := img.tars[i]; t != nil {
				blobs = append(blobs, blob{l, bytesOpener(t)})
				break
			}
			blobs = append(blobs, blob{l, func() (io.ReadCloser, error) { return bucketReader(b, open), nil }})
		case ObjectMediaType:
			od, _ := ctxDigest(l.Digest)
			blobs = append(blobs, blob{l, func() (io.ReadCloser, error) { return open(od) }})
		default: // the empty descriptor of a pack without objects
			blobs = append(blobs, blob{l, bytesOpener(emptyJSON)})
		}
	}
	var mu sync.Mutex
	var failed atomic.Bool
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.jobs)
	for _, b := range blobs {
		g.Go(func() error {
			if failed.Load() {
				return nil
			}
			ok, err := c.ep.exists(gctx, b.desc)
			if err != nil {
				failed.Store(true)
				return fmt.Errorf("checking blob %s on %s: %w", b.desc.Digest, c.Remote.URL, err)
			}
			if !ok {
				if err := c.ep.push(gctx, b.desc, b.open); err != nil {
					failed.Store(true)
					return fmt.Errorf("uploading %s (%s) to %s: %w", title(b.desc), b.desc.Digest, c.Remote.URL, err)
				}
			}
			mu.Lock()
			if ok {
				res.Skipped.add(b.desc.Size)
			} else {
				res.Uploaded.add(b.desc.Size)
			}
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := c.ep.pushManifest(ctx, img.Desc, img.Manifest, res.Tags); err != nil {
		return nil, fmt.Errorf("pushing the manifest of pack %s to %s: %w", d, c.Remote.URL, err)
	}
	return res, nil
}

func title(d ocispec.Descriptor) string {
	if t := d.Annotations[ocispec.AnnotationTitle]; t != "" {
		return t
	}
	return d.MediaType
}

func bytesOpener(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}

// bucketReader streams a bucket's tar from the store, without a copy.
func bucketReader(b Bucket, open Opener) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		_, err := WriteBucket(pw, b, open)
		pw.CloseWithError(err)
	}()
	return pr
}
