// Command ctx is the git-style front of the ctx toolkit: `ctx VERB ARGS…`
// runs `ctx-VERB ARGS…`, found beside the ctx executable first and then on
// PATH. Where the system allows it (Unix), ctx becomes ctx-VERB (execve):
// the streams, the exit status and the signals are the tool's own. It
// reads its own few flags (--store DIR, --human, --json, --help,
// --version) and the verb by hand, with no parser and nothing but the
// standard library linked, so that `ctx VERB` costs what `ctx-VERB` costs
// plus one exec. Elsewhere it runs the tool as a child and exits with its
// code. It also answers `ctx help [VERB]`, `ctx version` and
// `ctx completion bash|zsh|fish` itself.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/ctx-tools/ctx/lib/exitcode"
	"github.com/ctx-tools/ctx/lib/suggest"
	"github.com/ctx-tools/ctx/lib/toolpath"
	"github.com/ctx-tools/ctx/lib/version"
)

// verbs are the toolkit's commands, for --help, suggestions and
// completion: one line each.
var verbs = []struct{ name, does string }{
	{"init", "create a store (.ctx/)"},
	{"pack", "execution log → immutable context pack"},
	{"show", "pack → manifest, resolved log, summary or object bytes"},
	{"diff", "two packs → typed drift report"},
	{"replay", "pack → re-executed steps and fidelity report"},
	{"serve", "packs → model API endpoints an agent can run against"},
	{"verify", "artifact, pack, store or kernel pack → verdict"},
	{"attest", "pack → signed in-toto attestations of its outputs"},
	{"fork", "pack → editable log with parent lineage"},
	{"redact", "pack → a copy with every secret replaced by a mark"},
	{"log", "store → packs, newest first"},
	{"grep", "store → the lines of its packs' content that match"},
	{"tag", "name a pack (refs/tags/NAME), list or delete tags"},
	{"push", "packs → an OCI registry or layout directory"},
	{"pull", "an OCI registry or layout directory → packs"},
	{"remote", "add, list or remove the remotes push and pull name"},
	{"gc", "drop superseded snapshots and unreferenced objects"},
	{"blame", "files → the recorded agent step that wrote each line"},
}

// builtins are the verbs the front answers itself.
var builtins = []struct{ name, does string }{
	{"help", "this help, or a command's (ctx help VERB)"},
	{"version", "print the version"},
	{"completion", "print a completion script: ctx completion bash|zsh|fish"},
}

// front is what the front's own arguments say.
type front struct {
	store       string
	storeGiven  bool
	human, json bool
	help        bool
	version     bool
	verb        string
	rest        []string // the verb's arguments, untouched
}

// usageError is a mistake in the front's own arguments: exit 3.
type usageError struct{ msg, hint string }

func (e *usageError) Error() string { return e.msg }

// parse reads the front's flags and the verb; everything after the verb
// is the verb's, even what looks like the front's flags (ctx show --human).
func parse(args []string) (front, error) {
	var f front
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--store":
			if i+1 >= len(args) {
				return f, &usageError{msg: "--store: expected a directory", hint: "see ctx --help"}
			}
			i++
			f.store, f.storeGiven = args[i], true
		case strings.HasPrefix(a, "--store="):
			f.store, f.storeGiven = strings.TrimPrefix(a, "--store="), true
		case a == "--human":
			f.human = true
		case a == "--json":
			f.json = true
		case a == "-h" || a == "--help":
			f.help = true
		case a == "--version":
			f.version = true
		case a == "--":
			if i+1 < len(args) {
				f.verb, f.rest = args[i+1], args[i+2:]
			}
			return f, f.check()
		case strings.HasPrefix(a, "-"):
			return f, &usageError{msg: "unknown flag " + a, hint: "see ctx --help"}
		default:
			f.verb, f.rest = a, args[i+1:]
			return f, f.check()
		}
	}
	return f, f.check()
}

func (f front) check() error {
	if f.human && f.json {
		return &usageError{msg: "--human and --json can't be used together", hint: "see ctx --help"}
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the front: it becomes the tool (execve) when it can, and
// otherwise returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	f, err := parse(args)
	if err != nil {
		return fail(stderr, err)
	}
	switch {
	case f.help && f.verb == "":
		fmt.Fprint(stdout, usage())
		return exitcode.OK
	case f.version && f.verb == "", f.verb == "version":
		fmt.Fprintln(stdout, version.String("ctx"))
		return exitcode.OK
	case f.verb == "":
		fmt.Fprint(stderr, usage())
		return fail(stderr, &usageError{msg: "expected a command", hint: "ctx --help lists the commands"})
	case f.verb == "help":
		if len(f.rest) == 0 {
			fmt.Fprint(stdout, usage())
			return exitcode.OK
		}
		if f.rest[0] == "completion" {
			fmt.Fprint(stdout, completionUsage)
			return exitcode.OK
		}
		f.verb, f.rest = f.rest[0], []string{"--help"}
	case f.verb == "completion":
		if f.help || len(f.rest) > 0 && (f.rest[0] == "-h" || f.rest[0] == "--help") {
			fmt.Fprint(stdout, completionUsage)
			return exitcode.OK
		}
		if len(f.rest) != 1 {
			return fail(stderr, &usageError{msg: "completion: name one shell: bash, zsh or fish", hint: "ctx completion bash > /etc/bash_completion.d/ctx"})
		}
		script, err := completion(f.rest[0])
		if err != nil {
			return fail(stderr, err)
		}
		fmt.Fprint(stdout, script)
		return exitcode.OK
	}
	bin, err := lookup(f.verb)
	if err != nil {
		return fail(stderr, err)
	}
	args = f.rest
	switch {
	case f.help:
		args = append([]string{"--help"}, args...) // ctx --help log
	case f.version:
		args = append([]string{"--version"}, args...)
	case f.human:
		args = append([]string{"--human"}, args...) // ctx --human log
	case f.json:
		args = append([]string{"--json"}, args...)
	}
	var extraEnv []string
	if f.storeGiven {
		extraEnv = []string{"CTX_STORE=" + f.store}
	}
	execTool(bin, args, extraEnv) // returns only where exec is not available or failed
	return child(f.verb, bin, args, extraEnv, stderr)
}

// fail prints err as the front's error, with its hint, and returns its
// exit code.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "ctx: error: %s\n", err)
	code := exitcode.Error
	var ue *usageError
	if errors.As(err, &ue) {
		code = exitcode.Usage
		if ue.hint != "" {
			fmt.Fprintf(stderr, "ctx: hint: %s\n", ue.hint)
		}
	}
	return code
}

// usage is the front's --help.
func usage() string {
	var b strings.Builder
	b.WriteString(`Usage: ctx [--store DIR] [--human|--json] VERB [ARGS…]

Run a ctx tool: ` + "`ctx VERB ARGS…`" + ` runs ` + "`ctx-VERB ARGS…`" + `.

Commands:
`)
	for _, v := range verbs {
		fmt.Fprintf(&b, "  %-10s %s\n", v.name, v.does)
	}
	for _, v := range builtins {
		fmt.Fprintf(&b, "  %-10s %s\n", v.name, v.does)
	}
	b.WriteString(`
Flags (before VERB):
  --store DIR   Store directory, passed on as $CTX_STORE.
  --human       Print the readable rendering.
  --json        Print canonical JSON, even on a terminal.
  -h, --help    Show this help (after VERB: the command's).
  --version     Print the version, the commit (when known) and the Go version.

` + "`ctx help VERB`" + ` shows a command's help.

` + exitcode.Table + "\n")
	return b.String()
}

// lookup finds the program of verb, or says why there is none.
func lookup(verb string) (string, error) {
	if verb == "" || strings.ContainsAny(verb, `/\`) || strings.HasPrefix(verb, "-") {
		return "", &usageError{msg: fmt.Sprintf("invalid command %q", verb)}
	}
	bin, err := toolpath.Find("ctx-" + verb)
	if err == nil {
		return bin, nil
	}
	ue := &usageError{msg: fmt.Sprintf("unknown command %q: no ctx-%s beside ctx or on PATH", verb, verb), hint: "ctx --help lists the commands"}
	if near := suggest.Nearest(verb, names()); len(near) > 0 {
		ue.hint = "did you mean " + suggest.Join(near, "ctx ") + "?"
	}
	return "", ue
}

// names are the verbs ctx runs and the ones it answers itself.
func names() []string {
	var ns []string
	for _, v := range verbs {
		ns = append(ns, v.name)
	}
	for _, v := range builtins {
		ns = append(ns, v.name)
	}
	return ns
}

// child runs bin as a child process with the front's streams and returns
// its exit status as the front's: where exec is not available.
func child(verb, bin string, args, extraEnv []string, stderr io.Writer) int {
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if len(extraEnv) > 0 {
		cmd.Env = append(os.Environ(), extraEnv...)
	}
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if code := ee.ExitCode(); code >= 0 {
			return code
		}
		// Killed by a signal: exit as a shell reports it, quietly, as the
		// tool itself would have died (a closed pipe is not an error).
		return 128 + signalNumber(ee)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ctx: error: running ctx-%s: %v\n", verb, err)
		return exitcode.Error
	}
	return exitcode.OK
}
