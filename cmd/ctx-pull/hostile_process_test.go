package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/remote"
	"github.com/ctx-tools/ctx/lib/store"
)

// pushed stores a pack of n inputs of size bytes each in a new store,
// pushes it to host and returns its hash and remote.
func pushed(t *testing.T, host string, n, size int) (string, remote.Remote) {
	t.Helper()
	a, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	a.SetSyncMode(store.SyncNone)
	m := &manifest.Manifest{Version: manifest.Version, Created: "2026-02-10T09:00:00Z", Model: manifest.Model{Identifier: "m"}}
	for i := range n {
		b := []byte(fmt.Sprintf("object %d ", i) + strings.Repeat(fmt.Sprint(i%10), size))
		d, _, err := a.Put(b)
		if err != nil {
			t.Fatal(err)
		}
		m.Inputs = append(m.Inputs, manifest.File{Name: fmt.Sprint("in/", i), ContentRef: d, Size: int64(len(b))})
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
	return d.String(), rem
}

func initStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command(e2e.Bin("ctx-init"), dir).CombinedOutput(); err != nil {
		t.Fatalf("ctx-init: %v\n%s", err, out)
	}
	return dir
}

// TestUnsolicitedResponseQuiet: a registry that sends bytes on an idle
// connection makes net/http log "Unsolicited response received on idle
// HTTP channel"; that never reaches ctx-pull's stderr.
func TestUnsolicitedResponseQuiet(t *testing.T) {
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	var armed, sent atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !armed.Load() || !sent.CompareAndSwap(false, true) {
			reg.ServeHTTP(w, r)
			return
		}
		// Answer the first request in full, and more after it.
		rec := httptest.NewRecorder()
		reg.ServeHTTP(rec, r)
		conn, bw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		resp := rec.Result()
		resp.ContentLength = int64(rec.Body.Len())
		resp.Write(bw)
		bw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
		bw.Flush()
		time.Sleep(100 * time.Millisecond)
	}))
	defer srv.Close()
	d, rem := pushed(t, strings.TrimPrefix(srv.URL, "http://"), 3, 10)
	armed.Store(true)
	dir := initStore(t)
	cmd := exec.Command(e2e.Bin("ctx-pull"), "--store", dir, "--jobs", "1", rem.URL, d)
	cmd.Env = append(cmd.Environ(), "DOCKER_CONFIG="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Run()
	if strings.Contains(stderr.String(), "Unsolicited") {
		t.Errorf("stderr: %s", stderr.String())
	}
	if !sent.Load() {
		t.Fatal("the hostile answer was never sent")
	}
}

// TestKilledPullStagingCleaned: a pull killed (SIGKILL) while staging on
// disk leaves its staging directory; the next pull removes it once it is
// stale, and completes.
func TestKilledPullStagingCleaned(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 70 MB; skipped with -short")
	}
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	var slow atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() && r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/") {
			time.Sleep(20 * time.Millisecond)
		}
		reg.ServeHTTP(w, r)
	}))
	defer srv.Close()
	// Past the 64 MiB held in memory: 70 objects of 1 MiB, own layers.
	d, rem := pushed(t, strings.TrimPrefix(srv.URL, "http://"), 70, 1<<20)
	dir := initStore(t)
	pull := func() *exec.Cmd {
		cmd := exec.Command(e2e.Bin("ctx-pull"), "--store", dir, "--jobs", "2", rem.URL, d)
		cmd.Env = append(cmd.Environ(), "DOCKER_CONFIG="+t.TempDir())
		return cmd
	}
	slow.Store(true)
	cmd := pull()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, ".ctx", "tmp")
	var left []string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		left, _ = filepath.Glob(filepath.Join(tmp, "pull-*", "blob-*"))
		if len(left) > 0 {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	stale, _ := filepath.Glob(filepath.Join(tmp, "pull-*"))
	if len(left) == 0 || len(stale) == 0 {
		t.Fatalf("the killed pull left no staging directory (blobs %v)", left)
	}
	// Older than store.StaleStaging, as after a minute.
	old := time.Now().Add(-2 * store.StaleStaging)
	for _, p := range stale {
		os.Chtimes(p, old, old)
	}
	slow.Store(false)
	if out, err := pull().CombinedOutput(); err != nil {
		t.Fatalf("pull: %v\n%s", err, out)
	}
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s, left by the killed pull, is still there", p)
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		t.Errorf("tmp/ holds %d entries", len(ents))
	}
}

// TestStallingRegistry: a registry that accepts requests and never
// answers, or answers a byte at a time, fails ctx-pull and ctx-push
// promptly (exit 2) at the timeouts given by flag or environment.
func TestStallingRegistry(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/drip/") {
			// A manifest of 1000 bytes, sent a byte at a time.
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			w.Header().Set("Content-Length", "1000")
			w.Header().Set("Docker-Content-Digest", "sha256:"+strings.Repeat("cd", 32))
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodHead {
				return
			}
			for {
				if _, err := w.Write([]byte{' '}); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-time.After(100 * time.Millisecond):
				case <-stop:
					return
				}
			}
		}
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer srv.Close()
	defer close(stop)
	host := strings.TrimPrefix(srv.URL, "http://")
	dir := initStore(t)
	hash := "sha256:" + strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want string
	}{
		{"pull, no answer, flag", []string{"ctx-pull", "--response-timeout", "500ms", "oci://" + host + "/stall", hash}, "", "did not answer within 500ms (--response-timeout, CTX_RESPONSE_TIMEOUT)"},
		{"pull, no answer, env", []string{"ctx-pull", "oci://" + host + "/stall", hash}, "CTX_RESPONSE_TIMEOUT=400ms", "did not answer within 400ms"},
		{"pull, drip, env", []string{"ctx-pull", "oci://" + host + "/drip", hash}, "CTX_IDLE_TIMEOUT=500ms", "the registry stalled"},
		{"push, no answer", []string{"ctx-push", "--response-timeout", "500ms", "oci://" + host + "/stall", "latest"}, "", "did not answer within 500ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.args[0] == "ctx-push" {
				log := filepath.Join(t.TempDir(), "log.json")
				os.WriteFile(log, []byte(`{"created":"2026-03-01T10:00:00Z","model":{"identifier":"m"},"steps":[]}`), 0o644)
				if out, err := exec.Command(e2e.Bin("ctx-pack"), "--store", dir, log).CombinedOutput(); err != nil {
					t.Fatalf("ctx-pack: %v\n%s", err, out)
				}
			}
			args := append([]string{"--store", dir}, tc.args[1:]...)
			cmd := exec.Command(e2e.Bin(tc.args[0]), args...)
			for _, e := range os.Environ() {
				if !strings.HasPrefix(e, "CTX_") {
					cmd.Env = append(cmd.Env, e)
				}
			}
			cmd.Env = append(cmd.Env, "DOCKER_CONFIG="+t.TempDir(), "CTX_OCI_CACHE=off")
			if tc.env != "" {
				cmd.Env = append(cmd.Env, tc.env)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			start := time.Now()
			err := cmd.Run()
			took := time.Since(start)
			if code := cmd.ProcessState.ExitCode(); code != 2 {
				t.Errorf("exit %d (%v), want 2", code, err)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q: want %q", stderr.String(), tc.want)
			}
			// Well below the default timeouts (a minute), and far above
			// what the short ones need on a loaded machine.
			if took > 30*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}
