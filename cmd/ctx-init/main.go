// Command ctx-init creates a ctx store: .ctx/ in the working directory (or
// in DIR, or at --store), with objects/, packs/, refs/ and config.json. It
// reads nothing and prints {"created":bool,"store":path}. On an existing
// store it says so and changes nothing.
package main

import (
	"os"
	"path/filepath"

	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/store"
)

type initCmd struct {
	cli.Globals
	Dir string `arg:"" optional:"" help:"Directory to create the store in (default: the working directory); the store is DIR/.ctx." type:"path"`
}

func (c *initCmd) Description() string {
	return "Create a ctx store (.ctx/ with objects/, packs/, refs/, config.json)."
}

func (c *initCmd) Run(env *cli.Env) error {
	// DIR and --store name places by the rule every binary reads --store
	// and CTX_STORE with; $CTX_STORE applies only when neither is given.
	var s *store.Store
	var created bool
	var err error
	switch {
	case c.StoreGiven() && c.Dir != "":
		return cli.Errorf(cli.ExitUsage, "give either DIR or --store, not both")
	case c.Dir != "":
		s, created, err = store.Init(filepath.Join(c.Dir, store.DirName))
	case c.Store != "":
		s, created, err = store.InitAt(c.Store)
	default:
		wd, werr := os.Getwd()
		if werr != nil {
			return werr
		}
		s, created, err = store.Init(filepath.Join(wd, store.DirName))
	}
	if err != nil {
		return err
	}
	if !created {
		env.Infof("store %s already exists; nothing changed", s.Root())
	}
	if env.Human() {
		if created {
			return env.Text("Initialized empty ctx store in " + s.Root())
		}
		return env.Text("ctx store already exists in " + s.Root())
	}
	return env.Result(map[string]any{"created": created, "store": s.Root()})
}

func main() {
	os.Exit(cli.Run("ctx-init", &initCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
