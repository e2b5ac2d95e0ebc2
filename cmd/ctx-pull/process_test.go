package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/ctx-tools/ctx/lib/fsck"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/remote"
	"github.com/ctx-tools/ctx/lib/store"
)

// TestKilledPull kills ctx-pull at points spread over its download and
// write phases: each time the store stays valid for ctx-verify --fsck
// (at most leftover temporaries, a warning), and a last pull completes.
// The first kill comes while a blob is being asked for, so that one pull
// at least is killed before it finishes however the machine's speed
// changes; the others at fractions of the time a whole pull took.
func TestKilledPull(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes; skipped with -short")
	}
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	// gate, when set, holds the first blob request until the test has
	// killed the pull that made it.
	var gate atomic.Pointer[blobGate]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/") {
			if g := gate.Load(); g != nil {
				g.once.Do(func() { close(g.reached) })
				<-g.release
			}
			time.Sleep(3 * time.Millisecond) // a download phase long enough to land in
		}
		reg.ServeHTTP(w, r)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	a, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	a.SetSyncMode(store.SyncNone)
	m := &manifest.Manifest{Version: manifest.Version, Created: "2026-02-10T09:00:00Z", Model: manifest.Model{Identifier: "m"}}
	for i := range 3000 {
		d, _, err := a.Put([]byte(fmt.Sprintf("object %d %s", i, strings.Repeat("x", i%300))))
		if err != nil {
			t.Fatal(err)
		}
		m.Inputs = append(m.Inputs, manifest.File{Name: fmt.Sprint("in/", i), ContentRef: d, Size: 1})
	}
	d, _, err := manifest.Commit(a, m)
	if err != nil {
		t.Fatal(err)
	}
	rem, _ := remote.Parse("oci://" + host + "/runs")
	c, err := remote.Open(rem, remote.Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Push(context.Background(), a, d, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	if out, err := exec.Command(e2e.Bin("ctx-init"), dir).CombinedOutput(); err != nil {
		t.Fatalf("ctx-init: %v\n%s", err, out)
	}
	b, err := store.Open(filepath.Join(dir, ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	pull := func() *exec.Cmd {
		cmd := exec.Command(e2e.Bin("ctx-pull"), "--store", dir, rem.URL, d.String())
		cmd.Env = append(cmd.Environ(), "DOCKER_CONFIG="+t.TempDir())
		return cmd
	}
	// How long a whole pull takes here and now, into a scratch store.
	scratch := t.TempDir()
	if out, err := exec.Command(e2e.Bin("ctx-init"), scratch).CombinedOutput(); err != nil {
		t.Fatalf("ctx-init: %v\n%s", err, out)
	}
	start := time.Now()
	full := pull()
	full.Args[2] = scratch
	if out, err := full.CombinedOutput(); err != nil {
		t.Fatalf("pull: %v\n%s", err, out)
	}
	whole := time.Since(start)

	killed, written := 0, 0
	for i := 0; i <= 9; i++ {
		delay := whole * time.Duration(i) / 10
		var g *blobGate
		if i == 0 {
			g = &blobGate{reached: make(chan struct{}), release: make(chan struct{})}
			gate.Store(g)
		}
		cmd := pull()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if g != nil {
			select {
			case <-g.reached:
			case <-time.After(time.Minute): // a bound on a hang, not a race
				t.Error("the pull asked for no blob in a minute")
			}
		} else {
			time.Sleep(delay)
		}
		cmd.Process.Kill()
		if err := cmd.Wait(); err != nil {
			killed++
		}
		if g != nil {
			gate.Store(nil)
			close(g.release)
		}
		rep, err := fsck.Store(b, fsck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() {
			t.Fatalf("after a kill at %v: store invalid: %+v", delay, rep.Violations)
		}
		if rep.Objects > 0 {
			written++ // killed in the write phase, or after
		}
		if ok, _ := b.HasPack(d); ok {
			break // this pull finished: later kills would test nothing
		}
	}
	if killed == 0 {
		t.Fatal("no pull was killed before it finished")
	}
	if out, err := pull().CombinedOutput(); err != nil {
		t.Fatalf("pull after %d kills: %v\n%s", killed, err, out)
	}
	rep, err := fsck.Pack(b, d, fsck.Options{})
	if err != nil || !rep.OK() {
		t.Fatalf("pack after the last pull: %v %+v", err, rep)
	}
	out, err := exec.Command(e2e.Bin("ctx-verify"), "--fsck", "--store", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("ctx-verify --fsck: %v\n%s", err, out)
	}
	t.Logf("a whole pull takes %v; %d pulls killed; the store held pulled objects after %d of them", whole, killed, written)
}

// blobGate holds blob requests: reached is closed when the first comes,
// and they go on once release is.
type blobGate struct {
	once    sync.Once
	reached chan struct{}
	release chan struct{}
}
