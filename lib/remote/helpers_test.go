package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	godigest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	orasremote "oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// counter is an http.RoundTripper that counts requests by kind and can
// answer some of them itself (fault injection) or alter responses.
type counter struct {
	base http.RoundTripper

	mu     sync.Mutex
	counts map[string]int
	// fault, if set, may return a response to send instead of asking the
	// registry.
	fault func(kind string, req *http.Request) *http.Response
	// alter, if set, may change a response.
	alter func(kind string, resp *http.Response)
}

// kind names a request: "GET blob", "HEAD manifest", "POST upload", …
func kind(req *http.Request) string {
	p := req.URL.Path
	k := "other"
	switch {
	case strings.Contains(p, "/blobs/uploads"):
		k = "upload"
	case strings.Contains(p, "/blobs/"):
		k = "blob"
	case strings.Contains(p, "/manifests/"):
		k = "manifest"
	case strings.Contains(p, "/referrers/"):
		k = "referrers"
	}
	return req.Method + " " + k
}

func (c *counter) RoundTrip(req *http.Request) (*http.Response, error) {
	k := kind(req)
	c.mu.Lock()
	c.counts[k]++
	c.counts["total"]++
	fault := c.fault
	c.mu.Unlock()
	if fault != nil {
		if resp := fault(k, req); resp != nil {
			if req.Body != nil {
				io.Copy(io.Discard, req.Body)
				req.Body.Close()
			}
			resp.Request = req
			return resp, nil
		}
	}
	resp, err := c.base.RoundTrip(req)
	if err == nil && c.alter != nil {
		c.alter(k, resp)
	}
	return resp, err
}

func (c *counter) reset() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.counts
	c.counts = map[string]int{}
	return old
}

func (c *counter) get(k string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[k]
}

func statusResponse(code int) *http.Response {
	return &http.Response{
		StatusCode: code, Status: http.StatusText(code), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   io.NopCloser(strings.NewReader(`{"errors":[{"code":"TOOMANYREQUESTS","message":"injected"}]}`)),
	}
}

// testRegistry is an in-process registry (go-containerregistry's, with
// the referrers API) behind a counter.
type testRegistry struct {
	srv *httptest.Server
	c   *counter
}

func newRegistry(t testing.TB) *testRegistry {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	return &testRegistry{srv: srv, c: &counter{base: srv.Client().Transport, counts: map[string]int{}}}
}

func (r *testRegistry) host() string { return strings.TrimPrefix(r.srv.URL, "http://") }

// client returns a Client of repository repo on r.
func (r *testRegistry) client(t testing.TB, repo string) *Client {
	t.Helper()
	rem, err := Parse("oci://" + r.host() + "/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(rem, Options{Transport: r.c, RetryWait: time.Millisecond, Credential: auth.StaticCredential(r.host(), auth.EmptyCredential)}, true)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// raw returns an oras repository on r without retries or counting, to
// plant content.
func (r *testRegistry) raw(t testing.TB, repo string) *orasremote.Repository {
	t.Helper()
	rp, err := orasremote.NewRepository(r.host() + "/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	rp.PlainHTTP = true
	return rp
}

func newStore(t testing.TB) *store.Store {
	t.Helper()
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetSyncMode(store.SyncNone)
	return s
}

// content returns the deterministic bytes of object i of a test pack.
func content(seed string, i, size int) []byte {
	b := make([]byte, size)
	h := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", seed, i)))
	for j := range b {
		b[j] = 'a' + h[j%len(h)]%26
	}
	return b
}

// makePack stores a pack with an input per size in sizes and returns it.
func makePack(t testing.TB, s *store.Store, seed string, sizes []int, parent digest.Digest) *manifest.Manifest {
	t.Helper()
	m := &manifest.Manifest{
		Version: manifest.Version, Created: "2026-02-10T09:00:00Z", Parent: parent,
		Model: manifest.Model{Identifier: "test-model"},
	}
	for i, size := range sizes {
		d, _, err := s.Put(content(seed, i, size))
		if err != nil {
			t.Fatal(err)
		}
		m.Inputs = append(m.Inputs, manifest.File{Name: fmt.Sprintf("in/%d", i), ContentRef: d, Size: int64(size)})
	}
	if _, _, err := manifest.Commit(s, m); err != nil {
		t.Fatal(err)
	}
	return m
}

func sizes(n, size int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = size + i%7
	}
	return out
}

// snapshot lists every file under a store with its mode and content
// hash, to prove a failed command changed nothing.
func snapshot(t *testing.T, s *store.Store) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(s.Root(), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.Root(), p)
		if rel == "tmp" {
			// The directory of in-flight writes may appear (and stays, as
			// others may use it); what is in it is listed.
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", rel, info.Mode())
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			line += " " + hex.EncodeToString(sum[:])
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// plant pushes a blob to rp and returns its descriptor.
func plant(t testing.TB, rp *orasremote.Repository, mediaType, title string, b []byte) ocispec.Descriptor {
	t.Helper()
	desc := ocispec.Descriptor{MediaType: mediaType, Digest: godigest.FromBytes(b), Size: int64(len(b))}
	if title != "" {
		desc.Annotations = map[string]string{ocispec.AnnotationTitle: title}
	}
	if err := rp.Blobs().Push(context.Background(), desc, bytes.NewReader(b)); err != nil && !strings.Contains(err.Error(), "exist") {
		t.Fatal(err)
	}
	return desc
}

// plantManifest pushes m under tag.
func plantManifest(t testing.TB, rp *orasremote.Repository, m ocispec.Manifest, tag string) ocispec.Descriptor {
	t.Helper()
	b, desc, err := encodeManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := rp.Manifests().PushReference(context.Background(), desc, bytes.NewReader(b), tag); err != nil {
		t.Fatal(err)
	}
	return desc
}
