package remote

import (
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// hostileRegistry is a real registry behind a handler that may answer a
// request itself, badly; its clients use ctx's own transport, with the
// timeouts a test gives them.
type hostileRegistry struct {
	srv   *httptest.Server
	reg   http.Handler
	evil  atomic.Pointer[func(w http.ResponseWriter, r *http.Request) bool]
	stop  chan struct{}
	bytes atomic.Int64 // sent by evil handlers
}

func newHostileRegistry(t *testing.T) *hostileRegistry {
	t.Helper()
	h := &hostileRegistry{reg: registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0))), stop: make(chan struct{})}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := h.evil.Load(); f != nil && (*f)(w, r) {
			return
		}
		h.reg.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		close(h.stop)
		h.srv.CloseClientConnections()
		h.srv.Close()
	})
	return h
}

func (h *hostileRegistry) set(f func(w http.ResponseWriter, r *http.Request) bool) { h.evil.Store(&f) }

// Short timeouts are given only where a case tests them: on a loaded
// machine a healthy answer can pause for longer than 300ms, and a timeout
// that cuts it fails a case that is about something else. No case may
// take promptTime, far below the default timeouts (a minute).
var (
	shortResponse = Timeouts{Response: 1500 * time.Millisecond}
	// A response timeout well above the idle one: a drip must be cut at
	// the idle timeout all the same, long before the response one.
	shortIdle  = Timeouts{Response: 30 * time.Second, Idle: 300 * time.Millisecond}
	promptTime = 20 * time.Second
)

// client returns a client of repo with the timeouts t (zero fields:
// DefaultTimeouts).
func (h *hostileRegistry) client(t *testing.T, repo string, timeouts Timeouts) *Client {
	t.Helper()
	host := strings.TrimPrefix(h.srv.URL, "http://")
	c, err := Open(mustParse(t, "oci://"+host+"/"+repo), Options{RetryWait: time.Millisecond, Timeouts: timeouts,
		Credential: auth.StaticCredential(host, auth.EmptyCredential)}, true)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func isBlobGet(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/sha256:")
}

// TestHostileNetwork: a registry that stalls, drips, streams without end
// or redirects to nothing makes a pull fail promptly, saying so, with the
// store untouched.
func TestHostileNetwork(t *testing.T) {
	h := newHostileRegistry(t)
	a := newStore(t)
	m := makePack(t, a, "net", sizes(40, 300), digest.Digest{})
	c := h.client(t, "net", Timeouts{})
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	tag := m.Hash.Hex()
	gone := httptest.NewServer(http.NotFoundHandler())
	defer gone.Close()

	cases := []struct {
		name     string
		timeouts Timeouts
		evil     func(w http.ResponseWriter, r *http.Request) bool
		want     string
		is       error
	}{
		{"stall before answering", shortResponse, func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/manifests/") {
				select {
				case <-r.Context().Done():
				case <-h.stop:
				}
				return true
			}
			return false
		}, "did not answer within 1.5s (--response-timeout", nil},
		{"drip a blob", shortIdle, func(w http.ResponseWriter, r *http.Request) bool {
			if !isBlobGet(r) {
				return false
			}
			w.WriteHeader(http.StatusOK)
			for range 200 {
				if _, err := w.Write([]byte{'x'}); err != nil {
					return true
				}
				w.(http.Flusher).Flush()
				h.bytes.Add(1)
				select {
				case <-time.After(50 * time.Millisecond):
				case <-h.stop:
					return true
				}
			}
			return true
		}, "less than 16384 bytes moved", ErrStalled},
		{"endless blob", Timeouts{}, func(w http.ResponseWriter, r *http.Request) bool {
			if !isBlobGet(r) {
				return false
			}
			w.WriteHeader(http.StatusOK) // chunked, no end
			buf := make([]byte, 32<<10)
			for {
				n, err := w.Write(buf)
				h.bytes.Add(int64(n))
				if err != nil || h.bytes.Load() > 1<<30 {
					return true
				}
			}
		}, "sends more than the", ErrBadLayer},
		{"redirect to nothing", Timeouts{}, func(w http.ResponseWriter, r *http.Request) bool {
			if !isBlobGet(r) {
				return false
			}
			http.Redirect(w, r, gone.URL+"/bucket/blob?X-Signature=secret", http.StatusTemporaryRedirect)
			return true
		}, "redirected the request to 127.0.0.1:", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.bytes.Store(0)
			h.set(tc.evil)
			defer h.set(func(http.ResponseWriter, *http.Request) bool { return false })
			b := newStore(t)
			before := snapshot(t, b)
			start := time.Now()
			_, err := h.client(t, "net", tc.timeouts).Pull(ctx, b, tag, PullOptions{})
			took := time.Since(start)
			if err == nil {
				t.Fatal("pull succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q: want it to say %q", err, tc.want)
			}
			if errors.Is(err, ErrNotFound) || strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q: a redirect's failure is not the remote lacking the pack, and its URL is not shown", err)
			}
			// A drip is cut at the idle timeout, before the response one.
			if took > promptTime || tc.is == ErrStalled && took >= tc.timeouts.Response {
				t.Errorf("took %v", took)
			}
			// What the sockets' buffers take, not an endless stream.
			if sent := h.bytes.Load(); sent > 64<<20 {
				t.Errorf("%d bytes were taken from an endless blob", sent)
			}
			if after := snapshot(t, b); after != before {
				t.Errorf("store changed")
			}
		})
	}

	// A bucket declared larger than its objects can make is refused
	// before a byte of it is fetched.
	t.Run("lying bucket size", func(t *testing.T) {
		img, err := Build(ctx, a, m.Hash, 2)
		if err != nil {
			t.Fatal(err)
		}
		var om ocispec.Manifest
		om.Versioned = specs.Versioned{SchemaVersion: 2}
		om.MediaType, om.ArtifactType = ocispec.MediaTypeImageManifest, ArtifactType
		om.Config = ConfigDescriptor(m.Hash, int64(len(img.Config)))
		om.Layers = append([]ocispec.Descriptor(nil), img.Layers...)
		om.Layers[0].Size = 100 << 30
		om.Annotations = map[string]string{ocispec.AnnotationCreated: m.Created}
		reg := &testRegistry{srv: h.srv}
		plantManifest(t, reg.raw(t, "net"), om, "liar")
		fetched := atomic.Int32{}
		h.set(func(w http.ResponseWriter, r *http.Request) bool {
			if isBlobGet(r) && strings.Contains(r.URL.Path, om.Layers[0].Digest.Encoded()) {
				fetched.Add(1)
			}
			return false
		})
		_, err = c.Pull(ctx, newStore(t), "liar", PullOptions{})
		if !errors.Is(err, ErrBadLayer) || !strings.Contains(err.Error(), "declares "+strconv.Itoa(100<<30)+" bytes, more than") {
			t.Errorf("error %v", err)
		}
		if fetched.Load() > 0 {
			t.Error("the lying layer was fetched")
		}
	})
}

// TestPullDeclaredBeyondDisk: an object layer the pack records no size
// for, declared larger than the store's filesystem can take, is refused
// before anything is downloaded.
func TestPullDeclaredBeyondDisk(t *testing.T) {
	t.Parallel()
	if freeSpace(t.TempDir()) < 0 {
		t.Skip("free space unknown here")
	}
	reg := newRegistry(t)
	a := newStore(t)
	out, _, err := a.Put(content("disk", 0, LargeObject))
	if err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{Version: manifest.Version, Created: "2026-02-10T09:00:00Z", Model: manifest.Model{Identifier: "m"},
		Steps: []manifest.Step{{Index: 0, Type: "tool_call", Tool: "t", OutputRef: out}}}
	if _, _, err := manifest.Commit(a, m); err != nil {
		t.Fatal(err)
	}
	c := reg.client(t, "disk")
	img, err := Build(ctx, a, m.Hash, 2)
	if err != nil {
		t.Fatal(err)
	}
	var om ocispec.Manifest
	if err := json.Unmarshal(img.Manifest, &om); err != nil {
		t.Fatal(err)
	}
	rp := reg.raw(t, "disk")
	plant(t, rp, ConfigMediaType, "", img.Config)
	om.Layers[0].Size = 1 << 50
	plantManifest(t, rp, om, "huge")
	reg.c.reset()
	_, err = c.Pull(ctx, newStore(t), "huge", PullOptions{})
	if err == nil || !strings.Contains(err.Error(), "declares 1125899906842624 bytes of layers to download") {
		t.Errorf("error %v", err)
	}
	if n := reg.c.get("GET blob"); n > 1 { // the config only
		t.Errorf("%d blobs fetched", n)
	}
}
