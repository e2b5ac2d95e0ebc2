// Command ctx-pull fetches context packs from an OCI registry or an OCI
// image layout directory into the store. It reads references (full pack
// hashes or tags on the remote; arguments, or a stream of ctx output on
// stdin) and prints, per pack, one canonical JSON line:
// {"hash","uri","remote","digest","layers","downloaded","skipped","objects"},
// and "tag" when the pack was pulled by a tag and named so here.
// Everything is verified before the first object enters the store.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/remote"
	"github.com/ctx-tools/ctx/lib/store"
)

type pullCmd struct {
	cli.Globals
	Remote      string   `arg:"" help:"Where to pull from: oci://HOST[:PORT]/REPOSITORY, oci-layout:DIR, or the name of a remote (ctx-remote add NAME URL)." placeholder:"REMOTE"`
	Refs        []string `arg:"" optional:"" help:"Packs to pull: full hashes (sha256:<hex>, <hex>, ctx://<hex>) or tags on the remote (default: read from stdin)." placeholder:"REF"`
	WithParents bool     `name:"with-parents" help:"Also pull each pack's ancestors, following parent."`
	Referrers   string   `help:"Also fetch the files attached to each pack (sidecars, attestation bundles, reports) into DIR." placeholder:"DIR"`
	AllKinds    bool     `name:"all-kinds" help:"With --referrers, also fetch attachments of kinds ctx does not push (any artifact type, any plain file name)."`
	PlainHTTP   bool     `name:"plain-http" help:"Allow plain HTTP to a registry that is not on loopback (loopback registries always get plain HTTP)."`
	Jobs        int      `default:"8" help:"Concurrent downloads (and referrer fetches)." placeholder:"N"`
	Force       bool     `help:"Move a local tag that names another pack to the pack pulled by that tag."`
	remote.Timeouts
}

func (c *pullCmd) Description() string {
	return "Pull context packs from an OCI registry or OCI image layout directory. Every object is verified before it is stored, and the pack is finalized last; objects already here are not downloaded.\n\nA pack pulled by a tag gets that tag here too (refused, before anything is downloaded, when the tag already names another pack here, unless --force); a store with no latest gets latest pointed at the first pack named."
}

func (c *pullCmd) Run(env *cli.Env) error {
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
	// ctx-gc stays off while this pull decides which objects the store
	// already has, and until it has committed the packs that use them.
	if err := s.HoldWrites(); err != nil {
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
	for _, it := range items {
		if _, _, err := remote.ParseRef(it.Ref); err != nil {
			return cli.WithCode(cli.ExitUsage, err)
		}
	}
	if c.AllKinds && c.Referrers == "" {
		return cli.Errorf(cli.ExitUsage, "--all-kinds goes with --referrers DIR")
	}
	client, err := remote.Open(r, remote.Options{PlainHTTP: c.PlainHTTP, Jobs: c.Jobs, UserAgent: "ctx/" + cli.Version, Timeouts: c.Timeouts}, false)
	if err != nil {
		if errors.Is(err, remote.ErrInvalidRemote) {
			return cli.WithCode(cli.ExitUsage, err)
		}
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	seen := map[digest.Digest]bool{}
	for i, it := range items {
		next := it.Ref
		tag := c.localTag(env, it.Ref)
		for next != "" {
			env.Progressf("pulling %s from %s", next, r.URL)
			opts := remote.PullOptions{Referrers: c.Referrers, ReferrerOptions: remote.ReferrerOptions{AllKinds: c.AllKinds}}
			if tag != "" {
				opts.Check = func(d digest.Digest) error { return c.checkTag(s, tag, d) }
			}
			res, err := client.Pull(ctx, s, next, opts)
			env.ProgressDone()
			if err != nil {
				if h := remote.Hint(err, r); h != "" {
					return cli.WithHint(err, h)
				}
				return err
			}
			if res.ReferrersSkipped > 0 {
				env.Warnf("pack %s: left %d referrer(s) of kinds ctx does not push on the remote (--all-kinds fetches them)", res.Hash.Short(), res.ReferrersSkipped)
			}
			if tag != "" {
				if err := s.UpdateRef(tag, func(*digest.Digest) (digest.Digest, error) {
					return res.Hash, c.checkTag(s, tag, res.Hash)
				}); err != nil {
					return fmt.Errorf("pack %s is stored, but not its tag: %w", res.Hash, err)
				}
				res.Tag, tag = tag, ""
			}
			if i == 0 && next == it.Ref {
				if err := setLatest(s, res.Hash); err != nil {
					return fmt.Errorf("pack %s is stored, but latest is not set: %w", res.Hash, err)
				}
			}
			if !seen[res.Hash] {
				seen[res.Hash] = true
				if err := c.print(env, res); err != nil {
					return err
				}
			}
			next = ""
			if c.WithParents && !res.Parent.IsZero() && !seen[res.Parent] {
				next = res.Parent.String()
			}
		}
	}
	return nil
}

// localTag returns the tag a pack pulled by ref is given here: the
// remote tag's name, when ref is one and the name can be a tag here.
func (c *pullCmd) localTag(env *cli.Env, r string) string {
	name, want, _ := remote.ParseRef(r)
	if want != nil || name == store.Latest {
		return ""
	}
	if err := store.CheckTagName(name); err != nil {
		env.Warnf("pulling %s: no local tag: %v", name, err)
		return ""
	}
	return name
}

// checkTag refuses to move tag from another pack to d without --force.
func (c *pullCmd) checkTag(s *store.Store, tag string, d digest.Digest) error {
	old, err := s.Ref(tag)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return err
	case old != d && !c.Force:
		return cli.WithHint(cli.Errorf(cli.ExitError, "tag %s already points at %s here; the remote's %s is %s", tag, old, tag, d), "use --force to move it, or pull by hash: ctx-pull REMOTE "+d.String())
	}
	return nil
}

// setLatest points latest at d in a store where it names nothing yet, as
// git clone sets HEAD; an existing latest is what the user made here.
func setLatest(s *store.Store, d digest.Digest) error {
	l, err := s.LockRef(store.Latest)
	if err != nil {
		return err
	}
	defer l.Unlock()
	old, err := l.Get()
	if err != nil || old != nil {
		return err
	}
	return l.Set(d)
}

func (c *pullCmd) print(env *cli.Env, res *remote.PullResult) error {
	if env.Human() {
		line := fmt.Sprintf("%s ← %s (%s): %s; downloaded %s, %s; %s already here; %s",
			res.Hash, res.Remote, res.Digest, cli.Plural(int64(res.Layers), "layer"), cli.Plural(int64(res.Downloaded.Blobs), "blob"), cli.Size(res.Downloaded.Bytes),
			cli.Plural(int64(res.Skipped.Blobs), "layer"), cli.Plural(int64(res.Objects.New), "new object"))
		if res.Tag != "" {
			line += "; tagged " + res.Tag
		}
		return env.Text(line)
	}
	return env.Result(res)
}

func main() {
	os.Exit(cli.Run("ctx-pull", &pullCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
