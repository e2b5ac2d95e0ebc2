// Command ctx-push uploads context packs to an OCI registry or an OCI
// image layout directory. It reads pack references (arguments, or a
// stream of ctx output on stdin) and prints, per pack, one canonical JSON
// line: {"hash","remote","digest","tags","layers","uploaded","skipped"}.
// A pack named by a tag (ctx-push REMOTE baseline) is tagged so on the
// remote too, beside its hash tag and any --tag.
// Every pack is laid out as docs/oci-layout.md specifies, so the same
// pack has the same OCI digest wherever it is pushed from. Before the
// first upload every object of every pack is scanned for secrets
// (lib/secrets); one found stops the push, exit 1, unless --allow-secrets.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-tools/ctx/lib/attest"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/remote"
	"github.com/ctx-tools/ctx/lib/secrets/verdict"
	"github.com/ctx-tools/ctx/lib/store"
)

type pushCmd struct {
	cli.Globals
	Remote    string   `arg:"" help:"Where to push: oci://HOST[:PORT]/REPOSITORY, oci-layout:DIR, or the name of a remote (ctx-remote add NAME URL)." placeholder:"REMOTE"`
	Refs      []string `arg:"" optional:"" help:"Packs to push (default: read from stdin)." placeholder:"REF"`
	Tag       []string `help:"Also tag the pack NAME on the remote (repeatable; with one pack only). A pack named by a tag is pushed with that tag anyway." placeholder:"NAME"`
	Attach    []string `sep:"none" help:"Attach FILE to the pack as an OCI referrer: a sidecar (*.ctx.json), an attestation bundle (*.sigstore.json) or a report (*.html); with one pack only." placeholder:"FILE"`
	SignKey   string   `name:"sign-key" help:"Also sign an attestation of each pack whose subject is its pushed OCI manifest, and attach it, so that cosign verify-attestation REPOSITORY@DIGEST checks it: an ed25519 or ECDSA P-256 key (cosign's encrypted key, with $COSIGN_PASSWORD; OpenSSH, with or without a passphrase; PEM)." placeholder:"KEY"`
	PlainHTTP bool     `name:"plain-http" help:"Allow plain HTTP to a registry that is not on loopback (loopback registries always get plain HTTP)."`
	Jobs      int      `default:"8" help:"Concurrent uploads." placeholder:"N"`
	remote.Timeouts

	AllowSecrets bool   `name:"allow-secrets" help:"Push even when the scan finds secrets (see ctx-redact)."`
	Allowlist    string `help:"A gitleaks configuration file whose [[allowlists]] are added to the default rules' (known false positives)." placeholder:"FILE"`
}

func (c *pushCmd) Description() string {
	return "Push context packs to an OCI registry or OCI image layout directory. Credentials come from ~/.docker/config.json and its credential helpers (docker login, oras login). Only blobs the remote lacks are uploaded. Before the first upload, every object of every pack (and every --attach file) is scanned for secrets with gitleaks' rules (by ctx-redact --check): one found stops the push, exit 1, unless --allow-secrets."
}

func (c *pushCmd) Run(env *cli.Env) error {
	if c.Jobs < 1 {
		return cli.Errorf(cli.ExitUsage, "--jobs must be at least 1")
	}
	if err := c.Timeouts.Validate(); err != nil {
		return cli.WithCode(cli.ExitUsage, err)
	}
	s, err := env.Store()
	if err != nil {
		return err
	}
	r, err := remote.Lookup(c.Remote, s.Config().Raw, filepath.Dir(s.Root()))
	if err != nil {
		return cli.WithCode(cli.ExitUsage, err)
	}
	items, err := env.Refs(c.Refs)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return cli.Errorf(cli.ExitUsage, "no pack reference given (as an argument or on stdin)")
	}
	if len(items) > 1 && (len(c.Tag) > 0 || len(c.Attach) > 0) {
		return cli.Errorf(cli.ExitUsage, "--tag and --attach apply to one pack; %d were given", len(items))
	}
	// Before anything is created (a layout directory) or uploaded.
	if err := remote.CheckTags(c.Tag); err != nil {
		return explain(err, r)
	}
	if err := remote.CheckAttachments(c.Attach); err != nil {
		return explain(err, r)
	}
	var signer *attest.Signer
	if c.SignKey != "" {
		if err := attest.CheckKeyOutside(c.SignKey, s.Root()); err != nil {
			return cli.WithCode(cli.ExitUsage, err)
		}
		if signer, err = attest.LoadSigner(c.SignKey, env.Passphrase); err != nil {
			var ce *cli.Error
			var fe *found.Error
			if errors.As(err, &ce) && ce.Hint != "" || errors.As(err, &fe) {
				return err // a passphrase not to be had; a pipe or device given as a key
			}
			return cli.WithCode(cli.ExitUsage, err)
		}
	}
	if err := c.scan(env, s, items); err != nil {
		return err
	}
	client, err := remote.Open(r, remote.Options{PlainHTTP: c.PlainHTTP, Jobs: c.Jobs, UserAgent: "ctx/" + cli.Version, Cache: remote.DefaultCacheDir(), Timeouts: c.Timeouts}, true)
	if err != nil {
		return explain(err, r)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	for _, it := range items {
		d, err := ref.Resolve(s, it.Ref)
		if err != nil {
			return err
		}
		// A pack named by its tag travels with the name, as git push
		// carries a tag it is given.
		tags := c.Tag
		if name, ok := ref.TagName(it.Ref); ok && !slices.Contains(tags, name) {
			tags = append(slices.Clip(tags), name)
		}
		env.Progressf("pushing %s to %s", d.Short(), r.URL)
		res, err := client.Push(ctx, s, d, remote.PushOptions{Tags: tags, Attach: c.Attach})
		env.ProgressDone()
		if err != nil {
			return explain(err, r)
		}
		if signer != nil {
			if err := attestImage(ctx, client, r, s, d, res, signer); err != nil {
				return explain(fmt.Errorf("pack %s is pushed, but not its attestation: %w", d, err), r)
			}
		}
		if env.Human() {
			err = env.Text(fmt.Sprintf("%s → %s (%s): %s; uploaded %s, %s; %d already there",
				res.Hash, res.Remote, res.Digest, cli.Plural(int64(res.Layers), "layer"), cli.Plural(int64(res.Uploaded.Blobs), "blob"), cli.Size(res.Uploaded.Bytes), res.Skipped.Blobs))
		} else {
			err = env.Result(res)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// attestImage signs the statement whose subject is the pack's OCI
// manifest as pushed, res.Digest, and attaches the bundle to it as cosign
// attaches its own (cosign attest --new-bundle-format).
func attestImage(ctx context.Context, client *remote.Client, r remote.Remote, s *store.Store, d digest.Digest, res *remote.PushResult, signer *attest.Signer) error {
	m, err := manifest.Load(s, d)
	if err != nil {
		return err
	}
	image, err := digest.Parse(res.Digest)
	if err != nil {
		return err
	}
	name := r.URL
	if !r.IsLayout() {
		name = r.Registry + "/" + r.Repository
	}
	st, err := attest.Encode(attest.ForImage(m, name, image))
	if err != nil {
		return err
	}
	bundle, err := signer.Sign(st)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "ctx-push-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "sha256-"+image.Hex()+attest.Suffix)
	if err := os.WriteFile(file, bundle, 0o600); err != nil {
		return err
	}
	desc, err := client.PackDescriptor(ctx, d.Hex())
	if err != nil {
		return err
	}
	refs, err := client.Attach(ctx, desc, m.Created, []string{file})
	if err != nil {
		return err
	}
	res.Referrers = append(res.Referrers, refs...)
	return nil
}

// scan fails the push, before anything is uploaded, when gitleaks' rules
// find a secret in an object of a pack to push: each finding is listed
// on stderr (rule and place, never the value). ctx-redact --check scans,
// so that ctx-push does not link the scanner; a pack found clean before
// with the same rules costs one stat.
func (c *pushCmd) scan(env *cli.Env, s *store.Store, items []ref.Item) error {
	if c.AllowSecrets {
		return nil
	}
	var allow []byte
	if c.Allowlist != "" {
		b, err := os.ReadFile(c.Allowlist)
		if err != nil {
			return cli.Errorf(cli.ExitUsage, "reading the allowlist: %v", err)
		}
		allow = b
	}
	cache := verdict.Open(verdict.DefaultCacheDir(), verdict.Version(allow))
	var todo []digest.Digest
	for _, it := range items {
		d, err := ref.Resolve(s, it.Ref)
		if err != nil {
			return err
		}
		if cache.PackClean(d) || slices.Contains(todo, d) {
			continue
		}
		if _, err := ref.LoadResolved(s, it.Ref, d); err != nil {
			return err
		}
		todo = append(todo, d)
	}
	if len(todo) == 0 && len(c.Attach) == 0 {
		return nil
	}
	bin, err := cli.Tool("ctx-redact")
	if err != nil {
		return cli.WithHint(cli.Errorf(cli.ExitError, "ctx-push scans what it pushes with ctx-redact, which is not installed beside it or on PATH"), "install it (go install ./cmd/ctx-redact), or push without the scan: --allow-secrets")
	}
	// The packs, then the attachments (a page or a sidecar shows content
	// too), each a run of ctx-redact --check.
	checks := make([][]string, 0, len(todo)+1)
	for _, d := range todo {
		checks = append(checks, []string{d.String()})
	}
	if len(c.Attach) > 0 {
		var files []string
		for _, f := range c.Attach {
			files = append(files, "--file", f)
		}
		checks = append(checks, files)
	}
	found := 0
	for _, what := range checks {
		args := []string{"--check", "--human", "--store", s.Root()}
		if c.Allowlist != "" {
			args = append(args, "--allowlist", c.Allowlist)
		}
		var out bytes.Buffer
		cmd := exec.Command(bin, append(args, what...)...)
		cmd.Stdout, cmd.Stderr = &out, env.Stderr
		env.Progressf("scanning %s for secrets", what[len(what)-1])
		err := cli.RunTool(cmd)
		env.ProgressDone()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && ee.ExitCode() == cli.ExitFinding:
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				env.Problem(cli.Errorf(cli.ExitFinding, "secret found: %s", line))
				found++
			}
		case errors.As(err, &ee) && ee.ExitCode() == cli.ExitUsage:
			return cli.Errorf(cli.ExitUsage, "scanning %s with %s: %v", what[len(what)-1], bin, err)
		default:
			return fmt.Errorf("scanning %s with %s: %v", what[len(what)-1], bin, err)
		}
	}
	if found == 0 {
		return nil
	}
	return cli.WithHint(cli.Errorf(cli.ExitFinding, "%d secret(s) found; nothing was pushed", found),
		"ctx-redact REF writes a copy with each secret replaced by a mark, to push instead; --allowlist FILE names known false positives; --allow-secrets pushes anyway")
}

// explain gives remote and tag errors the usage exit code, and others
// their hint.
func explain(err error, r remote.Remote) error {
	var arg *remote.ArgError
	if errors.Is(err, remote.ErrInvalidRemote) || errors.As(err, &arg) {
		return cli.WithCode(cli.ExitUsage, err)
	}
	if h := remote.Hint(err, r); h != "" {
		return cli.WithHint(err, h)
	}
	return err
}

func main() {
	os.Exit(cli.Run("ctx-push", &pushCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
