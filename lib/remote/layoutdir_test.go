package remote

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
)

// TestLayoutRoundTrip pushes into an OCI image layout directory and
// pulls from it, with a referrer, and gets the same digest as a registry
// push: the layout is a function of the pack alone.
func TestLayoutRoundTrip(t *testing.T) {
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
	reg := newRegistry(t)
	a, b := newStore(t), newStore(t)
	m := makePack(t, a, "refs", sizes(5, 20), digest.Digest{})
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "pack.html"), filepath.Join(dir, "att.sigstore.json")}
	for _, f := range files {
		os.WriteFile(f, []byte("content of "+filepath.Base(f)), 0o644)
	}
	c := reg.client(t, "r")
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{Attach: []string{filepath.Join(dir, "x.txt")}}); !errors.Is(err, ErrInvalidRemote) {
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
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(out, filepath.Base(f)))
		if err != nil || string(got) != "content of "+filepath.Base(f) {
			t.Errorf("%s: %q %v", f, got, err)
		}
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
