// Package cli is the plumbing every ctx binary shares: the kong grammar
// options and global flags, locating the store, reading references, writing
// canonical JSON results, and turning errors into messages and exit codes.
//
// It is the one package under lib/ that imports kong and prints.
package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/exitcode"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/version"
	"github.com/ctx-tools/ctx/lib/visible"
)

// Exit codes, one table for every binary (docs/design.md §2; lib/exitcode).
const (
	ExitOK      = exitcode.OK      // success; no drift; valid; verified; replay exact
	ExitFinding = exitcode.Finding // a negative finding: drift, invalid log or pack, …
	ExitError   = exitcode.Error   // operational error: no store, not found, I/O, corrupt
	ExitUsage   = exitcode.Usage   // bad flags or arguments
	ExitReplay  = exitcode.Replay  // replay failed: a step could not be executed
)

// ExitTable is shown at the end of every --help.
const ExitTable = exitcode.Table

// Version is the version of ctx (lib/version): the module version the
// binary was built from, else "(devel)".
var Version = version.Module()

// Globals are the flags every binary shares. Embed it in a grammar.
type Globals struct {
	Store   string           `help:"Store directory: a .ctx directory or a directory holding one (default: $CTX_STORE, else the nearest .ctx/ above the working directory)." placeholder:"DIR" env:"CTX_STORE"`
	Human   bool             `help:"Print a readable rendering (the default when stdout is a terminal)." xor:"format"`
	JSON    bool             `name:"json" help:"Print canonical JSON, even when stdout is a terminal." xor:"format"`
	Version kong.VersionFlag `help:"Print the version, the commit (when known) and the Go version, then exit."`

	// StoreFlag is how hints name the store-location flag, when a grammar
	// calls it something other than --store.
	StoreFlag string `kong:"-"`

	storeGiven bool // --store was on the command line, not from CTX_STORE
}

// StoreGiven reports whether --store was given on the command line (rather
// than taken from $CTX_STORE): an explicit argument wins over the
// environment.
func (g *Globals) StoreGiven() bool { return g.storeGiven }

// Flags returns g; embedding Globals gives a grammar this method.
func (g *Globals) Flags() *Globals { return g }

// Command is a binary's kong grammar with its action.
type Command interface {
	Flags() *Globals
	Run(env *Env) error
}

// Describer is implemented by grammars that describe themselves in --help.
type Describer interface {
	Description() string
}

type exitPanic struct{ code int }

// Run parses args into cmd, runs it and returns the exit code. It never
// calls os.Exit, so tests can drive it in process.
func Run(name string, cmd Command, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	env := &Env{Name: name, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	// Only Env speaks on stderr: the standard logger is where net/http
	// says what a misbehaving server did ("Unsolicited response received
	// on idle HTTP channel"), in a form that is no ctx message.
	log.SetOutput(io.Discard)
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(exitPanic); ok {
				code = e.code
				return
			}
			panic(r)
		}
	}()
	desc := ""
	if d, ok := cmd.(Describer); ok {
		desc = d.Description() + "\n\n"
	}
	parser, err := kong.New(cmd,
		kong.Name(name),
		kong.Description(desc+ExitTable),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(exitPanic{code}) }),
		kong.Vars{"version": version.String(name)},
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		env.printErr(err)
		return ExitError
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		env.printErr(err)
		return ExitCode(err)
	}
	env.G = cmd.Flags()
	env.given = map[string]bool{}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved {
			env.given[p.Flag.Name] = true
		}
	}
	env.G.storeGiven = env.given["store"]
	env.stdoutTTY = isTerminal(stdout)
	env.stderrTTY = isTerminal(stderr)
	env.colour = env.stdoutTTY && colourTerm(os.Getenv)
	run := cmd.Run
	// A grammar with subcommands (ctx-remote add|list|remove) runs the one
	// selected, which has the same Run(*Env) method.
	if n := kctx.Selected(); n != nil && n.Type == kong.CommandNode && n.Target.CanAddr() {
		if sub, ok := n.Target.Addr().Interface().(interface{ Run(*Env) error }); ok {
			run = sub.Run
		}
	}
	err = run(env)
	if err != nil {
		env.printErr(err)
	}
	return max(ExitCode(err), env.exit)
}

// Error carries an exit code and an optional hint with an error. Silent
// errors print nothing: the command has already reported its finding.
type Error struct {
	Code   int
	Err    error
	Hint   string
	Silent bool
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}
func (e *Error) Unwrap() error { return e.Err }

// ExitCode implements the exit-code protocol (kong's ExitCoder).
func (e *Error) ExitCode() int { return e.Code }

// Exit returns an error that makes Run exit with code without printing.
func Exit(code int) error { return &Error{Code: code, Silent: true} }

// Errorf returns an error with the given exit code.
func Errorf(code int, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// WithCode attaches an exit code to err.
func WithCode(code int, err error) error { return &Error{Code: code, Err: err} }

// WithHint attaches a hint line to err, keeping its exit code.
func WithHint(err error, hint string) error {
	return &Error{Code: ExitCode(err), Err: err, Hint: hint}
}

// ExitCode maps an error to the exit-code table.
func ExitCode(err error) int {
	var coder interface{ ExitCode() int }
	var parseErr *kong.ParseError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &parseErr):
		// Before ExitCoder: kong's ParseError has its own code (80).
		return ExitUsage
	case errors.As(err, &coder):
		return coder.ExitCode()
	case errors.Is(err, ref.ErrInvalid):
		return ExitUsage
	}
	return ExitError
}

func (e *Env) hintFor(err error) string {
	var ce *Error
	if errors.As(err, &ce) && ce.Hint != "" {
		return ce.Hint
	}
	var parseErr *kong.ParseError
	var streamErr *ref.StreamError
	var hinter interface{ Hint() string }
	switch {
	case errors.As(err, &streamErr):
		return streamErr.Hint
	case errors.As(err, &hinter):
		// An error that says what to do about itself.
		return hinter.Hint()
	case errors.Is(err, store.ErrNoStore):
		flag := "--store"
		if e.G != nil && e.G.StoreFlag != "" {
			flag = e.G.StoreFlag
		}
		return "run ctx-init to create a store here, or name one with " + flag + " DIR or CTX_STORE"
	case errors.As(err, &parseErr):
		return "see --help"
	case errors.Is(err, store.ErrCorrupt):
		return "run ctx-verify --fsck to check the whole store"
	}
	return ""
}

func (e *Env) printErr(err error) {
	var ce *Error
	if errors.As(err, &ce) && ce.Silent {
		return
	}
	fmt.Fprintf(e.Stderr, "%s: error: %s\n", e.Name, escape(err.Error(), true))
	if h := e.hintFor(err); h != "" {
		fmt.Fprintf(e.Stderr, "%s: hint: %s\n", e.Name, escape(h, true))
	}
}

// Env is what a command runs with: its streams, global flags and store.
type Env struct {
	Name   string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	G      *Globals

	stdoutTTY, stderrTTY bool
	colour               bool // stdout is a terminal that shows colour
	store                *store.Store
	exit                 int // the worst code of Problem and AtLeast
	given                map[string]bool
}

// Given reports whether the flag --name was on the command line, even with
// an empty value: an empty --tag is not the same as no --tag.
func (e *Env) Given(name string) bool { return e.given[name] }

// Store opens the store once: --store or CTX_STORE, else the nearest .ctx/
// above the working directory.
func (e *Env) Store() (*store.Store, error) {
	if e.store != nil {
		return e.store, nil
	}
	var s *store.Store
	var err error
	if e.G != nil && e.G.Store != "" {
		s, err = store.OpenAt(e.G.Store)
	} else {
		var wd string
		wd, err = os.Getwd()
		if err == nil {
			s, err = store.Find(wd)
		}
	}
	if err != nil {
		return nil, err
	}
	e.store = s
	return s, nil
}

// Result writes one result document: v's canonical JSON and a newline, in
// one write. On a terminal the JSON is indented for reading.
func (e *Env) Result(v any) error {
	var b []byte
	var err error
	switch v := v.(type) {
	case []byte:
		b, err = canon.Canonicalize(v)
	default:
		b, err = canon.Marshal(v)
	}
	if err != nil {
		return fmt.Errorf("encoding result: %w", err)
	}
	if e.stdoutTTY {
		b = canon.Indent(b)
	}
	return e.write(append(b, '\n'))
}

// ResultCanonical writes b, which is already canonical JSON (what
// manifest.JSON, a log's JSON or a drift report's JSON return), as Result
// would, without checking and copying it again.
func (e *Env) ResultCanonical(b []byte) error {
	if e.stdoutTTY {
		b = canon.Indent(b)
	}
	return e.write(append(b, '\n'))
}

// ResultStream writes one result, canonical JSON that write produces, and
// a newline, streamed to stdout rather than held in memory (a resolved
// pack can hold objects of any size). On a terminal it is collected and
// indented, as Result does. Unlike Result, an error in the middle leaves
// the document cut short; write should check what it can first.
func (e *Env) ResultStream(write func(io.Writer) error) error {
	if e.stdoutTTY {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		return e.ResultCanonical(b.Bytes())
	}
	bw := bufio.NewWriterSize(e.Stdout, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// Text writes a --human rendering; a final newline is added if missing.
// Whatever a terminal would act on is escaped (see Escape); newlines and
// tabs are kept.
func (e *Env) Text(s string) error {
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return e.write([]byte(escape(s, true)))
}

// Raw writes bytes to stdout unchanged (ctx-show --blob).
func (e *Env) Raw(r io.Reader) error {
	_, err := io.Copy(e.Stdout, r)
	if err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

func (e *Env) write(b []byte) error {
	if _, err := e.Stdout.Write(b); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// Human reports whether to print the readable rendering: --human was
// given, or stdout is a terminal and --json was not, as git and gh do.
// Piped or redirected, stdout carries canonical JSON unless --human.
func (e *Env) Human() bool {
	if e.G == nil {
		return false
	}
	return e.G.Human || e.stdoutTTY && !e.G.JSON
}

// Colour reports whether the rendering may be coloured: stdout is a
// terminal, $NO_COLOR is unset or empty (no-color.org) and $TERM names a
// terminal other than "dumb".
func (e *Env) Colour() bool { return e.colour }

func colourTerm(getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" {
		return false
	}
	term := getenv("TERM")
	return term != "" && term != "dumb"
}

// Styled writes a --human rendering built with styles: escaped as Text
// escapes, coloured when Colour says so.
func (e *Env) Styled(t *visible.Text) error {
	s := t.Render(e.colour)
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return e.write([]byte(s))
}

// Warnf prints "NAME: warning: …" on stderr.
// A quoted value longer than 120 characters is shortened to its start and
// end.
func (e *Env) Warnf(format string, args ...any) {
	fmt.Fprintf(e.Stderr, "%s: warning: %s\n", e.Name, escape(elideQuoted(fmt.Sprintf(format, args...)), true))
}

// Problem prints err as "NAME: error: …" on stderr, as Run prints the
// error a command returns but without a hint, and the command goes on: it
// exits with err's code, or a worse one, whatever it returns. A command
// that checks several things (logs, packs, stores, artifacts) calls it for
// each one it cannot check, and AtLeast with each verdict it prints. A
// silent error (Exit) prints nothing.
func (e *Env) Problem(err error) {
	var ce *Error
	if !errors.As(err, &ce) || !ce.Silent {
		fmt.Fprintf(e.Stderr, "%s: error: %s\n", e.Name, escape(err.Error(), true))
	}
	e.AtLeast(ExitCode(err))
}

// AtLeast makes the command exit with code, or a worse (higher) one,
// whatever it returns.
func (e *Env) AtLeast(code int) {
	e.exit = max(e.exit, code)
}

// Diag prints line on stderr as it is, without the "NAME: " prefix (but
// escaped, as every message is): for diagnostics whose form a contract
// fixes, such as the kernel verifier's "IO_ERROR: <message>".
func (e *Env) Diag(line string) {
	fmt.Fprintf(e.Stderr, "%s\n", escape(line, true))
}

// Infof prints "NAME: …" on stderr: a note that is neither a warning nor
// an error (what `--from auto` chose, for instance).
func (e *Env) Infof(format string, args ...any) {
	fmt.Fprintf(e.Stderr, "%s: %s\n", e.Name, escape(fmt.Sprintf(format, args...), true))
}

// Progressf prints a progress line on stderr, only when stderr is a
// terminal.
func (e *Env) Progressf(format string, args ...any) {
	if e.stderrTTY {
		fmt.Fprintf(e.Stderr, "\r\033[K%s: %s", e.Name, Escape(fmt.Sprintf(format, args...)))
	}
}

// ProgressDone ends a progress line.
func (e *Env) ProgressDone() {
	if e.stderrTTY {
		fmt.Fprint(e.Stderr, "\r\033[K")
	}
}

// StdinIsTerminal reports whether stdin is a terminal: a command about to
// read a log from it says so first (cat would not; git does).
func (e *Env) StdinIsTerminal() bool {
	f, ok := e.Stdin.(*os.File)
	return ok && isTerminal(f)
}

// StdoutIsTerminal reports whether stdout is a terminal.
func (e *Env) StdoutIsTerminal() bool { return e.stdoutTTY }

// StderrIsTerminal reports whether stderr is a terminal: where a command
// may add notes meant for a person (ctx-grep's summary line).
func (e *Env) StderrIsTerminal() bool { return e.stderrTTY }

// Refs returns the references given as arguments or, when there are none
// (or the only one is "-"), read from stdin as a stream of ctx output.
func (e *Env) Refs(args []string) ([]ref.Item, error) {
	if len(args) > 0 && !(len(args) == 1 && args[0] == "-") {
		items := make([]ref.Item, len(args))
		for i, a := range args {
			items[i] = ref.Item{Ref: a}
		}
		return items, nil
	}
	if f, ok := e.Stdin.(*os.File); ok && isTerminal(f) {
		return nil, Errorf(ExitUsage, "no reference given and stdin is a terminal")
	}
	return ref.ReadStream(e.Stdin)
}

// Ref returns the one pack reference a command takes: arg, or, when arg is
// empty or "-", the one reference on stdin. what names the pack in
// messages ("the pack to fork", "B").
func (e *Env) Ref(arg, what string) (ref.Item, error) {
	if arg != "" && arg != "-" {
		return ref.Item{Ref: arg}, nil
	}
	items, err := e.Refs(nil)
	if err != nil {
		return ref.Item{}, err
	}
	switch len(items) {
	case 0:
		return ref.Item{}, Errorf(ExitUsage, "no reference to %s given (as an argument or on stdin)", what)
	case 1:
		return items[0], nil
	}
	return ref.Item{}, Errorf(ExitUsage, "stdin names %d packs; give one pack to %s", len(items), what)
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	// /dev/null is a character device too; ask the terminal driver.
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && isTTY(f.Fd())
}

// ReadInput returns the contents of a file argument, or of stdin for "-".
func (e *Env) ReadInput(name string) ([]byte, error) {
	if name == "-" {
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(e.Stdin); err != nil {
			return nil, fmt.Errorf("reading stdin: %w", err)
		}
		return buf.Bytes(), nil
	}
	return readFile(name)
}
