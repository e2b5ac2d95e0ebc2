package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/ctx-tools/ctx/lib/cost"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// maxConfig bounds a pack manifest read into memory.
const maxConfig = 256 << 20

// PullResult is what ctx-pull prints for a pack.
type PullResult struct {
	Hash       digest.Digest `json:"hash"`
	URI        string        `json:"uri"`
	Remote     string        `json:"remote"`
	Digest     string        `json:"digest"`
	Layers     int           `json:"layers"`
	Downloaded Transfer      `json:"downloaded"`
	Skipped    Transfer      `json:"skipped"`
	Objects    struct {
		New    int `json:"new"`
		Reused int `json:"reused"`
	} `json:"objects"`
	Parent    digest.Digest `json:"parent,omitzero"`
	Referrers []Referrer    `json:"referrers,omitzero"`
	// ReferrersSkipped counts referrers of kinds ctx does not attach,
	// left on the remote (ReferrerOptions.AllKinds).
	ReferrersSkipped int `json:"referrers_skipped,omitzero"`
	// Tag is the local tag the caller gave the pack (ctx-pull names a
	// pack pulled by its tag so here too); Pull leaves it empty.
	Tag string `json:"tag,omitzero"`
}

// ParseRef reads a pull reference: a full pack hash (sha256:<hex>,
// <hex>, ctx://<hex>) or a tag on the remote.
// want is set when r is a hash.
func ParseRef(r string) (tag string, want *digest.Digest, err error) {
	if d, err := digest.Parse(r); err == nil {
		return d.Hex(), &d, nil
	}
	if !ValidTag(r) {
		return "", nil, fmt.Errorf("%q is neither a full pack hash (sha256:<64 hex>) nor a tag name (a remote cannot resolve hash prefixes)", r)
	}
	return r, nil, nil
}

// ValidTag reports the distribution spec's tag rule:
// [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}.
func ValidTag(t string) bool {
	if t == "" || len(t) > 128 {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || i > 0 && (c == '.' || c == '-')
		if !ok {
			return false
		}
	}
	return true
}

// remoteImage is a pack's OCI manifest as read from a remote, checked.
type remoteImage struct {
	desc    ocispec.Descriptor
	pack    *manifest.Manifest
	config  []byte
	buckets map[string]ocispec.Descriptor // by prefix
	large   map[digest.Digest]ocispec.Descriptor
	layers  int
}

// PullOptions are a pull's extras.
type PullOptions struct {
	// Referrers, when set, is the directory to write the files of the
	// pack's referrers to (FetchReferrers), as ReferrerOptions says.
	Referrers       string
	ReferrerOptions ReferrerOptions
	// Check, when set, is called with the pack's hash once the remote has
	// named it and before anything is downloaded or stored; an error
	// from it ends the pull with the store unchanged (ctx-pull refusing
	// to move a tag).
	Check func(pack digest.Digest) error
}

// Pull fetches the pack a tag or full hash names into s. Everything is
// downloaded and verified (held in memory up to maxHeld, beyond that in a
// staging directory under the store's tmp/) before the first object is
// stored; the packs/ entry is written last.
func (c *Client) Pull(ctx context.Context, s *store.Store, ref string, opts PullOptions) (*PullResult, error) {
	tag, want, err := ParseRef(ref)
	if err != nil {
		return nil, err
	}
	img, err := c.fetchImage(ctx, tag, want)
	if err != nil {
		return nil, err
	}
	d := img.pack.Hash
	if opts.Check != nil {
		if err := opts.Check(d); err != nil {
			return nil, err
		}
	}
	res := &PullResult{Hash: d, URI: d.URI(), Remote: c.Remote.URL, Digest: img.desc.Digest.String(), Layers: img.layers, Parent: img.pack.Parent}
	res.Downloaded.add(int64(len(img.config)))
	n, err := needed(s, img, ref, res)
	if err != nil {
		return nil, err
	}
	if err := checkSpace(s, d, n.jobs); err != nil {
		return nil, err
	}
	stg := &staging{s: s}
	defer stg.cleanup()
	blobs, err := c.download(ctx, stg, d, ref, n)
	if err != nil {
		return nil, err
	}
	for _, j := range n.jobs {
		res.Downloaded.add(j.desc.Size)
	}
	if res.Objects.New, res.Objects.Reused, err = c.storeLayers(ctx, s, n, blobs); err != nil {
		return nil, err
	}
	cm, err := manifest.CommitWith(s, img.pack, manifest.CommitOptions{Usage: cost.Entry})
	if err != nil {
		return nil, err
	}
	got := cm.Hash
	if got != d {
		return nil, fmt.Errorf("pack %s was stored as %s", d, got)
	}
	if opts.Referrers != "" {
		res.Referrers, res.ReferrersSkipped, err = c.FetchReferrers(ctx, img.desc, opts.Referrers, opts.ReferrerOptions)
		if err != nil {
			return nil, fmt.Errorf("pack %s: %w", d, err)
		}
	}
	return res, nil
}

// A pullJob is one layer to download: a bucket of small objects, or one
// large object.
type pullJob struct {
	desc   ocispec.Descriptor
	prefix string        // a bucket
	object digest.Digest // or an object layer
}

// pullPlan is what a pull downloads (jobs), the objects the pack
// references (inPack) and those of them missing here (missing).
type pullPlan struct {
	jobs            []pullJob
	inPack, missing map[digest.Digest]bool
}

// needed returns which layers are needed: those holding an object
// missing here; the others are counted in res.Skipped. A layout that lies
// (an object in no layer, a layer of an object the pack does not
// reference, sizes that disagree) is an error.
func needed(s *store.Store, img *remoteImage, ref string, res *PullResult) (pullPlan, error) {
	refs := img.pack.Refs()
	inPack := make(map[digest.Digest]bool, len(refs))
	missing := map[digest.Digest]bool{}
	for _, r := range refs {
		inPack[r] = true
		ok, err := s.Has(r)
		if err != nil {
			return pullPlan{}, err
		}
		if !ok {
			missing[r] = true
		}
	}
	for o := range img.large {
		if !inPack[o] {
			return pullPlan{}, lies(ref, "layer %s is an object the pack does not reference", objectName(o))
		}
	}
	if err := img.checkSizes(ref); err != nil {
		return pullPlan{}, err
	}
	needBucket := map[string]bool{}
	for r := range missing {
		if _, ok := img.large[r]; ok {
			continue
		}
		p := r.Hex()[:2]
		if _, ok := img.buckets[p]; !ok {
			return pullPlan{}, lies(ref, "object %s is in no layer", r)
		}
		needBucket[p] = true
	}
	var jobs []pullJob
	for p, l := range img.buckets {
		if needBucket[p] {
			jobs = append(jobs, pullJob{desc: l, prefix: p})
		} else {
			res.Skipped.add(l.Size)
		}
	}
	for o, l := range img.large {
		if missing[o] {
			jobs = append(jobs, pullJob{desc: l, object: o})
		} else {
			res.Skipped.add(l.Size)
		}
	}
	return pullPlan{jobs, inPack, missing}, nil
}

// checkSpace refuses, before the first download, layers too large for the
// store's file system: what will not be held in memory is staged on disk,
// then stored, twice its size.
func checkSpace(s *store.Store, d digest.Digest, jobs []pullJob) error {
	var total int64
	for _, j := range jobs {
		total += j.desc.Size
	}
	if onDisk := total - maxHeld; onDisk > 0 {
		if free := freeSpace(s.Root()); free >= 0 && 2*onDisk > free {
			return fmt.Errorf("pack %s: the remote declares %d bytes of layers to download; staging and storing them needs %d bytes, and %s has %d free", d, total, 2*onDisk, s.Root(), free)
		}
	}

	return nil
}

// download downloads and verifies every layer of n into stg: each
// object the pack is missing is found in exactly one layer, and no layer
// holds one the pack does not reference.
func (c *Client) download(ctx context.Context, stg *staging, d digest.Digest, ref string, n pullPlan) ([]staged, error) {
	jobs, inPack, missing := n.jobs, n.inPack, n.missing
	blobs := make([]staged, len(jobs))
	var mu sync.Mutex
	found := map[digest.Digest]bool{}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.jobs)
	for i, j := range jobs {
		g.Go(func() error {
			b, err := c.stage(gctx, stg, j.desc)
			if err != nil {
				return fmt.Errorf("pack %s: %s: %w", d, title(j.desc), err)
			}
			blobs[i] = b
			if j.prefix == "" {
				mu.Lock()
				found[j.object] = true
				mu.Unlock()
				return nil
			}
			f, err := b.open()
			if err != nil {
				return err
			}
			defer f.Close()
			return ReadBucket(f, j.prefix, func(o digest.Digest, _ int64, _ io.Reader) error {
				if !inPack[o] {
					return lies(ref, "layer objects/%s holds %s, which the pack does not reference", j.prefix, o)
				}
				mu.Lock()
				defer mu.Unlock()
				if found[o] {
					return lies(ref, "object %s is in two layers", o)
				}
				found[o] = true
				return nil
			})
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for r := range missing {
		if !found[r] {
			return nil, lies(ref, "object %s is missing from layer objects/%s", r, r.Hex()[:2])
		}
	}

	return blobs, nil
}

// storeLayers stores the objects the staged layers hold that the store
// is missing, and returns how many were new and how many already there.
func (c *Client) storeLayers(ctx context.Context, s *store.Store, n pullPlan, blobs []staged) (newN, reused int, err error) {
	jobs, missing := n.jobs, n.missing
	var mu sync.Mutex
	count := func(created bool) {
		mu.Lock()
		if created {
			newN++
		} else {
			reused++
		}
		mu.Unlock()
	}
	// Storing is system time in object creation; 1, 2 and 8 writers
	// measured alike (docs/performance.md), so --jobs bounds it too.
	g, _ := errgroup.WithContext(ctx)
	g.SetLimit(c.jobs)
	for i, j := range jobs {
		g.Go(func() error {
			f, err := blobs[i].open()
			if err != nil {
				return err
			}
			defer f.Close()
			if j.prefix == "" {
				got, _, created, err := s.PutReader(f)
				if err != nil {
					return err
				}
				if got != j.object {
					return fmt.Errorf("staged object %s changed on disk (now %s)", j.object, got)
				}
				count(created)
				return nil
			}
			return ReadBucket(f, j.prefix, func(o digest.Digest, _ int64, r io.Reader) error {
				if !missing[o] {
					return nil
				}
				// Read what is there, not what the header claims: the
				// size was checked in the first pass, on these bytes.
				b, err := io.ReadAll(r)
				if err != nil {
					return err
				}
				got, created, err := s.Put(b)
				if err != nil {
					return err
				}
				if got != o {
					return fmt.Errorf("staged object %s changed on disk (now %s)", o, got)
				}
				count(created)
				return nil
			})
		})
	}
	if err := g.Wait(); err != nil {
		return 0, 0, err
	}
	return newN, reused, nil
}

// lies reports a remote manifest that breaks the layout.
func lies(ref, format string, args ...any) error {
	return fmt.Errorf("%w: %s on the remote: %s", ErrBadLayer, ref, fmt.Sprintf(format, args...))
}

// fetchImage fetches and checks the OCI manifest and the pack manifest.
func (c *Client) fetchImage(ctx context.Context, tag string, want *digest.Digest) (*remoteImage, error) {
	desc, mb, err := c.ep.fetchManifest(ctx, tag)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			what := "tag " + tag
			if want != nil {
				what = "pack " + want.String()
			}
			return nil, fmt.Errorf("%s: %s: %w", c.Remote.URL, what, err)
		}
		return nil, fmt.Errorf("%s: fetching %s: %w", c.Remote.URL, tag, err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		return nil, lies(tag, "manifest: %v", err)
	}
	switch {
	case m.SchemaVersion != 2 || m.MediaType != ocispec.MediaTypeImageManifest:
		return nil, lies(tag, "not an OCI image manifest (mediaType %q)", m.MediaType)
	case m.ArtifactType != ArtifactType:
		return nil, lies(tag, "artifactType is %q, not %q: not a ctx pack", m.ArtifactType, ArtifactType)
	case m.Config.MediaType != ConfigMediaType:
		return nil, lies(tag, "config mediaType is %q, not %q", m.Config.MediaType, ConfigMediaType)
	case m.Subject != nil:
		return nil, lies(tag, "a pack manifest has no subject")
	case m.Config.Size < 0 || m.Config.Size > maxConfig:
		return nil, lies(tag, "config size %d out of range", m.Config.Size)
	case len(m.Layers) > 256+MaxObjectLayers:
		return nil, lies(tag, "%d layers, more than %d", len(m.Layers), 256+MaxObjectLayers)
	}
	d, err := ctxDigest(m.Config.Digest)
	if err != nil {
		return nil, lies(tag, "config: %v", err)
	}
	if want != nil && d != *want {
		return nil, lies(tag, "its config is pack %s, not the pack its tag names", d)
	}
	img := &remoteImage{desc: desc, buckets: map[string]ocispec.Descriptor{}, large: map[digest.Digest]ocispec.Descriptor{}, layers: len(m.Layers)}
	for i, l := range m.Layers {
		t := l.Annotations[ocispec.AnnotationTitle]
		switch l.MediaType {
		case BucketMediaType:
			p, ok := bucketPrefix(t)
			if !ok {
				return nil, lies(tag, "layers[%d]: title %q is not objects/<2 hex>", i, clip(t))
			}
			if _, dup := img.buckets[p]; dup {
				return nil, lies(tag, "layers[%d]: bucket %s twice", i, t)
			}
			if _, err := ctxDigest(l.Digest); err != nil || l.Size < 2*blockSize {
				return nil, lies(tag, "layers[%d]: bad digest or size", i)
			}
			img.buckets[p] = l
		case ObjectMediaType:
			od, err := ctxDigest(l.Digest)
			if err != nil || t != objectName(od) || l.Size < 0 {
				return nil, lies(tag, "layers[%d]: object layer titled %q does not name its digest %s", i, clip(t), l.Digest)
			}
			if _, dup := img.large[od]; dup {
				return nil, lies(tag, "layers[%d]: object %s twice", i, od)
			}
			img.large[od] = l
		case ocispec.MediaTypeEmptyJSON:
			if len(m.Layers) != 1 || l.Digest != EmptyDescriptor.Digest || l.Size != 2 {
				return nil, lies(tag, "layers[%d]: an empty layer only stands alone", i)
			}
		default:
			return nil, lies(tag, "layers[%d]: unknown mediaType %q", i, clip(l.MediaType))
		}
	}
	cb, err := c.fetchSmall(ctx, m.Config, maxConfig)
	if err != nil {
		return nil, fmt.Errorf("%s: pack %s: %w", c.Remote.URL, d, err)
	}
	pm, err := manifest.Parse(cb)
	if err != nil {
		return nil, lies(tag, "config: %v", err)
	}
	if enc, err := manifest.Encode(pm); err != nil || !bytes.Equal(enc, cb) {
		return nil, lies(tag, "config is not a canonical pack manifest")
	}
	pm.Hash = d
	if m.Annotations[ocispec.AnnotationCreated] != pm.Created {
		return nil, lies(tag, "created annotation %q is not the pack's created %q", clip(m.Annotations[ocispec.AnnotationCreated]), pm.Created)
	}
	img.pack, img.config = pm, cb
	return img, nil
}

// checkSizes refuses layers declared larger than they can be, before
// anything is downloaded: a bucket holds only the pack's objects of its
// prefix that have no layer of their own, each smaller than LargeObject
// (or, once MaxObjectLayers objects have their own layers, no larger than
// the smallest of those); an object layer of a file the pack records with
// a size has that size. So a registry that declares a bucket of 100 GiB
// and streams without end is cut at what the pack can hold.
func (img *remoteImage) checkSizes(ref string) error {
	known := map[digest.Digest]int64{}
	for _, f := range img.pack.Inputs {
		known[f.ContentRef] = f.Size
	}
	for _, f := range img.pack.Outputs {
		known[f.ContentRef] = f.Size
	}
	maxObject := int64(LargeObject - 1)
	if len(img.large) >= MaxObjectLayers {
		maxObject = maxTarSize
		for _, l := range img.large {
			maxObject = min(maxObject, l.Size)
		}
	}
	for o, l := range img.large {
		if size, ok := known[o]; ok && size != l.Size {
			return lies(ref, "layer %s declares %d bytes, but the pack records %d", objectName(o), l.Size, size)
		}
	}
	count := map[string]int64{}
	for _, r := range img.pack.Refs() {
		if _, ok := img.large[r]; !ok {
			count[r.Hex()[:2]]++
		}
	}
	for p, l := range img.buckets {
		limit := int64(2*blockSize) + count[p]*(blockSize+padded(maxObject))
		if l.Size > limit {
			return lies(ref, "layer objects/%s declares %d bytes, more than the %d its %d objects can take", p, l.Size, limit, count[p])
		}
	}
	return nil
}

func bucketPrefix(t string) (string, bool) {
	if len(t) != len("objects/xx") || t[:8] != "objects/" {
		return "", false
	}
	p := t[8:]
	for i := range 2 {
		if c := p[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", false
		}
	}
	return p, true
}

// fetchSmall fetches a blob into memory, verified.
func (c *Client) fetchSmall(ctx context.Context, desc ocispec.Descriptor, limit int64) ([]byte, error) {
	if desc.Size > limit {
		return nil, fmt.Errorf("blob %s is %d bytes, more than %d", desc.Digest, desc.Size, limit)
	}
	rc, err := c.ep.fetch(ctx, desc)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var buf bytes.Buffer
	if err := copyVerified(&buf, rc, desc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// copyVerified copies exactly desc.Size bytes of r to w and checks they
// hash to desc.Digest.
func copyVerified(w io.Writer, r io.Reader, desc ocispec.Descriptor) error {
	v := desc.Digest.Verifier()
	n, err := io.Copy(io.MultiWriter(w, v), io.LimitReader(r, desc.Size+1))
	if err != nil {
		return fmt.Errorf("reading blob %s: %w", desc.Digest, err)
	}
	if n > desc.Size {
		return fmt.Errorf("%w: blob %s: the remote sends more than the %d bytes it declares (cut there)", ErrBadLayer, desc.Digest, desc.Size)
	}
	if n != desc.Size {
		return fmt.Errorf("%w: blob %s: got %d bytes, want %d", ErrBadLayer, desc.Digest, n, desc.Size)
	}
	if !v.Verified() {
		return fmt.Errorf("%w: blob %s: content does not hash to its digest", ErrBadLayer, desc.Digest)
	}
	return nil
}

// staged is a downloaded, verified blob: in memory while a budget
// (maxHeld) lasts, else in a file under the store's tmp/.
type staged struct {
	data []byte
	file string
}

func (b staged) open() (io.ReadCloser, error) {
	if b.file == "" {
		return io.NopCloser(bytes.NewReader(b.data)), nil
	}
	return os.Open(b.file)
}

// staging holds a pull's downloads. Its directory, under the store's
// tmp/ (store.Staging: locked while the pull runs, removed by the next
// one if the pull is killed), is made on first need, so a pull that fits
// in memory leaves no trace in the store even when killed.
type staging struct {
	s    *store.Store
	held atomic.Int64

	mu      sync.Mutex
	dir     string
	release func()
}

func (st *staging) file() (*os.File, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.dir == "" {
		dir, release, err := st.s.Staging("pull-")
		if err != nil {
			return nil, err
		}
		st.dir, st.release = dir, release
	}
	return os.CreateTemp(st.dir, "blob-")
}

// cleanup removes the staging directory. tmp/ stays: another command
// may be using it.
func (st *staging) cleanup() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.release != nil {
		st.release()
	}
}

// stage downloads a blob, verified.
func (c *Client) stage(ctx context.Context, st *staging, desc ocispec.Descriptor) (staged, error) {
	rc, err := c.ep.fetch(ctx, desc)
	if err != nil {
		return staged{}, err
	}
	defer rc.Close()
	if st.held.Add(desc.Size) <= maxHeld {
		buf := bytes.NewBuffer(make([]byte, 0, desc.Size))
		err := copyVerified(buf, rc, desc)
		return staged{data: buf.Bytes()}, err
	}
	st.held.Add(-desc.Size)
	f, err := st.file()
	if err != nil {
		return staged{}, err
	}
	err = copyVerified(f, rc, desc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return staged{file: f.Name()}, err
}
