package remote

import (
	"encoding/base64"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/ctx-tools/ctx/lib/digest"
)

// TestDockerCredentials: with no Credential option, the client uses what
// docker login wrote ($DOCKER_CONFIG/config.json), and a registry that
// refuses them is an error.
func TestDockerCredentials(t *testing.T) {
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:s3cret"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != want {
			w.Header().Set("WWW-Authenticate", `Basic realm="ctx-test"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		reg.ServeHTTP(w, r)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	a := newStore(t)
	m := makePack(t, a, "auth", sizes(3, 10), digest.Digest{})

	for _, tc := range []struct {
		name, auth string
		ok         bool
	}{
		{"logged in", "alice:s3cret", true},
		{"wrong password", "alice:guess", false},
		{"not logged in", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := `{"auths":{}}`
			if tc.auth != "" {
				cfg = `{"auths":{"` + host + `":{"auth":"` + base64.StdEncoding.EncodeToString([]byte(tc.auth)) + `"}}}`
			}
			if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("DOCKER_CONFIG", dir)
			c, err := Open(mustParse(t, "oci://"+host+"/private"), Options{}, true)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Push(ctx, a, m.Hash, PushOptions{})
			if (err == nil) != tc.ok {
				t.Fatalf("push: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrUnauthorized) {
				t.Errorf("error is not ErrUnauthorized: %v", err)
			}
			if !tc.ok && !strings.Contains(Hint(err, c.Remote), "docker login "+host) {
				t.Errorf("hint %q", Hint(err, c.Remote))
			}
		})
	}
}

// TestPlainHTTPOnlyOnLoopback: TLS unless the registry is on loopback or
// plain HTTP is asked for.
func TestPlainHTTPOnlyOnLoopback(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	for _, tc := range []struct {
		url   string
		flag  bool
		plain bool
	}{
		{"oci://ghcr.io/acme/runs", false, false},
		{"oci://10.0.0.5:5000/runs", false, false},
		{"oci://10.0.0.5:5000/runs", true, true},
		{"oci://localhost:5000/runs", false, true},
		{"oci://127.0.0.1:5000/runs", false, true},
		{"oci://[::1]:5000/runs", false, true},
	} {
		c, err := Open(mustParse(t, tc.url), Options{PlainHTTP: tc.flag}, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.ep.(*registryEndpoint).repo.PlainHTTP; got != tc.plain {
			t.Errorf("%s (--plain-http %v): plain HTTP %v", tc.url, tc.flag, got)
		}
	}
}
