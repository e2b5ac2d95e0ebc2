// Command ctx-tag names packs, as git tag names commits. `ctx-tag NAME
// [REF]` points refs/tags/NAME at REF (default: latest; - reads it from
// stdin, as ctx output) and prints {"hash","tag","uri"} (with "previous"
// when -f moved it); `ctx-tag -d NAME…` removes tags and prints
// {"deleted":true,"hash","tag","uri"} per tag; `ctx-tag` alone lists the
// tags, one {"hash","tag","uri"} line each, by name. It never moves latest.
package main

import (
	"os"

	"github.com/ctx-tools/ctx/cmd/internal/taglist"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/store"
)

type tagCmd struct {
	cli.Globals
	Args   []string `arg:"" optional:"" help:"NAME [REF] to set a tag (REF defaults to latest; - reads it from stdin); NAME… with -d; none to list the tags." placeholder:"NAME [REF]"`
	Delete bool     `short:"d" help:"Delete the tags named."`
	Force  bool     `short:"f" help:"Move NAME even if it already names another pack."`
}

func (c *tagCmd) Description() string {
	return `Create, list and delete tags: names for packs, usable wherever a pack is named (ctx-show v1, ctx-diff v1 v2).
A tag name has letters, digits, '.', '_' and '-', starts with a letter or digit, and is not latest
nor all hex digits. An existing tag is moved only with -f. latest is never moved.`
}

func (c *tagCmd) Run(env *cli.Env) error {
	switch {
	case c.Delete && len(c.Args) == 0:
		return cli.Errorf(cli.ExitUsage, "-d: name the tags to delete")
	case c.Delete && c.Force:
		return cli.Errorf(cli.ExitUsage, "-f moves a tag; -d deletes it: give one")
	case !c.Delete && len(c.Args) > 2:
		return cli.Errorf(cli.ExitUsage, "give NAME and at most one REF (-d deletes several tags)")
	case c.Force && len(c.Args) == 0:
		return cli.Errorf(cli.ExitUsage, "-f: name the tag to move")
	}
	for _, name := range c.names() {
		if err := store.CheckTagName(name); err != nil {
			return cli.WithCode(cli.ExitUsage, err)
		}
	}
	s, err := env.Store()
	if err != nil {
		return err
	}
	switch {
	case c.Delete:
		return c.delete(env, s)
	case len(c.Args) == 0:
		probs, err := taglist.Print(env, s)
		if err != nil {
			return err
		}
		for _, p := range probs {
			env.Problem(p)
		}
		return nil
	}
	return c.set(env, s)
}

// names are the tag names given: every argument with -d, else the first.
func (c *tagCmd) names() []string {
	if c.Delete || len(c.Args) == 0 {
		return c.Args
	}
	return c.Args[:1]
}

func (c *tagCmd) set(env *cli.Env, s *store.Store) error {
	name, r := c.Args[0], store.Latest
	if len(c.Args) == 2 {
		r = c.Args[1]
	}
	if r == "-" {
		it, err := env.Ref("-", "tag")
		if err != nil {
			return err
		}
		r = it.Ref
	}
	d, err := ref.Resolve(s, r)
	if err != nil {
		return err
	}
	if ok, err := s.HasPack(d); err != nil {
		return err
	} else if !ok {
		return cli.Errorf(cli.ExitError, "%s: pack %s is not in this store", r, d)
	}
	var old *digest.Digest
	err = s.UpdateRef(name, func(o *digest.Digest) (digest.Digest, error) {
		if o != nil && *o != d && !c.Force {
			return d, cli.WithHint(cli.Errorf(cli.ExitError, "tag %s already names %s", name, *o), "use -f to move it, or -d to delete it")
		}
		old = o
		return d, nil
	})
	if err != nil {
		return err
	}
	if env.Human() {
		msg := "tag " + name + " names " + d.String()
		if old != nil && *old != d {
			msg += " (was " + old.Short() + ")"
		}
		return env.Text(msg)
	}
	line := taglist.Line(name, d)
	if old != nil && *old != d {
		line["previous"] = old.String()
	}
	return env.Result(line)
}

func (c *tagCmd) delete(env *cli.Env, s *store.Store) error {
	for _, name := range c.Args {
		l, err := s.LockRef(name)
		if err != nil {
			return err
		}
		old, err := l.Get()
		if err == nil && old == nil {
			err = cli.Errorf(cli.ExitError, "tag %s not found", name)
		}
		if err == nil {
			err = l.Delete()
		}
		l.Unlock()
		if err != nil {
			env.Problem(err)
			continue
		}
		if env.Human() {
			if err := env.Text("deleted tag " + name + " (was " + old.Short() + ")"); err != nil {
				return err
			}
			continue
		}
		line := taglist.Line(name, *old)
		line["deleted"] = true
		if err := env.Result(line); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	os.Exit(cli.Run("ctx-tag", &tagCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
