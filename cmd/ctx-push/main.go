// Command ctx-push uploads context packs to an OCI registry or an OCI
// image layout directory. It reads pack references (arguments, or a
// stream of ctx output on stdin) and prints, per pack, one canonical JSON
// line: {"hash","remote","digest","tags","layers","uploaded","skipped"}.
// Every pack is laid out as docs/oci-layout.md specifies, so the same
// pack has the same OCI digest wherever it is pushed from.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/remote"
)

type pushCmd struct {
	cli.Globals
	Remote    string   `arg:"" help:"Where to push: oci://HOST[:PORT]/REPOSITORY, oci-layout:DIR, or the name of a remote in .ctx/config.json (\"remotes\": {\"origin\": \"oci://…\"})." placeholder:"REMOTE"`
	Refs      []string `arg:"" optional:"" help:"Packs to push (default: read from stdin)." placeholder:"REF"`
	Tag       []string `help:"Also tag the pack NAME on the remote (repeatable; with one pack only)." placeholder:"NAME"`
	Attach    []string `sep:"none" help:"Attach FILE to the pack as an OCI referrer: a sidecar (*.ctx.json), an attestation bundle (*.sigstore.json) or a report (*.html); with one pack only." placeholder:"FILE"`
	PlainHTTP bool     `name:"plain-http" help:"Allow plain HTTP to a registry that is not on loopback (loopback registries always get plain HTTP)."`
	Jobs      int      `default:"8" help:"Concurrent uploads." placeholder:"N"`
	remote.Timeouts
}

func (c *pushCmd) Description() string {
	return "Push context packs to an OCI registry or OCI image layout directory. Credentials come from ~/.docker/config.json and its credential helpers (docker login, oras login). Only blobs the remote lacks are uploaded."
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
		env.Progressf("pushing %s to %s", d.Short(), r.URL)
		res, err := client.Push(ctx, s, d, remote.PushOptions{Tags: c.Tag, Attach: c.Attach})
		env.ProgressDone()
		if err != nil {
			return explain(err, r)
		}
		if env.Human() {
			err = env.Text(fmt.Sprintf("%s → %s (%s): %d layers; uploaded %d blobs, %d bytes; %d already there",
				res.Hash, res.Remote, res.Digest, res.Layers, res.Uploaded.Blobs, res.Uploaded.Bytes, res.Skipped.Blobs))
		} else {
			err = env.Result(res)
		}
		if err != nil {
			return err
		}
	}
	return nil
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
