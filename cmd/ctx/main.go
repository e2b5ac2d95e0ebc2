// Command ctx is the git-style front of the ctx toolkit: `ctx VERB ARGS…`
// runs `ctx-VERB ARGS…`, found beside the ctx executable first and then on
// PATH, with the same stdin, stdout and stderr, and exits with its code.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ctx-tools/ctx/lib/cli"
)

// verbs are the toolkit's commands, for --help and suggestions.
var verbs = []struct{ name, does string }{
	{"init", "create a store (.ctx/)"},
	{"pack", "execution log → immutable context pack"},
	{"show", "pack → manifest, resolved log, summary or object bytes"},
	{"diff", "two packs → typed drift report"},
	{"replay", "pack → re-executed steps and fidelity report"},
	{"verify", "artifact, pack, store or kernel pack → verdict"},
	{"attest", "pack → signed in-toto attestations of its outputs"},
	{"fork", "pack → editable log with parent lineage"},
	{"log", "store → packs, newest first"},
	{"push", "packs → an OCI registry or layout directory"},
	{"pull", "an OCI registry or layout directory → packs"},
	{"blame", "files → the recorded agent step that wrote each line"},
}

type frontCmd struct {
	cli.Globals
	Verb string   `arg:"" help:"Command to run: ctx-VERB." placeholder:"VERB"`
	Args []string `arg:"" optional:"" passthrough:"" help:"Arguments for ctx-VERB." placeholder:"ARGS"`

	rest []string // arguments after the verb, set before parsing
}

func (c *frontCmd) Description() string {
	var b strings.Builder
	b.WriteString("Run a ctx tool: `ctx VERB ARGS…` runs `ctx-VERB ARGS…`.\n\nCommands:\n")
	for _, v := range verbs {
		fmt.Fprintf(&b, "  %-7s %s\n", v.name, v.does)
	}
	b.WriteString("\n`ctx help VERB` shows a command's help.")
	return b.String()
}

func (c *frontCmd) Run(env *cli.Env) error {
	verb, args := c.Verb, append(c.Args, c.rest...)
	switch {
	case c.Human:
		args = append([]string{"--human"}, args...) // ctx --human log
	case c.JSON:
		args = append([]string{"--json"}, args...)
	}
	if verb == "help" {
		if len(args) == 0 {
			return cli.Errorf(cli.ExitUsage, "help: name a command, e.g. ctx help pack")
		}
		verb, args = args[0], []string{"--help"}
	}
	if verb == "" || strings.ContainsAny(verb, `/\`) || strings.HasPrefix(verb, "-") {
		return cli.Errorf(cli.ExitUsage, "invalid command %q", verb)
	}
	bin, err := find("ctx-" + verb)
	if err != nil {
		return cli.WithHint(cli.Errorf(cli.ExitUsage, "unknown command %q: no ctx-%s beside ctx or on PATH", verb, verb), "ctx --help lists the commands")
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	if c.Store != "" {
		cmd.Env = append(os.Environ(), "CTX_STORE="+c.Store)
	}
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if code := ee.ExitCode(); code >= 0 {
			return cli.Exit(code)
		}
		return cli.Errorf(cli.ExitError, "ctx-%s: %v", verb, err)
	}
	if err != nil {
		return cli.Errorf(cli.ExitError, "running ctx-%s: %v", verb, err)
	}
	return nil
}

// find looks for name beside the running executable, then on PATH.
func find(name string) (string, error) {
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), name); isExecutable(p) {
			return p, nil
		}
	}
	return exec.LookPath(name)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// split separates the front's own arguments (flags, then the verb) from
// the verb's, which pass through untouched even when they look like the
// front's flags (ctx show --human).
func split(args []string) (front, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--store":
			i++ // its value
		case a == "--":
			return args[:min(i+2, len(args))], args[min(i+2, len(args)):]
		case !strings.HasPrefix(a, "-"):
			return args[:i+1], args[i+1:]
		}
	}
	return args, nil
}

func main() {
	front, rest := split(os.Args[1:])
	os.Exit(cli.Run("ctx", &frontCmd{rest: rest}, front, os.Stdin, os.Stdout, os.Stderr))
}
