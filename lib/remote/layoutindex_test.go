//go:build unix

package remote

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/go-json-experiment/json"
	godigest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/registry"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// TestLayoutPushReadsItsOwn: a push into a layout reads index.json and
// the blobs of its own pack, not the other packs' manifests nor a
// listing of every blob, so that its cost follows the pack, not the
// layout. A layout whose other manifests are garbage, and which holds a
// named pipe among other packs' blobs, takes a push; the pipe and the
// garbage are found when a pull comes to them.
func TestLayoutPushReadsItsOwn(t *testing.T) {
	t.Parallel()
	a := newStore(t)
	dir := filepath.Join(t.TempDir(), "layout")
	c, err := Open(mustParse(t, "oci-layout:"+dir), Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	old := makePack(t, a, "old", sizes(5, 20), digest.Digest{})
	res, err := c.Push(ctx, a, old.Hash, PushOptions{Tags: []string{"v1"}})
	if err != nil {
		t.Fatal(err)
	}
	// The old pack's OCI manifest is garbage now, and one of its layers a
	// named pipe.
	blob := func(d string) string {
		return filepath.Join(dir, "blobs", "sha256", strings.TrimPrefix(d, "sha256:"))
	}
	os.Chmod(blob(res.Digest), 0o644)
	if err := os.WriteFile(blob(res.Digest), []byte("not a manifest"), 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := Build(ctx, a, old.Hash, 1)
	if err != nil {
		t.Fatal(err)
	}
	layer := blob(img.Layers[0].Digest.String())
	os.Remove(layer)
	if err := syscall.Mkfifo(layer, 0o644); err != nil {
		t.Fatal(err)
	}

	c, err = Open(mustParse(t, "oci-layout:"+dir), Options{}, true)
	if err != nil {
		t.Fatalf("opening a layout with another pack's manifest broken: %v", err)
	}
	m := makePack(t, a, "new", sizes(5, 20), digest.Digest{})
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{Tags: []string{"v2"}}); err != nil {
		t.Fatalf("push beside a broken pack: %v", err)
	}
	if _, err := c.Pull(ctx, newStore(t), "v2", PullOptions{}); err != nil {
		t.Errorf("pulling the new pack: %v", err)
	}
	if _, err := c.Pull(ctx, newStore(t), "v1", PullOptions{}); !errors.Is(err, ErrBadLayer) {
		t.Errorf("pulling the broken pack: %v, want ErrBadLayer", err)
	}
}

// layoutOps pushes OCI manifests to a layout through push, the same
// ones each time: two packs under their hash tags, tags moved between
// them and away from a referrer, referrers pushed untagged (one twice).
// It returns the packs' descriptors.
func layoutOps(t *testing.T, a *store.Store, push func(desc ocispec.Descriptor, b []byte, tags []string)) []ocispec.Descriptor {
	t.Helper()
	var packs []ocispec.Descriptor
	var bytes [][]byte
	for i := range 2 {
		img, err := Build(ctx, a, makePack(t, a, fmt.Sprint("ops", i), sizes(2, 10), digest.Digest{}).Hash, 1)
		if err != nil {
			t.Fatal(err)
		}
		push(img.Desc, img.Manifest, []string{img.Pack.Hash.Hex(), "v1"})
		packs = append(packs, img.Desc)
		bytes = append(bytes, img.Manifest)
	}
	push(packs[0], bytes[0], []string{"v0", "latest"})
	push(packs[1], bytes[1], []string{"latest"})
	for i, p := range packs {
		rd, rb := referrerOf(t, p)
		push(rd, rb, nil)
		push(rd, rb, nil)
		if i == 0 {
			push(rd, rb, []string{"moving"})
			push(p, bytes[i], []string{"moving"})
		}
	}
	return packs
}

// referrerOf returns an OCI manifest whose subject is subject.
func referrerOf(t *testing.T, subject ocispec.Descriptor) (ocispec.Descriptor, []byte) {
	t.Helper()
	layer := ocispec.Descriptor{MediaType: SidecarMediaType, Digest: godigest.FromString(subject.Digest.String()), Size: int64(len(subject.Digest.String()))}
	om := ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest, ArtifactType: SidecarMediaType,
		Config: plain(EmptyDescriptor), Layers: []ocispec.Descriptor{layer}, Subject: &subject}
	b, d, err := encodeManifest(om)
	if err != nil {
		t.Fatal(err)
	}
	return d, b
}

// TestLayoutIndexAsOras: after the same pushes, index.json lists what
// oras-go's oci.Store lists, and each reads what the other wrote alike
// (tags, digests, referrers): layouts written before, or by oras, go on
// working, and oras reads ours.
func TestLayoutIndexAsOras(t *testing.T) {
	t.Parallel()
	a := newStore(t)
	mine, theirs := filepath.Join(t.TempDir(), "mine"), filepath.Join(t.TempDir(), "theirs")
	ep, err := openLayout(mine)
	if err != nil {
		t.Fatal(err)
	}
	packs := layoutOps(t, a, func(desc ocispec.Descriptor, b []byte, tags []string) {
		if err := ep.pushManifest(ctx, desc, b, tags); err != nil {
			t.Fatal(err)
		}
	})
	st, err := oci.New(theirs)
	if err != nil {
		t.Fatal(err)
	}
	layoutOps(t, a, func(desc ocispec.Descriptor, b []byte, tags []string) {
		if ok, _ := st.Exists(ctx, desc); !ok {
			if err := st.Push(ctx, desc, strings.NewReader(string(b))); err != nil {
				t.Fatal(err)
			}
		}
		for _, tag := range tags {
			if err := st.Tag(ctx, desc, tag); err != nil {
				t.Fatal(err)
			}
		}
	})

	// A blob no manifest lists, resolved by digest.
	if err := ep.push(ctx, plain(EmptyDescriptor), bytesOpener(emptyJSON)); err != nil {
		t.Fatal(err)
	}
	if err := st.Push(ctx, plain(EmptyDescriptor), strings.NewReader(string(emptyJSON))); err != nil {
		t.Fatal(err)
	}

	entries := func(dir string) []string {
		b, err := os.ReadFile(filepath.Join(dir, "index.json"))
		if err != nil {
			t.Fatal(err)
		}
		var index ocispec.Index
		if err := json.Unmarshal(b, &index); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range index.Manifests {
			out = append(out, d.Digest.String()+" "+refName(d))
		}
		slices.Sort(out)
		return out
	}
	if m, o := entries(mine), entries(theirs); !slices.Equal(m, o) || len(m) != 8 {
		t.Errorf("index.json entries:\nmine   %q\noras's %q", m, o)
	}

	r0, _ := referrerOf(t, packs[0])
	for _, dir := range []string{mine, theirs} {
		mineEP, err := openLayout(dir)
		if err != nil {
			t.Fatal(err)
		}
		orasSt, err := oci.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, tag := range []string{"v0", "v1", "latest", "moving", r0.Digest.String(), EmptyDescriptor.Digest.String(), "nothing"} {
			d1, err1 := mineEP.resolve(ctx, tag)
			d2, err2 := orasSt.Resolve(ctx, tag)
			if (err1 == nil) != (err2 == nil) || d1.Digest != d2.Digest || d1.Size != d2.Size || d1.MediaType != d2.MediaType {
				t.Errorf("%s: resolve %s: %v %v, oras: %v %v", filepath.Base(dir), tag, d1, err1, d2, err2)
			}
		}
		for _, p := range packs {
			r1, err1 := mineEP.referrers(ctx, p)
			r2, err2 := registry.Referrers(ctx, orasSt, p, "")
			list := func(rs []ocispec.Descriptor) []string {
				var out []string
				for _, r := range rs {
					out = append(out, r.Digest.String()+" "+r.ArtifactType)
				}
				slices.Sort(out)
				return out
			}
			if err1 != nil || err2 != nil || len(r1) != 1 || !slices.Equal(list(r1), list(r2)) {
				t.Errorf("%s: referrers of %s: %v %v, oras: %v %v", filepath.Base(dir), p.Digest, list(r1), err1, list(r2), err2)
			}
		}
	}
}
