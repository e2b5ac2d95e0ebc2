package remote

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	godigest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
)

// Media types of the layout (docs/oci-layout.md).
const (
	// ArtifactType is the artifactType of a pack's OCI image manifest.
	ArtifactType = "application/vnd.ctx.pack.v1+json"
	// ConfigMediaType is the config blob: the pack's manifest object, so
	// that the config digest is the pack hash.
	ConfigMediaType = "application/vnd.ctx.manifest.v1+json"
	// BucketMediaType is a tar layer holding the pack's objects whose hash
	// starts with one byte.
	BucketMediaType = "application/vnd.ctx.objects.v1.tar"
	// ObjectMediaType is a layer that is one object's bytes.
	ObjectMediaType = "application/vnd.ctx.object.v1"
	// SidecarMediaType, ReportMediaType and BundleMediaType are the
	// artifact types of referrers attached to a pack.
	SidecarMediaType = "application/vnd.ctx.sidecar.v1+json"
	ReportMediaType  = "application/vnd.ctx.report.v1+html"
	BundleMediaType  = "application/vnd.dev.sigstore.bundle.v0.3+json"
)

// Layout limits.
const (
	// LargeObject is the size from which an object gets its own layer.
	LargeObject = 1 << 20
	// MaxObjectLayers caps own-layer objects, so that a manifest stays
	// under 500 layers (256 buckets + 200 objects), ECR's limit.
	MaxObjectLayers = 200
	// maxTarSize is the largest size a USTAR header can state (11 octal
	// digits).
	maxTarSize = 1<<33 - 1
)

// Object is an object a pack references, with its size.
type Object struct {
	Digest digest.Digest
	Size   int64
}

// Bucket is one tar layer: the objects of a pack whose hex hash starts
// with Prefix, sorted by hash.
type Bucket struct {
	Prefix  string
	Objects []Object
}

// Title is the bucket's layer title, objects/<prefix>.
func (b Bucket) Title() string { return "objects/" + b.Prefix }

// Size is the size of the bucket's tar.
func (b Bucket) Size() int64 {
	n := int64(2 * blockSize)
	for _, o := range b.Objects {
		n += blockSize + padded(o.Size)
	}
	return n
}

// Layout is how a pack's objects are split into layers: a pure function
// of the objects, so that every machine pushes the same OCI manifest.
type Layout struct {
	Buckets []Bucket // by prefix
	Large   []Object // own layers, by hash
}

// Plan lays out objs (each once). The MaxObjectLayers largest objects of
// at least LargeObject bytes (ties by hash) get their own layers; every
// other object goes to the bucket of its first hash byte.
func Plan(objs []Object) (Layout, error) {
	sorted := slices.Clone(objs)
	slices.SortFunc(sorted, func(a, b Object) int {
		return cmp.Or(cmp.Compare(b.Size, a.Size), bytes.Compare(a.Digest[:], b.Digest[:]))
	})
	var l Layout
	byPrefix := map[byte][]Object{}
	for i, o := range sorted {
		if i > 0 && o.Digest == sorted[i-1].Digest {
			return l, fmt.Errorf("object %s listed twice", o.Digest)
		}
		if o.Size >= LargeObject && len(l.Large) < MaxObjectLayers {
			l.Large = append(l.Large, o)
			continue
		}
		if o.Size > maxTarSize {
			return l, fmt.Errorf("object %s (%d bytes) is too large for a tar layer", o.Digest, o.Size)
		}
		byPrefix[o.Digest[0]] = append(byPrefix[o.Digest[0]], o)
	}
	slices.SortFunc(l.Large, func(a, b Object) int { return bytes.Compare(a.Digest[:], b.Digest[:]) })
	for p := range 256 {
		os := byPrefix[byte(p)]
		if len(os) == 0 {
			continue
		}
		slices.SortFunc(os, func(a, b Object) int { return bytes.Compare(a.Digest[:], b.Digest[:]) })
		l.Buckets = append(l.Buckets, Bucket{Prefix: fmt.Sprintf("%02x", p), Objects: os})
	}
	return l, nil
}

// Layer descriptors and the OCI manifest.

// emptyConfig is the OCI empty descriptor's content, used as the config of
// referrers and as the one layer of a pack that references no object.
var emptyJSON = []byte("{}")

// EmptyDescriptor is the OCI empty descriptor.
var EmptyDescriptor = ocispec.Descriptor{
	MediaType: ocispec.MediaTypeEmptyJSON,
	Digest:    godigest.FromBytes(emptyJSON),
	Size:      2,
	Data:      emptyJSON,
}

// ociDigest converts a ctx digest to an OCI one.
func ociDigest(d digest.Digest) godigest.Digest {
	return godigest.NewDigestFromEncoded(godigest.SHA256, d.Hex())
}

// ctxDigest converts an OCI digest to a ctx one; only sha256 is accepted.
func ctxDigest(d godigest.Digest) (digest.Digest, error) {
	if d.Algorithm() != godigest.SHA256 {
		return digest.Digest{}, fmt.Errorf("digest %q is not sha256", d)
	}
	h := d.Encoded()
	got, err := digest.Parse(h)
	if err != nil || got.Hex() != h {
		return digest.Digest{}, fmt.Errorf("digest %q is not sha256:<64 lowercase hex>", d)
	}
	return got, nil
}

// BucketDescriptor describes a bucket layer whose tar hashes to d.
func BucketDescriptor(b Bucket, d digest.Digest) ocispec.Descriptor {
	return ocispec.Descriptor{
		MediaType:   BucketMediaType,
		Digest:      ociDigest(d),
		Size:        b.Size(),
		Annotations: map[string]string{ocispec.AnnotationTitle: b.Title()},
	}
}

// ObjectDescriptor describes a layer that is object o itself.
func ObjectDescriptor(o Object) ocispec.Descriptor {
	return ocispec.Descriptor{
		MediaType:   ObjectMediaType,
		Digest:      ociDigest(o.Digest),
		Size:        o.Size,
		Annotations: map[string]string{ocispec.AnnotationTitle: objectName(o.Digest)},
	}
}

// ConfigDescriptor describes the config blob: the pack manifest object.
func ConfigDescriptor(pack digest.Digest, size int64) ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: ConfigMediaType, Digest: ociDigest(pack), Size: size}
}

// EncodeManifest returns the OCI image manifest of a pack as canonical
// JSON (RFC 8785), and its descriptor. layers are the bucket layers by
// prefix, then the object layers by hash; none gives the empty
// descriptor as the one layer.
func EncodeManifest(config ocispec.Descriptor, layers []ocispec.Descriptor, created string) ([]byte, ocispec.Descriptor, error) {
	if len(layers) == 0 {
		layers = []ocispec.Descriptor{plain(EmptyDescriptor)}
	}
	m := ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: ArtifactType,
		Config:       config,
		Layers:       layers,
		Annotations:  map[string]string{ocispec.AnnotationCreated: created},
	}
	return encodeManifest(m)
}

func encodeManifest(m ocispec.Manifest) ([]byte, ocispec.Descriptor, error) {
	b, err := canon.Marshal(m)
	if err != nil {
		return nil, ocispec.Descriptor{}, fmt.Errorf("encoding OCI manifest: %w", err)
	}
	desc := ocispec.Descriptor{
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: m.ArtifactType,
		Digest:       godigest.FromBytes(b),
		Size:         int64(len(b)),
	}
	return b, desc, nil
}

// The tar format of a bucket: USTAR, one 512-byte header per entry, fixed
// fields, entries sorted by name, two zero blocks at the end. Written and
// read here byte by byte, so that the layer's digest does not depend on
// any tar library's choices.

const blockSize = 512

func padded(n int64) int64 { return (n + blockSize - 1) / blockSize * blockSize }

// objectName is an object's entry name in a bucket: objects/ab/<62 hex>.
func objectName(d digest.Digest) string {
	h := d.Hex()
	return "objects/" + h[:2] + "/" + h[2:]
}

// tarHeader returns the header block of an entry.
func tarHeader(name string, size int64) [blockSize]byte {
	var h [blockSize]byte
	copy(h[0:100], name)
	copy(h[100:108], "0000444\x00")
	copy(h[108:116], "0000000\x00")
	copy(h[116:124], "0000000\x00")
	copy(h[124:136], fmt.Sprintf("%011o\x00", size))
	copy(h[136:148], "00000000000\x00")
	copy(h[148:156], "        ")
	h[156] = '0'
	copy(h[257:263], "ustar\x00")
	copy(h[263:265], "00")
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return h
}

// Opener opens an object's bytes for reading; the reader must fail if
// the bytes do not hash to d.
type Opener func(d digest.Digest) (io.ReadCloser, error)

// WriteBucket writes b's tar to w, reading each object through open.
func WriteBucket(w io.Writer, b Bucket, open Opener) (int64, error) {
	var n int64
	var zeros [blockSize]byte
	for _, o := range b.Objects {
		h := tarHeader(objectName(o.Digest), o.Size)
		k, err := w.Write(h[:])
		n += int64(k)
		if err != nil {
			return n, err
		}
		r, err := open(o.Digest)
		if err != nil {
			return n, err
		}
		c, err := io.Copy(w, r)
		r.Close()
		n += c
		if err != nil {
			return n, err
		}
		if c != o.Size {
			return n, fmt.Errorf("object %s has %d bytes, want %d", o.Digest, c, o.Size)
		}
		k, err = w.Write(zeros[:padded(o.Size)-o.Size])
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	for range 2 {
		k, err := w.Write(zeros[:])
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// ErrBadLayer reports layer content that breaks the layout: rejected
// whole.
var ErrBadLayer = errors.New("invalid layer")

func badLayer(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadLayer, fmt.Sprintf(format, args...))
}

// ReadBucket reads a bucket tar of the given prefix from r and calls fn
// with each entry's digest, size and bytes (fn may leave them unread, or
// be nil). The tar must be exactly what WriteBucket writes: canonical
// headers, names objects/<prefix>/<62 hex> in increasing order, content
// hashing to its name, zero padding, two zero blocks, nothing after.
func ReadBucket(r io.Reader, prefix string, fn func(d digest.Digest, size int64, content io.Reader) error) error {
	var hdr [blockSize]byte
	var zeros [blockSize]byte
	last := ""
	for i := 0; ; i++ {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return badLayer("bucket objects/%s: entry %d: reading header: %v", prefix, i, truncated(err))
		}
		if hdr == zeros {
			if _, err := io.ReadFull(r, hdr[:]); err != nil {
				return badLayer("bucket objects/%s: reading end of archive: %v", prefix, truncated(err))
			}
			if hdr != zeros {
				return badLayer("bucket objects/%s: end of archive is not two zero blocks", prefix)
			}
			var one [1]byte
			if n, _ := io.ReadFull(r, one[:]); n != 0 {
				return badLayer("bucket objects/%s: data after the end of the archive", prefix)
			}
			return nil
		}
		name := string(hdr[:bytes.IndexByte(append(hdr[:100:100], 0), 0)])
		d, ok := parseObjectName(name, prefix)
		if !ok {
			return badLayer("bucket objects/%s: entry %d: name %q is not objects/%s/<62 lowercase hex>", prefix, i, clip(name), prefix)
		}
		if name <= last {
			return badLayer("bucket objects/%s: entry %q is out of order", prefix, name)
		}
		last = name
		sizeField := string(hdr[124:135])
		size, err := strconv.ParseInt(sizeField, 8, 64)
		if err != nil || size < 0 || hdr[135] != 0 {
			return badLayer("bucket objects/%s: entry %s: bad size field %q", prefix, name, clip(sizeField))
		}
		if want := tarHeader(name, size); want != hdr {
			return badLayer("bucket objects/%s: entry %s: header is not the canonical one (mode 0444, owner 0, mtime 0, regular file, ustar)", prefix, name)
		}
		h := digest.NewHasher()
		content := io.TeeReader(io.LimitReader(r, size), h)
		if fn != nil {
			if err := fn(d, size, content); err != nil {
				return err
			}
		}
		// What fn left unread is hashed here.
		if _, err := io.Copy(io.Discard, content); err != nil {
			return badLayer("bucket objects/%s: entry %s: %v", prefix, name, truncated(err))
		}
		if got := h.Digest(); got != d {
			// A short read also lands here: fewer bytes hash otherwise.
			return badLayer("bucket objects/%s: entry %s: content hashes to %s (truncated or altered)", prefix, name, got)
		}
		pad := padded(size) - size
		if _, err := io.ReadFull(r, hdr[:pad]); err != nil {
			return badLayer("bucket objects/%s: entry %s: reading padding: %v", prefix, name, truncated(err))
		}
		if !bytes.Equal(hdr[:pad], zeros[:pad]) {
			return badLayer("bucket objects/%s: entry %s: padding is not zeros", prefix, name)
		}
	}
}

func truncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("archive is truncated")
	}
	return err
}

// parseObjectName checks name is objects/<prefix>/<62 lowercase hex>.
func parseObjectName(name, prefix string) (digest.Digest, bool) {
	if len(name) != len("objects/")+2+1+62 || name[:8] != "objects/" || name[10] != '/' || name[8:10] != prefix {
		return digest.Digest{}, false
	}
	h := name[8:10] + name[11:]
	d, err := digest.Parse(h)
	if err != nil || d.Hex() != h {
		return digest.Digest{}, false
	}
	return d, true
}

// clip shortens untrusted text for messages, which quote it with %q so
// that control characters are escaped.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
