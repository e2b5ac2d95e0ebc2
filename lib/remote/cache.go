package remote

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-json-experiment/json"

	godigest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/store"
)

// The layout cache keeps, outside the store (in the user's cache
// directory), the OCI manifest each pushed pack was laid out as, so that
// re-pushing a pack the remote already has reads one small file instead
// of every object the pack references. A pack's layout is a function of
// the pack alone, so an entry never goes stale. It is only ever used to
// recognise that the remote holds this very manifest under the pack's
// hash tag; anything else is uploaded from a layout computed afresh.
//
// Files are <dir>/<pack hex>.json holding the manifest bytes, written to
// a temporary file and renamed into place.

// DefaultCacheDir is $XDG_CACHE_HOME/ctx/oci (os.UserCacheDir), or ""
// (no cache) when CTX_OCI_CACHE=off or there is no cache directory.
func DefaultCacheDir() string {
	if os.Getenv("CTX_OCI_CACHE") == "off" {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ctx", "oci")
}

// cachedImage is a pack's OCI manifest from the cache.
type cachedImage struct {
	bytes   []byte
	desc    ocispec.Descriptor
	created string
	layers  int
	blobs   int64 // bytes of config and layers
}

// cacheLoad returns the cached layout of pack d, or nil. An entry that
// is not a regular file of at most maxManifest bytes (lib/found) is an
// error: something other than ctx put it there.
func (c *Client) cacheLoad(d digest.Digest) (*cachedImage, error) {
	if c.cache == "" {
		return nil, nil
	}
	b, err := found.ReadFile(filepath.Join(c.cache, d.Hex()+".json"), found.Rule{What: "layout cache entry", Max: maxManifest, Within: c.cache})
	var fe *found.Error
	if errors.As(err, &fe) {
		return nil, fmt.Errorf("%w (remove it, or set CTX_OCI_CACHE=off)", err)
	}
	if err != nil {
		return nil, nil
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(b, &m); err != nil || m.ArtifactType != ArtifactType || m.Config.Digest != ociDigest(d) {
		return nil, nil
	}
	ci := &cachedImage{
		bytes:   b,
		desc:    ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: ArtifactType, Digest: godigest.FromBytes(b), Size: int64(len(b))},
		created: m.Annotations[ocispec.AnnotationCreated],
		layers:  len(m.Layers),
		blobs:   m.Config.Size,
	}
	for _, l := range m.Layers {
		ci.blobs += l.Size
	}
	return ci, nil
}

func (c *Client) cacheStore(d digest.Digest, manifest []byte) {
	if c.cache == "" {
		return
	}
	if err := os.MkdirAll(c.cache, 0o755); err != nil {
		return
	}
	// A cache: a crash loses only work to do again.
	store.WriteOptions{Perm: 0o600, NoSync: true}.WriteFile(filepath.Join(c.cache, d.Hex()+".json"), manifest)
}
