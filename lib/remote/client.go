package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	godigest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"
	orasremote "oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/errcode"
	"oras.land/oras-go/v2/registry/remote/retry"
)

// ErrNotFound reports a pack or blob the remote does not have.
var ErrNotFound = errors.New("not found on the remote")

// ErrUnauthorized reports a registry that wants credentials it did not
// get, or refused them.
var ErrUnauthorized = errors.New("unauthorized")

// authErr marks credential failures with ErrUnauthorized.
func authErr(err error) error {
	var er *errcode.ErrorResponse
	if errors.Is(err, auth.ErrBasicCredentialNotFound) ||
		errors.As(err, &er) && (er.StatusCode == http.StatusUnauthorized || er.StatusCode == http.StatusForbidden) {
		return fmt.Errorf("%w: %w", ErrUnauthorized, err)
	}
	return err
}

// Options tune a Client.
type Options struct {
	// PlainHTTP allows plain HTTP to a registry that is not on loopback
	// (loopback registries always get plain HTTP).
	PlainHTTP bool
	// Jobs bounds concurrent transfers (default 8).
	Jobs int
	// Transport carries the HTTP requests (default: a clone of
	// http.DefaultTransport bounded by Timeouts). Retries happen above it.
	Transport http.RoundTripper
	// Timeouts bound connecting, waiting for a response and a stalled
	// transfer (zero fields: DefaultTimeouts).
	Timeouts Timeouts
	// Credential returns the credential for a registry (default: the
	// Docker configuration, ~/.docker/config.json and its credential
	// helpers, as docker login and oras login write it).
	Credential auth.CredentialFunc
	// RetryWait is the first wait before retrying a request answered 429
	// or 5xx (default 200ms); waits double, at most MaxRetry times
	// (default 5).
	RetryWait time.Duration
	MaxRetry  int
	// UserAgent is sent with every request.
	UserAgent string
	// Cache is the layout cache directory ("" for none; see
	// DefaultCacheDir).
	Cache string
}

// Client talks to one remote.
type Client struct {
	Remote Remote
	jobs   int
	cache  string
	ep     endpoint
}

// endpoint is what push and pull need of a registry or a layout.
type endpoint interface {
	// resolve returns the manifest a tag names (ErrNotFound if none).
	resolve(ctx context.Context, tag string) (ocispec.Descriptor, error)
	// fetchManifest returns the manifest a tag or digest names, its
	// bytes verified against the digest the remote states.
	fetchManifest(ctx context.Context, ref string) (ocispec.Descriptor, []byte, error)
	exists(ctx context.Context, desc ocispec.Descriptor) (bool, error)
	// push uploads a blob, calling open again for each retry.
	push(ctx context.Context, desc ocispec.Descriptor, open func() (io.ReadCloser, error)) error
	fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error)
	// pushManifest stores a manifest under each tag (by digest if none).
	pushManifest(ctx context.Context, desc ocispec.Descriptor, b []byte, tags []string) error
	referrers(ctx context.Context, desc ocispec.Descriptor) ([]ocispec.Descriptor, error)
}

// Open returns a client of r. A layout directory is created by the first
// push (create); pulling from a missing one is an error.
func Open(r Remote, opts Options, create bool) (*Client, error) {
	c := &Client{Remote: r, jobs: opts.Jobs, cache: opts.Cache}
	if c.jobs <= 0 {
		c.jobs = 8
	}
	if r.IsLayout() {
		if !create {
			if _, err := os.Stat(filepath.Join(r.Dir, ocispec.ImageLayoutFile)); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("%s: no OCI image layout there (%s missing): %w", r.URL, ocispec.ImageLayoutFile, ErrNotFound)
				}
				return nil, fmt.Errorf("%s: %w", r.URL, err)
			}
		}
		if err := checkLayout(r.Dir); err != nil {
			return nil, fmt.Errorf("%s: %w", r.URL, err)
		}
		ep, err := openLayout(r.Dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.URL, err)
		}
		c.ep = ep
		return c, nil
	}
	repo, err := orasremote.NewRepository(r.Registry + "/" + r.Repository)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrInvalidRemote, r.URL, err)
	}
	// TLS everywhere but on loopback, unless asked for.
	repo.PlainHTTP = r.Loopback() || opts.PlainHTTP
	base := opts.Transport
	if base == nil {
		base = newTransport(opts.Timeouts.orDefault(), c.jobs)
	}
	wait := opts.RetryWait
	if wait <= 0 {
		wait = 200 * time.Millisecond
	}
	maxRetry := opts.MaxRetry
	if maxRetry <= 0 {
		maxRetry = 5
	}
	policy := &retry.GenericPolicy{
		Retryable: retryPredicate(retry.DefaultPredicate),
		Backoff:   retry.ExponentialBackoff(wait, 2, 0.1),
		MinWait:   wait,
		MaxWait:   wait * 16,
		MaxRetry:  maxRetry,
	}
	cred := opts.Credential
	if cred == nil {
		cs, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading registry credentials: %w", err)
		}
		cred = credentials.Credential(cs)
	}
	client := &auth.Client{
		Client:     &http.Client{Transport: &retry.Transport{Base: checked{base, opts.Timeouts.orDefault().Response}, Policy: func() retry.Policy { return policy }}},
		Cache:      auth.NewCache(),
		Credential: cred,
		Header:     http.Header{},
	}
	if opts.UserAgent != "" {
		client.Header.Set("User-Agent", opts.UserAgent)
	}
	repo.Client = client
	// Referrers of a pack are few; one listing request is enough.
	repo.SkipReferrersGC = true
	repo.ReferrerListMaxPages = MaxReferrerPages
	c.ep = &registryEndpoint{repo: repo, wait: wait, maxRetry: maxRetry}
	return c, nil
}

// maxManifest bounds an OCI manifest read (distribution's own limit).
const maxManifest = 4 << 20

// notFound turns the library's not-found errors into ErrNotFound, keeping
// what the registry said when it says more than "not found".
func notFound(err error) error {
	if !errors.Is(err, errdef.ErrNotFound) {
		return err
	}
	if msg := err.Error(); msg == "not found" || strings.HasSuffix(msg, ": not found") {
		return ErrNotFound
	}
	return fmt.Errorf("%w (%v)", ErrNotFound, err)
}

// readManifest reads at most maxManifest bytes of a manifest and checks
// them against desc.
func readManifest(rc io.ReadCloser, desc ocispec.Descriptor, ref string) ([]byte, error) {
	defer rc.Close()
	if desc.Size > maxManifest {
		return nil, fmt.Errorf("manifest %s is %d bytes, more than %d", ref, desc.Size, maxManifest)
	}
	b, err := io.ReadAll(io.LimitReader(rc, maxManifest+1))
	if err != nil {
		return nil, fmt.Errorf("reading manifest %s: %w", ref, err)
	}
	if int64(len(b)) != desc.Size || godigest.FromBytes(b) != desc.Digest {
		return nil, fmt.Errorf("%w: manifest %s: the remote sent %d bytes hashing to %s, but names %s (%d bytes)", ErrBadLayer, ref, len(b), godigest.FromBytes(b), desc.Digest, desc.Size)
	}
	return b, nil
}

type registryEndpoint struct {
	repo     *orasremote.Repository
	wait     time.Duration
	maxRetry int
}

func (e *registryEndpoint) resolve(ctx context.Context, tag string) (ocispec.Descriptor, error) {
	d, err := e.repo.Manifests().Resolve(ctx, tag)
	return d, authErr(notFound(err))
}

func (e *registryEndpoint) fetchManifest(ctx context.Context, ref string) (ocispec.Descriptor, []byte, error) {
	desc, rc, err := e.repo.Manifests().FetchReference(ctx, ref)
	if err != nil {
		return desc, nil, authErr(notFound(err))
	}
	b, err := readManifest(rc, desc, ref)
	return desc, b, err
}

func (e *registryEndpoint) exists(ctx context.Context, desc ocispec.Descriptor) (bool, error) {
	ok, err := e.repo.Blobs().Exists(ctx, desc)
	return ok, authErr(err)
}

// push retries a whole upload (POST, then PUT of a fresh stream) when
// the registry answers 429 or 5xx or the connection breaks: a streamed
// body cannot be replayed by the transport.
func (e *registryEndpoint) push(ctx context.Context, desc ocispec.Descriptor, open func() (io.ReadCloser, error)) error {
	wait := e.wait
	for attempt := 0; ; attempt++ {
		r, err := open()
		if err != nil {
			return err
		}
		err = e.repo.Blobs().Push(ctx, desc, r)
		r.Close()
		if err == nil || attempt >= e.maxRetry || !retryable(err) {
			return authErr(err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func retryable(err error) bool {
	var er *errcode.ErrorResponse
	if errors.As(err, &er) {
		return er.StatusCode == http.StatusTooManyRequests || er.StatusCode == http.StatusRequestTimeout || er.StatusCode >= 500
	}
	// A timeout is not retried: a registry that stalled once gets no
	// second wait.
	var ne net.Error
	if errors.As(err, &ne) {
		return !ne.Timeout()
	}
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF)
}

func (e *registryEndpoint) fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	rc, err := e.repo.Blobs().Fetch(ctx, desc)
	return rc, authErr(notFound(unwrapRedirected(err)))
}

func (e *registryEndpoint) pushManifest(ctx context.Context, desc ocispec.Descriptor, b []byte, tags []string) error {
	if len(tags) == 0 {
		return authErr(e.repo.Manifests().Push(ctx, desc, bytes.NewReader(b)))
	}
	for _, t := range tags {
		if err := e.repo.Manifests().PushReference(ctx, desc, bytes.NewReader(b), t); err != nil {
			return authErr(err)
		}
	}
	return nil
}

func (e *registryEndpoint) referrers(ctx context.Context, desc ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	var out []ocispec.Descriptor
	err := e.repo.Referrers(ctx, desc, "", func(rs []ocispec.Descriptor) error {
		out = append(out, rs...)
		if len(out) > MaxReferrers {
			return fmt.Errorf("%w: more than %d referrers", ErrTooMany, MaxReferrers)
		}
		return nil
	})
	if errors.Is(err, errdef.ErrTooManyPages) {
		err = fmt.Errorf("%w: the listing goes on beyond %d pages: %v", ErrTooMany, MaxReferrerPages, err)
	}
	return out, authErr(err)
}

// Hint returns a line of advice for an error of a push or pull to r, or
// "" when there is none.
func Hint(err error, r Remote) string {
	switch {
	case errors.Is(err, ErrUnauthorized):
		return fmt.Sprintf("log in with docker login %s (or oras login); ctx reads ~/.docker/config.json ($DOCKER_CONFIG) and its credential helpers", r.Registry)
	case errors.Is(err, ErrBadLayer):
		return "the remote holds content that is not a valid ctx pack; nothing of it was stored"
	case r.Registry != "" && strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return "the registry speaks plain HTTP: add --plain-http if you trust the network to it"
	}
	return ""
}
