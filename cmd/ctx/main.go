// Command ctx is the git-style front of the ctx toolkit: `ctx VERB ARGS…`
// runs `ctx-VERB ARGS…`, found beside the ctx executable first and then on
// PATH. Where the system allows it (Unix), ctx becomes ctx-VERB (execve):
// the streams, the exit status and the signals are the tool's own, and
// `ctx VERB` costs what `ctx-VERB` costs plus one exec. Elsewhere it runs
// the tool as a child and exits with its code.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/suggest"
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
	{"redact", "pack → a copy with every secret replaced by a mark"},
	{"log", "store → packs, newest first"},
	{"tag", "name a pack (refs/tags/NAME), list or delete tags"},
	{"push", "packs → an OCI registry or layout directory"},
	{"pull", "an OCI registry or layout directory → packs"},
	{"gc", "drop superseded snapshots and unreferenced objects"},
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
	bin, err := lookup(verb)
	if err != nil {
		return err
	}
	var extraEnv []string
	if c.Store != "" {
		extraEnv = []string{"CTX_STORE=" + c.Store}
	}
	return run(env, verb, bin, args, extraEnv)
}

// lookup finds the program of verb, or says why there is none.
func lookup(verb string) (string, error) {
	if verb == "" || strings.ContainsAny(verb, `/\`) || strings.HasPrefix(verb, "-") {
		return "", cli.Errorf(cli.ExitUsage, "invalid command %q", verb)
	}
	bin, err := cli.Tool("ctx-" + verb)
	if err != nil {
		err := cli.Errorf(cli.ExitUsage, "unknown command %q: no ctx-%s beside ctx or on PATH", verb, verb)
		names := make([]string, len(verbs))
		for i, v := range verbs {
			names[i] = v.name
		}
		if near := suggest.Nearest(verb, names); len(near) > 0 {
			return "", cli.WithHint(err, "did you mean "+suggest.Join(near, "ctx ")+"?")
		}
		return "", cli.WithHint(err, "ctx --help lists the commands")
	}
	return bin, nil
}

// child runs bin as a child process with the front's streams and returns
// its exit status as the front's: where exec is not available, or when
// the streams are not the process's own (tests driving the front in
// process).
func child(env *cli.Env, verb, bin string, args, extraEnv []string) error {
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	if len(extraEnv) > 0 {
		cmd.Env = append(os.Environ(), extraEnv...)
	}
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if code := ee.ExitCode(); code >= 0 {
			return cli.Exit(code)
		}
		// Killed by a signal: exit as a shell reports it, quietly, as the
		// tool itself would have died (a closed pipe is not an error).
		return cli.Exit(128 + signalNumber(ee))
	}
	if err != nil {
		return cli.Errorf(cli.ExitError, "running ctx-%s: %v", verb, err)
	}
	return nil
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
	if verb, store, human, ok := plain(front); ok {
		// The common case needs no parser: become the tool at once.
		if bin, err := lookup(verb); err == nil {
			args := rest
			if human {
				args = append([]string{"--human"}, args...)
			}
			var extraEnv []string
			if store != "" {
				extraEnv = []string{"CTX_STORE=" + store}
			}
			execTool(bin, args, extraEnv) // returns only if exec failed
		}
	}
	os.Exit(cli.Run("ctx", &frontCmd{rest: rest}, front, os.Stdin, os.Stdout, os.Stderr))
}

// plain reads the front's arguments when they are only --store DIR,
// --human and a verb other than help: the arguments the fast path of main
// understands without the parser. Anything else (--help, --version, an
// unknown flag, no verb) goes through the parser, which explains it.
func plain(front []string) (verb, store string, human, ok bool) {
	for i := 0; i < len(front); i++ {
		switch a := front[i]; {
		case a == "--store" && i+1 < len(front):
			i++
			store = front[i]
		case strings.HasPrefix(a, "--store="):
			store = strings.TrimPrefix(a, "--store=")
		case a == "--human":
			human = true
		case a == "--":
			return "", "", false, false
		case strings.HasPrefix(a, "-") || i != len(front)-1 || a == "help":
			return "", "", false, false
		default:
			verb = a
		}
	}
	return verb, store, human, verb != ""
}
