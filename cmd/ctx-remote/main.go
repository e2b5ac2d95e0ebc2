// Command ctx-remote manages the remotes of a store, as git remote does:
// the "remotes" member of .ctx/config.json, names that ctx-push and
// ctx-pull take in place of a URL. `ctx-remote add NAME URL` and
// `ctx-remote remove NAME` print {"name","url"} (with "removed":true);
// `ctx-remote` or `ctx-remote list` prints one {"name","url"} line per
// remote, by name; `ctx-remote get-url NAME` prints the one. config.json
// is rewritten whole or not at all, its other members kept.
package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/remote"
)

type remoteCmd struct {
	cli.Globals
	List   listCmd   `cmd:"" default:"1" help:"List the remotes, by name (the default)."`
	Add    addCmd    `cmd:"" help:"Add a remote: NAME for URL. An existing NAME is an error (exit 2): remove it first."`
	Remove removeCmd `cmd:"" aliases:"rm" help:"Remove a remote. A NAME that is not a remote is an error (exit 2)."`
	GetURL getURLCmd `cmd:"" name:"get-url" help:"Print a remote's URL."`
}

func (c *remoteCmd) Description() string {
	return `Add, list and remove remotes: names for the OCI registries and layout directories that
ctx-push and ctx-pull take in place of a URL (ctx-push origin latest), kept in .ctx/config.json.
A URL is oci://HOST[:PORT]/REPOSITORY or oci-layout:DIR; a relative DIR is read from the working
directory and kept relative to the directory holding the store when it lies below it. A name
has letters, digits, '.', '_' and '-', starting with a letter or digit.
Adding a name that exists or removing one that does not exits 2: the store's state, not the
arguments, is at fault (git remote exits 3 and 2 there).`
}

// Run is never reached: kong selects a subcommand, list by default.
func (c *remoteCmd) Run(env *cli.Env) error { return (&listCmd{}).Run(env) }

type listCmd struct{}

func (c *listCmd) Run(env *cli.Env) error {
	remotes, err := configured(env)
	if err != nil {
		return err
	}
	names := slices.Sorted(maps.Keys(remotes))
	if env.Human() {
		width := 0
		for _, n := range names {
			width = max(width, len(cli.Escape(n)))
		}
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "%-*s  %s\n", width, cli.Escape(n), cli.Escape(remotes[n]))
		}
		if b.Len() == 0 {
			return nil
		}
		return env.Text(strings.TrimSuffix(b.String(), "\n"))
	}
	for _, n := range names {
		if err := env.Result(line(n, remotes[n])); err != nil {
			return err
		}
	}
	return nil
}

type addCmd struct {
	Name string `arg:"" help:"The remote's name (origin)."`
	URL  string `arg:"" name:"url" help:"oci://HOST[:PORT]/REPOSITORY or oci-layout:DIR." placeholder:"URL"`
}

func (c *addCmd) Run(env *cli.Env) error {
	if err := remote.CheckName(c.Name); err != nil {
		return cli.WithCode(cli.ExitUsage, err)
	}
	if _, err := remote.Parse(c.URL); err != nil {
		return cli.WithCode(cli.ExitUsage, err)
	}
	s, err := env.Store()
	if err != nil {
		return err
	}
	var url string
	err = s.UpdateConfig(func(old []byte) (b []byte, err error) {
		b, url, err = remote.Add(old, c.Name, c.URL, filepath.Dir(s.Root()))
		return b, err
	})
	if errors.Is(err, remote.ErrRemoteExists) {
		return cli.WithHint(cli.WithCode(cli.ExitError, err), "remove it first: ctx remote remove "+c.Name)
	}
	if err != nil {
		return err
	}
	if env.Human() {
		return env.Text("added remote " + c.Name + " " + cli.Escape(url))
	}
	return env.Result(line(c.Name, url))
}

type removeCmd struct {
	Name string `arg:"" help:"The remote's name."`
}

func (c *removeCmd) Run(env *cli.Env) error {
	s, err := env.Store()
	if err != nil {
		return err
	}
	var url string
	err = s.UpdateConfig(func(old []byte) (b []byte, err error) {
		b, url, err = remote.Remove(old, c.Name)
		return b, err
	})
	if err != nil {
		return noRemote(err)
	}
	if env.Human() {
		return env.Text("removed remote " + c.Name + " (was " + cli.Escape(url) + ")")
	}
	l := line(c.Name, url)
	l["removed"] = true
	return env.Result(l)
}

type getURLCmd struct {
	Name string `arg:"" help:"The remote's name."`
}

func (c *getURLCmd) Run(env *cli.Env) error {
	remotes, err := configured(env)
	if err != nil {
		return err
	}
	url, ok := remotes[c.Name]
	if !ok {
		return noRemote(fmt.Errorf("%w: %s", remote.ErrNoRemote, c.Name))
	}
	if env.Human() {
		return env.Text(cli.Escape(url))
	}
	return env.Result(line(c.Name, url))
}

// configured returns the store's remotes: names mapped to URLs.
func configured(env *cli.Env) (map[string]string, error) {
	s, err := env.Store()
	if err != nil {
		return nil, err
	}
	return remote.Remotes(s.Config().Raw)
}

// noRemote adds the hint for a name that is not a remote.
func noRemote(err error) error {
	if errors.Is(err, remote.ErrNoRemote) {
		return cli.WithHint(cli.WithCode(cli.ExitError, err), "ctx remote list shows the remotes")
	}
	return err
}

func line(name, url string) map[string]any {
	return map[string]any{"name": name, "url": url}
}

func main() {
	os.Exit(cli.Run("ctx-remote", &remoteCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
