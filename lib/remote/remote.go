package remote

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"oras.land/oras-go/v2/registry"
)

// ErrInvalidRemote reports a REMOTE argument that is not a remote.
var ErrInvalidRemote = errors.New("invalid remote")

// Remote is where packs go: an OCI registry repository or an OCI image
// layout directory.
type Remote struct {
	// URL is the canonical form: oci://host[:port]/repo or oci-layout:DIR.
	URL string
	// Registry (host[:port]) and Repository, for oci://.
	Registry   string
	Repository string
	// Dir is the layout directory, for oci-layout:.
	Dir string
}

// IsLayout reports whether r is an OCI image layout directory.
func (r Remote) IsLayout() bool { return r.Dir != "" }

// Loopback reports whether r's registry is on this machine (localhost,
// 127.0.0.0/8, ::1), where plain HTTP is allowed.
func (r Remote) Loopback() bool {
	host := r.Registry
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Parse parses a remote URL: oci://host[:port]/repository or
// oci-layout:DIR.
func Parse(s string) (Remote, error) {
	switch {
	case strings.HasPrefix(s, "oci-layout:"):
		dir := strings.TrimPrefix(s, "oci-layout:")
		if dir == "" {
			return Remote{}, fmt.Errorf("%w %q: want oci-layout:DIR", ErrInvalidRemote, s)
		}
		return Remote{URL: s, Dir: filepath.Clean(dir)}, nil
	case strings.HasPrefix(s, "oci://"):
		rest := strings.TrimPrefix(s, "oci://")
		rest = strings.TrimSuffix(rest, "/")
		if strings.ContainsAny(rest, "@?#") {
			return Remote{}, fmt.Errorf("%w %q: want oci://host[:port]/repository, without a tag, digest or query", ErrInvalidRemote, s)
		}
		ref, err := registry.ParseReference(rest)
		if err != nil {
			return Remote{}, fmt.Errorf("%w %q: %v", ErrInvalidRemote, s, err)
		}
		if ref.Reference != "" {
			return Remote{}, fmt.Errorf("%w %q: a remote names a repository, not a tag (%q)", ErrInvalidRemote, s, ref.Reference)
		}
		return Remote{URL: "oci://" + ref.Registry + "/" + ref.Repository, Registry: ref.Registry, Repository: ref.Repository}, nil
	}
	return Remote{}, fmt.Errorf("%w %q: want oci://host[:port]/repository, oci-layout:DIR or a remote name from config.json", ErrInvalidRemote, s)
}

// Lookup resolves a REMOTE argument: a URL, or the name of a remote in
// the store's config.json ("remotes": {"origin": "oci://…"}), as git's
// remotes. A relative oci-layout:DIR in config.json is relative to base,
// the directory holding the store.
func Lookup(arg string, config []byte, base string) (Remote, error) {
	if IsURL(arg) {
		return Parse(arg)
	}
	remotes, err := Remotes(config)
	if err != nil {
		return Remote{}, err
	}
	url, ok := remotes[arg]
	if !ok {
		names := make([]string, 0, len(remotes))
		for n := range remotes {
			names = append(names, n)
		}
		slices.Sort(names)
		known := "none are configured"
		if len(names) > 0 {
			known = "configured: " + strings.Join(names, ", ")
		}
		return Remote{}, fmt.Errorf("%w %q: not oci://…, oci-layout:… or a remote name in config.json (%s)", ErrInvalidRemote, arg, known)
	}
	r, err := Parse(url)
	if err != nil {
		return Remote{}, fmt.Errorf("config.json: remotes.%s: %w", arg, err)
	}
	if r.IsLayout() && !filepath.IsAbs(r.Dir) {
		r.Dir = filepath.Join(base, r.Dir)
		r.URL = "oci-layout:" + r.Dir
	}
	return r, nil
}

// Remotes returns the "remotes" member of a store's config.json: names
// mapped to remote URLs.
func Remotes(config []byte) (map[string]string, error) {
	var c struct {
		Remotes map[string]string `json:"remotes"`
	}
	if len(config) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(config, &c); err != nil {
		return nil, fmt.Errorf("config.json: remotes: want an object of name → \"oci://…\" strings: %w", err)
	}
	return c.Remotes, nil
}
