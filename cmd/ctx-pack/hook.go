package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/store"
)

// HookLog is the file, in the store, where ctx-pack --as-hook appends
// what went wrong.
const HookLog = "hook.log"

// hookLogMax bounds hook.log: past it, the older half is dropped.
const hookLogMax = 256 << 10

// runHook runs the command as an agent's hook runs it (--as-hook). The
// agent reads the hook's stdout and its exit code (Claude Code carries on
// working when a Stop hook exits 2), so nothing goes to stdout and a
// failure exits 1, which Claude Code shows the user without acting on it.
// Every failure is also appended, with its warnings, to .ctx/hook.log,
// where it is found later. With no store, the hook says so once per
// place (a project that does not capture sessions is not an error), and
// then exits 0 quietly.
func (c *packCmd) runHook(env *cli.Env) error {
	var said bytes.Buffer
	stderr := env.Stderr
	env.Stderr = io.MultiWriter(stderr, &said)
	env.Stdout = io.Discard
	err := c.run(env)
	env.Stderr = stderr
	if err == nil {
		return nil
	}
	if errors.Is(err, store.ErrNoStore) {
		return c.noStore(env, err)
	}
	var ce *cli.Error
	if errors.As(err, &ce) && ce.Silent {
		// Problems were printed as they were found.
		c.logFailure(env, said.String())
		return cli.Exit(cli.ExitFinding)
	}
	msg := fmt.Sprintf("%s: error: %s\n", env.Name, cli.Escape(err.Error()))
	c.logFailure(env, said.String()+msg)
	return cli.WithCode(cli.ExitFinding, err)
}

// logFailure appends what a failed run said to the store's hook.log,
// stamped with the time and the hook event; a store that cannot be opened
// gets nothing (stderr said it all).
func (c *packCmd) logFailure(env *cli.Env, said string) {
	s, err := env.Store()
	if err != nil {
		return
	}
	name := filepath.Join(s.Root(), HookLog)
	var b strings.Builder
	fmt.Fprintf(&b, "%s ctx-pack --as-hook failed", time.Now().UTC().Format(time.RFC3339))
	if c.hookEvent != "" {
		fmt.Fprintf(&b, " (%s", cli.Escape(c.hookEvent))
		if c.hookSession != "" {
			fmt.Fprintf(&b, ", session %s", cli.Escape(c.hookSession))
		}
		b.WriteString(")")
	}
	b.WriteString(":\n")
	for _, line := range strings.Split(strings.TrimRight(said, "\n"), "\n") {
		b.WriteString("  " + line + "\n")
	}
	if old, err := store.ReadFile(name, hookLogMax); err == nil && len(old)+b.Len() > hookLogMax {
		// Keep the newer half, from a line start.
		keep := old[len(old)/2:]
		if i := bytes.IndexByte(keep, '\n'); i >= 0 {
			keep = keep[i+1:]
		}
		os.WriteFile(name, append(keep, b.String()...), 0o644)
		return
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscallNoFollow, 0o644)
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: warning: cannot write %s: %v\n", env.Name, name, err)
		return
	}
	defer f.Close()
	f.WriteString(b.String())
}

// noStore warns, once per place, that there is no store to pack into, and
// is quiet afterwards: the place is remembered in the user's cache
// directory.
func (c *packCmd) noStore(env *cli.Env, err error) error {
	place := c.Store
	if place == "" {
		place, _ = os.Getwd()
	}
	if abs, aerr := filepath.Abs(place); aerr == nil {
		place = abs
	}
	marker := ""
	if dir, cerr := os.UserCacheDir(); cerr == nil {
		sum := sha256.Sum256([]byte(place))
		marker = filepath.Join(dir, "ctx", "hook-no-store", hex.EncodeToString(sum[:]))
		if _, serr := os.Stat(marker); serr == nil {
			return nil // said before
		}
	}
	env.Warnf("%v: this session is not captured", err)
	hint := fmt.Sprintf("%s: hint: run ctx init in %s to capture its sessions", env.Name, cli.Escape(place))
	if marker != "" {
		if os.MkdirAll(filepath.Dir(marker), 0o755) == nil && os.WriteFile(marker, []byte(place+"\n"), 0o644) == nil {
			hint += "; this is said once"
		}
	}
	fmt.Fprintln(env.Stderr, hint)
	return cli.Exit(cli.ExitFinding)
}
