package remote

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	orasremote "oras.land/oras-go/v2/registry/remote"

	"github.com/ctx-tools/ctx/lib/digest"
)

// plantReferrer attaches a file of the given artifact and layer media
// types to subject on rp, bypassing ctx's checks.
func plantReferrer(t testing.TB, rp *orasremote.Repository, subject ocispec.Descriptor, artifactType, mediaType, title string, body []byte) {
	t.Helper()
	layer := plant(t, rp, mediaType, title, body)
	plant(t, rp, EmptyDescriptor.MediaType, "", emptyJSON)
	om := ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
		ArtifactType: artifactType, Config: plain(EmptyDescriptor), Layers: []ocispec.Descriptor{layer},
		Subject:     &ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size},
		Annotations: map[string]string{"n": title},
	}
	mb, desc, err := encodeManifest(om)
	if err != nil {
		t.Fatal(err)
	}
	if err := rp.Manifests().Push(ctx, desc, bytes.NewReader(mb)); err != nil {
		t.Fatal(err)
	}
}

// TestReferrerKinds: --referrers writes only the kinds ctx attaches, each
// under a name of its kind, unless AllKinds is asked for.
func TestReferrerKinds(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t)
	a := newStore(t)
	m := makePack(t, a, "kinds", sizes(2, 20), digest.Digest{})
	c := reg.client(t, "kinds")
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	subject, err := c.PackDescriptor(ctx, m.Hash.Hex())
	if err != nil {
		t.Fatal(err)
	}
	rp := reg.raw(t, "kinds")
	plantReferrer(t, rp, subject, ReportMediaType, ReportMediaType, "report.html", []byte("<p>ok</p>"))
	plantReferrer(t, rp, subject, "application/x-python", "text/x-python", "conftest.py", []byte("import os\n"))

	out := filepath.Join(t.TempDir(), "out")
	res, err := c.Pull(ctx, newStore(t), m.Hash.Hex(), PullOptions{Referrers: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Referrers) != 1 || res.Referrers[0].Files[0] != "report.html" || res.ReferrersSkipped != 1 {
		t.Errorf("referrers %+v, skipped %d", res.Referrers, res.ReferrersSkipped)
	}
	if _, err := os.Stat(filepath.Join(out, "conftest.py")); err == nil {
		t.Error("conftest.py was written without AllKinds")
	}

	all := filepath.Join(t.TempDir(), "all")
	res, err = c.Pull(ctx, newStore(t), m.Hash.Hex(), PullOptions{Referrers: all, ReferrerOptions: ReferrerOptions{AllKinds: true}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(all, "conftest.py")); string(b) != "import os\n" || len(res.Referrers) != 2 {
		t.Errorf("with AllKinds: %+v, conftest.py %q", res.Referrers, b)
	}

	// A ctx kind carrying a file not of that kind is refused whole.
	plantReferrer(t, rp, subject, SidecarMediaType, SidecarMediaType, ".envrc", []byte("export X=1\n"))
	bad := filepath.Join(t.TempDir(), "bad")
	_, err = c.Pull(ctx, newStore(t), m.Hash.Hex(), PullOptions{Referrers: bad})
	if !errors.Is(err, ErrBadLayer) || !strings.Contains(err.Error(), `".envrc" is not a file of its kind`) {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("the referrers directory was made although a referrer was refused")
	}
}

// TestReferrersParallel: referrers are fetched --jobs at a time.
func TestReferrersParallel(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t)
	a := newStore(t)
	m := makePack(t, a, "many", sizes(2, 20), digest.Digest{})
	c := reg.client(t, "many")
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	subject, _ := c.PackDescriptor(ctx, m.Hash.Hex())
	rp := reg.raw(t, "many")
	const n = 40
	for i := range n {
		plantReferrer(t, rp, subject, ReportMediaType, ReportMediaType, fmt.Sprintf("r%02d.html", i), []byte(fmt.Sprintf("<p>%d</p>", i)))
	}
	var inFlight, most atomic.Int32
	reg.c.fault = func(k string, req *http.Request) *http.Response {
		if k == "GET manifest" {
			now := inFlight.Add(1)
			for {
				old := most.Load()
				if now <= old || most.CompareAndSwap(old, now) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			inFlight.Add(-1)
		}
		return nil
	}
	defer func() { reg.c.fault = nil }()
	res, err := c.Pull(ctx, newStore(t), m.Hash.Hex(), PullOptions{Referrers: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Referrers) != n {
		t.Fatalf("%d referrers", len(res.Referrers))
	}
	if most.Load() < 2 {
		t.Errorf("referrer manifests were fetched one at a time")
	}
}

// TestReferrersEndlessPages: a listing whose every page links to another
// is cut after MaxReferrerPages pages.
func TestReferrersEndlessPages(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t)
	a := newStore(t)
	m := makePack(t, a, "pages", sizes(2, 20), digest.Digest{})
	c := reg.client(t, "pages")
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	page := 0
	reg.c.fault = func(k string, req *http.Request) *http.Response {
		if k != "GET referrers" {
			return nil
		}
		page++
		resp := statusResponse(http.StatusOK)
		resp.Header.Set("Content-Type", ocispec.MediaTypeImageIndex)
		resp.Header.Set("Link", fmt.Sprintf(`<%s?page=%d>; rel="next"`, req.URL.Path, page))
		resp.Body = io.NopCloser(strings.NewReader(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`))
		return resp
	}
	defer func() { reg.c.fault = nil }()
	_, err := c.Pull(ctx, newStore(t), m.Hash.Hex(), PullOptions{Referrers: t.TempDir()})
	if !errors.Is(err, ErrTooMany) || !strings.Contains(err.Error(), "pages") {
		t.Errorf("error %v", err)
	}
	if page > MaxReferrerPages+1 {
		t.Errorf("%d pages fetched", page)
	}
}
