package remote

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/fsck"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

var ctx = context.Background()

// TestRoundTrip pushes a pack from store A and pulls it into store B: the
// same hash, every object, a valid store; the request budgets hold.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t)
	a, b := newStore(t), newStore(t)
	sz := sizes(600, 100)
	sz = append(sz, 0, 1, LargeObject, LargeObject+5)
	m := makePack(t, a, "rt", sz, digest.Digest{})
	c := reg.client(t, "team/runs")

	res, err := c.Push(ctx, a, m.Hash, PushOptions{Tags: []string{"baseline"}})
	if err != nil {
		t.Fatal(err)
	}
	first := reg.c.reset()
	small := map[string]bool{}
	for _, f := range m.Inputs {
		if f.Size < LargeObject {
			small[f.ContentRef.Hex()[:2]] = true
		}
	}
	if res.Layers != len(small)+2 || res.Uploaded.Blobs != res.Layers+1 || res.Skipped.Blobs != 0 {
		t.Errorf("first push: %+v", res)
	}
	if first["POST upload"] != res.Uploaded.Blobs || first["PUT manifest"] != 2 {
		t.Errorf("first push requests: %v", first)
	}

	// Re-push: one HEAD, one PUT for the extra tag.
	res2, err := c.Push(ctx, a, m.Hash, PushOptions{Tags: []string{"baseline"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.c.reset(); got["total"] > 2 || res2.Uploaded.Blobs != 0 || res2.Digest != res.Digest {
		t.Errorf("re-push: %d requests %v, result %+v", got["total"], got, res2)
	}
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := reg.c.reset(); got["total"] != 1 {
		t.Errorf("re-push without tags: %v", got)
	}

	pr, err := c.Pull(ctx, b, m.Hash.String(), PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := reg.c.reset()
	if gets := got["GET manifest"] + got["GET blob"]; gets > res.Layers+2 || got["total"] != gets {
		t.Errorf("pull: %v, want at most %d GETs and nothing else", got, res.Layers+2)
	}
	if pr.Hash != m.Hash || pr.Digest != res.Digest || pr.Objects.New != len(sz) {
		t.Errorf("pull result %+v", pr)
	}
	checkSame(t, a, b, m.Hash)

	// By tag, into a store that has everything: manifest and config only.
	pr, err = c.Pull(ctx, b, "baseline", PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.c.reset(); got["total"] != 2 || pr.Hash != m.Hash || pr.Downloaded.Blobs != 1 {
		t.Errorf("pull of a present pack: %v %+v", got, pr)
	}
}

// TestPullStagedOnDisk: beyond the memory budget, downloads go to a
// directory under tmp/, removed afterwards with tmp/ itself.
func TestPullStagedOnDisk(t *testing.T) {
	defer func(old int64) { maxHeld = old }(maxHeld)
	maxHeld = 4096
	reg := newRegistry(t)
	a, b := newStore(t), newStore(t)
	m := makePack(t, a, "disk", append(sizes(200, 100), LargeObject), digest.Digest{})
	c := reg.client(t, "disk")
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pull(ctx, b, m.Hash.Hex(), PullOptions{}); err != nil {
		t.Fatal(err)
	}
	checkSame(t, a, b, m.Hash)
	// tmp/ stays (another command may use it), empty.
	if ents, err := os.ReadDir(b.Path("tmp")); err != nil || len(ents) > 0 {
		t.Errorf("tmp/ holds %v (%v)", ents, err)
	}
}

// checkSame checks pack d is complete and valid in b, byte for byte as in a.
func checkSame(t *testing.T, a, b *store.Store, d digest.Digest) {
	t.Helper()
	mb, err := manifest.Load(b, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range mb.Refs() {
		x, err1 := a.Get(r)
		y, err2 := b.Get(r)
		if err1 != nil || err2 != nil || string(x) != string(y) {
			t.Fatalf("object %s differs: %v %v", r, err1, err2)
		}
	}
	if ok, _ := b.HasPack(d); !ok {
		t.Fatalf("pack %s not finalized in B", d)
	}
	rep, err := fsck.Store(b, fsck.Options{})
	if err != nil || !rep.OK() || len(rep.Warnings) > 0 {
		t.Fatalf("store B: %v %+v", err, rep)
	}
}

// TestForkUploadsChangedBuckets: a pack sharing most objects with one
// already pushed uploads only the buckets its new objects fall in, and
// pulling it into a store holding the parent downloads only those.
func TestForkUploadsChangedBuckets(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t)
	a, b := newStore(t), newStore(t)
	base := makePack(t, a, "base", sizes(1000, 50), digest.Digest{})
	c := reg.client(t, "runs")
	if _, err := c.Push(ctx, a, base.Hash, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pull(ctx, b, base.Hash.Hex(), PullOptions{}); err != nil {
		t.Fatal(err)
	}
	// The fork: the same inputs plus ten new ones.
	fork := *base
	fork.Parent = base.Hash
	fork.Inputs = append([]manifest.File(nil), base.Inputs...)
	prefixes := map[string]bool{}
	for i := range 10 {
		d, _, err := a.Put(content("fork", i, 70))
		if err != nil {
			t.Fatal(err)
		}
		prefixes[d.Hex()[:2]] = true
		fork.Inputs = append(fork.Inputs, manifest.File{Name: "new/" + d.Hex()[:8], ContentRef: d, Size: 70})
	}
	fork.Hash = digest.Digest{}
	fd, _, err := manifest.Commit(a, &fork)
	if err != nil {
		t.Fatal(err)
	}
	reg.c.reset()
	res, err := c.Push(ctx, a, fd, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := reg.c.reset()
	if res.Uploaded.Blobs != len(prefixes)+1 || got["POST upload"] != len(prefixes)+1 {
		t.Errorf("fork push uploaded %d blobs (%v), want %d changed buckets + config", res.Uploaded.Blobs, got, len(prefixes))
	}
	pr, err := c.Pull(ctx, b, fd.String(), PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got = reg.c.reset()
	if got["GET blob"] != len(prefixes)+1 || pr.Objects.New != 10 {
		t.Errorf("fork pull: %v %+v, want %d buckets + config", got, pr, len(prefixes))
	}
	checkSame(t, a, b, fd)
}

// TestRetries: 429 and 500 answers are retried, for idempotent requests
// and for uploads from memory and streamed from the store alike.
func TestRetries(t *testing.T) {
	t.Run("held", testRetries)
	t.Run("streamed", func(t *testing.T) {
		defer func(old int64) { maxHeld = old }(maxHeld)
		maxHeld = 0
		testRetries(t)
	})
}

func testRetries(t *testing.T) {
	reg := newRegistry(t)
	a, b := newStore(t), newStore(t)
	m := makePack(t, a, "retry", sizes(40, 10), digest.Digest{})
	c := reg.client(t, "runs")
	injected := map[string]int{}
	reg.c.fault = func(k string, req *http.Request) *http.Response {
		reg.c.mu.Lock()
		defer reg.c.mu.Unlock()
		codes := map[string]int{"HEAD blob": 429, "PUT upload": 500, "GET blob": 503, "GET manifest": 429, "PUT manifest": 502}
		if code, ok := codes[k]; ok && injected[k] < 2 {
			injected[k]++
			return statusResponse(code)
		}
		return nil
	}
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{}); err != nil {
		t.Fatalf("push with faults: %v", err)
	}
	if _, err := c.Pull(ctx, b, m.Hash.String(), PullOptions{}); err != nil {
		t.Fatalf("pull with faults: %v", err)
	}
	for _, k := range []string{"HEAD blob", "PUT upload", "GET blob", "GET manifest", "PUT manifest"} {
		if injected[k] != 2 {
			t.Errorf("%s: %d faults injected, want 2", k, injected[k])
		}
	}
	checkSame(t, a, b, m.Hash)

	// A registry that keeps failing: an error, after the retries.
	reg.c.fault = func(k string, req *http.Request) *http.Response { return statusResponse(500) }
	reg.c.reset()
	m2 := makePack(t, a, "retry2", sizes(3, 10), digest.Digest{})
	if _, err := c.Push(ctx, a, m2.Hash, PushOptions{}); err == nil {
		t.Fatal("push to a failing registry succeeded")
	}
	if n := reg.c.get("total"); n < 6 || n > 20 {
		t.Errorf("%d requests to a failing registry, want the retries (6) and not many more", n)
	}
}

func TestParseRemote(t *testing.T) {
	for _, tc := range []struct {
		in, url string
		loop    bool
		ok      bool
	}{
		{"oci://ghcr.io/acme/runs", "oci://ghcr.io/acme/runs", false, true},
		{"oci://localhost:5000/runs/", "oci://localhost:5000/runs", true, true},
		{"oci://127.0.0.1:5000/a/b/c", "oci://127.0.0.1:5000/a/b/c", true, true},
		{"oci://[::1]:5000/r", "oci://[::1]:5000/r", true, true},
		{"oci-layout:dir/x", "oci-layout:dir/x", false, true},
		{"oci://ghcr.io/acme/runs:tag", "", false, false},
		{"oci://ghcr.io/acme/runs@sha256:00", "", false, false},
		{"oci://ghcr.io/Upper", "", false, false},
		{"oci://ghcr.io", "", false, false},
		{"oci-layout:", "", false, false},
		{"https://ghcr.io/x", "", false, false},
	} {
		r, err := Parse(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if err == nil && (r.URL != tc.url || r.Loopback() != tc.loop) {
			t.Errorf("Parse(%q) = %+v, loopback %v", tc.in, r, r.Loopback())
		}
		if err != nil && !errors.Is(err, ErrInvalidRemote) {
			t.Errorf("Parse(%q): %v is not ErrInvalidRemote", tc.in, err)
		}
	}
	cfg := []byte(`{"version":1,"hash":"sha256","remotes":{"origin":"oci://ghcr.io/acme/runs","bad":"ftp://x"}}`)
	if r, err := Lookup("origin", cfg, "/base"); err != nil || r.Registry != "ghcr.io" || r.Repository != "acme/runs" {
		t.Errorf("Lookup(origin) = %+v, %v", r, err)
	}
	if r, err := Lookup("local", []byte(`{"remotes":{"local":"oci-layout:l/dir"}}`), "/base"); err != nil || r.Dir != "/base/l/dir" || r.URL != "oci-layout:/base/l/dir" {
		t.Errorf("Lookup(local) = %+v, %v", r, err)
	}
	if _, err := Lookup("bad", cfg, "/base"); err == nil || !strings.Contains(err.Error(), "remotes.bad") {
		t.Errorf("Lookup(bad): %v", err)
	}
	if _, err := Lookup("nope", cfg, "/base"); err == nil || !strings.Contains(err.Error(), "configured: bad, origin") {
		t.Errorf("Lookup(nope): %v", err)
	}
	if _, err := Lookup("origin", []byte(`{"remotes":["x"]}`), "/base"); err == nil {
		t.Error("Lookup with remotes not an object succeeded")
	}
}

// TestLayoutCache: with the layout cache, re-pushing a pack the remote
// has reads no object (one is even gone) and costs one request; a cache
// entry that does not match the remote is not trusted.
func TestLayoutCache(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t)
	a := newStore(t)
	m := makePack(t, a, "cache", sizes(50, 10), digest.Digest{})
	c := reg.client(t, "runs")
	c.cache = t.TempDir()
	res, err := c.Push(ctx, a, m.Hash, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A push elsewhere asks for the hash tag once, cache or not.
	fresh := reg.client(t, "fresh")
	fresh.cache = c.cache
	reg.c.reset()
	if _, err := fresh.Push(ctx, a, m.Hash, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := reg.c.reset(); got["HEAD manifest"] != 1 {
		t.Errorf("first push with a cache entry: %v", got)
	}
	if err := os.Chmod(a.ObjectPath(m.Inputs[0].ContentRef), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(a.ObjectPath(m.Inputs[0].ContentRef)); err != nil {
		t.Fatal(err)
	}
	reg.c.reset()
	res2, err := c.Push(ctx, a, m.Hash, PushOptions{Tags: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.c.reset(); got["total"] != 2 || res2.Digest != res.Digest || res2.Skipped != (Transfer{Blobs: res.Uploaded.Blobs, Bytes: res.Uploaded.Bytes}) {
		t.Errorf("cached re-push: %v, %+v (first push %+v)", got, res2, res)
	}
	// The remote lost the pack: the cache is not enough, the missing
	// object is an error.
	other := reg.client(t, "elsewhere")
	other.cache = c.cache
	if _, err := other.Push(ctx, a, m.Hash, PushOptions{}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("push to a remote without the pack, object missing: %v", err)
	}
	// A poisoned entry is not trusted.
	os.WriteFile(filepath.Join(c.cache, m.Hash.Hex()+".json"), []byte(`{"artifactType":"`+ArtifactType+`","config":{"digest":"`+ociDigest(m.Hash).String()+`"}}`), 0o644)
	b := newStore(t)
	m2 := makePack(t, b, "cache", sizes(50, 10), digest.Digest{})
	if m2.Hash != m.Hash {
		t.Fatal("the same pack made twice has two hashes")
	}
	if _, err := c.Push(ctx, b, m.Hash, PushOptions{}); err != nil {
		t.Fatal(err)
	}
}
