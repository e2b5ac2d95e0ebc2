// Command ctx-gc tidies a store: it drops the superseded snapshots of
// agent sessions (an agent's hook packs its session each time the agent
// stops; only the newest snapshot is kept, with every pack that is
// tagged, latest, pushed or an ancestor of a kept one), then removes the
// objects no pack references. It reads the store and prints one canonical
// JSON report: {"dry_run","packs":{"kept","removed"},"dropped":[…],
// "objects":{"kept","young","removed","bytes"},"tmp_removed"}, and
// "cache_removed" when it removed, from the user's caches (ctx-log's
// manifest projections, ctx-blame's index, ctx-grep's manifests), files
// that held only the dropped packs. --dry-run removes nothing. It is safe to run while
// ctx-pack or ctx-pull write to the store (lib/gc says how).
package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ctx-tools/ctx/lib/blame"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/gc"
	"github.com/ctx-tools/ctx/lib/grep"
	"github.com/ctx-tools/ctx/lib/packlog"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/remote"
)

type gcCmd struct {
	cli.Globals
	DryRun bool          `name:"dry-run" short:"n" help:"Say what would be removed; remove nothing."`
	Grace  time.Duration `help:"Keep objects no pack references, and tmp/ leftovers, until they are this old: a write in progress may need them (0 removes them at once)." default:"1h" placeholder:"DURATION"`
	Keep   []string      `help:"Also keep this pack and its ancestors. Repeatable." placeholder:"REF"`
	Wait   time.Duration `help:"How long to wait for running ctx-pack and ctx-pull to finish before removing anything." default:"30s" placeholder:"DURATION"`
}

func (c *gcCmd) Description() string {
	return "Drop superseded snapshots of agent sessions, then the objects no pack references.\n\n" +
		"Kept: every pack that is not a session snapshot, each session's newest snapshot, latest, tagged packs, " +
		"packs pushed from this account ($XDG_CACHE_HOME/ctx/oci), --keep packs, and the ancestors of all these. " +
		"An object no pack references goes once older than --grace, at once if a dropped snapshot referenced it. " +
		"Then the entries of the dropped packs go from ctx-log's, ctx-blame's and ctx-grep's caches ($XDG_CACHE_HOME/ctx/packlog, " +
		"$XDG_CACHE_HOME/ctx/blame, $XDG_CACHE_HOME/ctx/grep; none from one whose CTX_LOG_CACHE, CTX_BLAME_CACHE or CTX_GREP_CACHE is off)."
}

func (c *gcCmd) Run(env *cli.Env) error {
	if c.Grace < 0 || c.Wait < 0 {
		return cli.Errorf(cli.ExitUsage, "--grace and --wait take a duration of 0 or more")
	}
	s, err := env.Store()
	if err != nil {
		return err
	}
	opt := gc.Options{DryRun: c.DryRun, Grace: c.Grace, LockTimeout: c.Wait}
	for _, r := range c.Keep {
		d, err := ref.Resolve(s, r)
		if err != nil {
			return cli.WithCode(cli.ExitError, err)
		}
		opt.Keep = append(opt.Keep, d)
	}
	if dir := remote.DefaultCacheDir(); dir != "" {
		opt.Pushed = func(d digest.Digest) bool { return remote.Pushed(dir, d) }
	}
	rep, err := gc.Run(s, opt)
	if err != nil {
		return err
	}
	if !rep.DryRun {
		forget(env, rep)
	}
	if env.Human() {
		return env.Text(human(rep))
	}
	return env.Result(rep)
}

// forget removes from the user's caches what they kept of the packs gc
// dropped alone. The store is collected by then, so a cache that cannot
// be tidied is only a warning: what stays is derived data, and removing
// a cache directory is always safe.
func forget(env *cli.Env, rep *gc.Report) {
	if len(rep.Dropped) == 0 {
		return
	}
	ds := make([]digest.Digest, len(rep.Dropped))
	for i, d := range rep.Dropped {
		ds[i] = d.Hash
	}
	for _, c := range []struct {
		what   string
		dir    string
		forget func(string, []digest.Digest) (int, error)
	}{
		{"ctx-log's cache", packlog.DefaultCacheDir(), packlog.Forget},
		{"ctx-blame's cache", blame.DefaultCacheDir(), blame.Forget},
		{"ctx-grep's cache", grep.DefaultCacheDir(), grep.Forget},
	} {
		n, err := c.forget(c.dir, ds)
		rep.CacheRemoved += n
		if err != nil {
			env.Warnf("tidying %s: %v", c.what, err)
		}
	}
}

func human(r *gc.Report) string {
	var b strings.Builder
	verb := "removed"
	if r.DryRun {
		verb = "would remove"
	}
	for _, d := range r.Dropped {
		fmt.Fprintf(&b, "%s %s  session %s, %d step(s), superseded by %s\n", verb, d.Hash.Short(), cli.Escape(d.Session), d.Steps, d.SupersededBy.Short())
	}
	fmt.Fprintf(&b, "packs: %d kept, %d %s\n", r.Packs.Kept, r.Packs.Removed, verb)
	fmt.Fprintf(&b, "objects: %d kept, %d %s (%s)", r.Objects.Kept, r.Objects.Removed, verb, cli.Size(r.Objects.Bytes))
	if r.Objects.Young > 0 {
		fmt.Fprintf(&b, ", %d unreferenced but younger than the grace period", r.Objects.Young)
	}
	b.WriteString("\n")
	if r.Tmp > 0 {
		fmt.Fprintf(&b, "tmp/: %d leftover(s) %s\n", r.Tmp, verb)
	}
	if r.CacheRemoved > 0 {
		fmt.Fprintf(&b, "caches: %d file(s) of the dropped packs removed\n", r.CacheRemoved)
	}
	return b.String()
}

func main() {
	os.Exit(cli.Run("ctx-gc", &gcCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
