package remote

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/ctx-tools/ctx/lib/attest"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// TestLayoutRoundTrip pushes into an OCI image layout directory and
// pulls from it, with a referrer, and gets the same digest as a registry
// push: the layout is a function of the pack alone.
func TestLayoutRoundTrip(t *testing.T) {
	t.Parallel()
	a, b := newStore(t), newStore(t)
	m := makePack(t, a, "layout", append(sizes(300, 20), LargeObject+1), digest.Digest{})
	dir := filepath.Join(t.TempDir(), "layout")
	if _, err := Open(mustParse(t, "oci-layout:"+dir), Options{}, false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("pull from a missing layout: %v", err)
	}
	c, err := Open(mustParse(t, "oci-layout:"+dir), Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	side := filepath.Join(t.TempDir(), "result.md.ctx.json")
	if err := os.WriteFile(side, []byte(`{"context_pack":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := c.Push(ctx, a, m.Hash, PushOptions{Tags: []string{"v1"}, Attach: []string{side}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Referrers) != 1 || res.Referrers[0].ArtifactType != SidecarMediaType {
		t.Errorf("referrers %+v", res.Referrers)
	}
	reg := newRegistry(t)
	rres, err := reg.client(t, "x").Push(ctx, a, m.Hash, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rres.Digest != res.Digest {
		t.Errorf("layout digest %s, registry digest %s", res.Digest, rres.Digest)
	}

	c2, err := Open(mustParse(t, "oci-layout:"+dir), Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "refs")
	pr, err := c2.Pull(ctx, b, "v1", PullOptions{Referrers: out})
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, a, b, m.Hash)
	if len(pr.Referrers) != 1 || len(pr.Referrers[0].Files) != 1 {
		t.Fatalf("pulled referrers %+v", pr.Referrers)
	}
	got, err := os.ReadFile(filepath.Join(out, "result.md.ctx.json"))
	if err != nil || string(got) != `{"context_pack":"x"}` {
		t.Errorf("referrer file: %q %v", got, err)
	}
	// A second pull finds the same file in place: no error.
	if _, err := c2.Pull(ctx, b, m.Hash.Hex(), PullOptions{Referrers: out}); err != nil {
		t.Errorf("second pull with referrers: %v", err)
	}
	// Another file in the way is not overwritten.
	os.WriteFile(filepath.Join(out, "result.md.ctx.json"), []byte("mine"), 0o644)
	if _, err := c2.Pull(ctx, b, m.Hash.Hex(), PullOptions{Referrers: out}); err == nil {
		t.Error("pull overwrote a file with other content")
	}
}

// TestReferrersOnRegistry attaches a report and a bundle and lists them
// back through the registry's referrers API.
func TestReferrersOnRegistry(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t)
	a, b := newStore(t), newStore(t)
	m := makePack(t, a, "refs", sizes(5, 20), digest.Digest{})
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "pack.html"), filepath.Join(dir, "att.sigstore.json")}
	os.WriteFile(files[0], []byte("content of pack.html"), 0o644)
	bundle := signedBundle(t, m)
	os.WriteFile(files[1], bundle, 0o644)
	c := reg.client(t, "r")
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{Attach: []string{filepath.Join(dir, "x.txt")}}); !errors.As(err, new(*ArgError)) {
		t.Errorf("attaching a .txt: %v", err)
	}
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{Attach: files}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	pr, err := c.Pull(ctx, b, m.Hash.Hex(), PullOptions{Referrers: out})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]bool{}
	for _, r := range pr.Referrers {
		types[r.ArtifactType] = true
	}
	if len(pr.Referrers) != 2 || !types[ReportMediaType] || !types[BundleMediaType] {
		t.Errorf("referrers %+v", pr.Referrers)
	}
	for f, want := range map[string]string{"pack.html": "content of pack.html", "att.sigstore.json": string(bundle)} {
		got, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q %v", f, got, err)
		}
	}
}

// signedBundle signs m's pack statement with a fixed key.
func signedBundle(t *testing.T, m *manifest.Manifest) []byte {
	t.Helper()
	s, err := attest.NewSigner(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	signed, err := s.SignPack(m)
	if err != nil {
		t.Fatal(err)
	}
	return signed.Bundle
}

// TestAttachBundleAnnotations: an attestation bundle is attached with the
// annotations cosign lists attestations by, and a file named like a
// bundle that is none is refused before anything is pushed.
func TestAttachBundleAnnotations(t *testing.T) {
	t.Parallel()
	a := newStore(t)
	m := makePack(t, a, "bundle", sizes(3, 20), digest.Digest{})
	dir := t.TempDir()
	layout := filepath.Join(dir, "layout")
	c, err := Open(mustParse(t, "oci-layout:"+layout), Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(dir, "fake.sigstore.json")
	os.WriteFile(fake, []byte("{}"), 0o644)
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{Attach: []string{fake}}); err == nil {
		t.Error("a .sigstore.json file that is no bundle was attached")
	}
	real := filepath.Join(dir, "pack.sigstore.json")
	os.WriteFile(real, signedBundle(t, m), 0o644)
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{Attach: []string{real}}); err != nil {
		t.Fatal(err)
	}
	var found bool
	filepath.WalkDir(filepath.Join(layout, "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		var om struct {
			ArtifactType string            `json:"artifactType"`
			Annotations  map[string]string `json:"annotations"`
		}
		if json.Unmarshal(b, &om) == nil && om.ArtifactType == BundleMediaType {
			found = om.Annotations["dev.sigstore.bundle.content"] == "dsse-envelope" &&
				om.Annotations["dev.sigstore.bundle.predicateType"] == attest.PredicateType
		}
		return nil
	})
	if !found {
		t.Error("no referrer manifest of the bundle carries cosign's dev.sigstore.bundle annotations")
	}
}

func mustParse(t *testing.T, s string) Remote {
	t.Helper()
	r, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReferrerTitles: a referrer whose file title is a path, not a plain
// name, or holds a character lib/visible hides (one of each class), is
// refused; nothing is written at all.
func TestReferrerTitles(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t)
	a, b := newStore(t), newStore(t)
	m := makePack(t, a, "evil-ref", sizes(3, 20), digest.Digest{})
	base := t.TempDir()
	for i, title := range []string{"../escape.html", "/tmp/abs.html", "a/b.html", "bidi\u202e.html", "",
		"csi\u009b31m.html", "nel\u0085.html", "rlm\u200f.html", "ls\u2028.html", "alm\u061c.html",
		"esc\x1b.html", "zwsp\u200b.html", "tag\U000e0041.html", "bad\xff.html"} {
		repo := fmt.Sprintf("r%d", i)
		c := reg.client(t, repo)
		res, err := c.Push(ctx, a, m.Hash, PushOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rp := reg.raw(t, repo)
		subject, err := c.PackDescriptor(ctx, m.Hash.Hex())
		if err != nil || subject.Digest.String() != res.Digest {
			t.Fatalf("pack descriptor %v %v", subject, err)
		}
		layer := plant(t, rp, ReportMediaType, title, []byte("<p>x</p>"))
		plant(t, rp, EmptyDescriptor.MediaType, "", emptyJSON)
		om := ocispec.Manifest{
			Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
			ArtifactType: ReportMediaType, Config: plain(EmptyDescriptor), Layers: []ocispec.Descriptor{layer},
			Subject: &ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size},
		}
		mb, desc, err := encodeManifest(om)
		if err != nil {
			t.Fatal(err)
		}
		if err := rp.Manifests().Push(ctx, desc, bytes.NewReader(mb)); err != nil {
			t.Fatal(err)
		}
		_, err = c.Pull(ctx, b, m.Hash.Hex(), PullOptions{Referrers: filepath.Join(base, "out")})
		if !errors.Is(err, ErrBadLayer) || !strings.Contains(err.Error(), "not a plain file name") {
			t.Errorf("title %q: %v", title, err)
		}
	}
	var found []string
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			found = append(found, p)
		}
		return nil
	})
	if len(found) > 0 {
		t.Errorf("files written: %v", found)
	}
}
