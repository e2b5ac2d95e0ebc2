// Package rerun re-executes a pack with the real agent in the loop: the
// pack answers as the model (lib/serve) while the agent — Claude Code,
// Codex, the Gemini CLI — runs for real in a workspace laid out from the
// pack, is sent the session's prompts one by one (a later one resuming
// the session), and writes its own transcript, which is imported and
// packed with the original as its parent. The report says, per recorded
// step, whether the agent's requests matched the recording, and compares
// the files the agent wrote with the recorded outputs.
package rerun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctx-tools/ctx/lib/agent"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/agent/gemini"
	"github.com/ctx-tools/ctx/lib/agent/opencode"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/serve"
	"github.com/ctx-tools/ctx/lib/store"
)

// A Driver runs one agent against a model endpoint. Each agent's package
// has one (claudecode.Driver, codex.Driver, gemini.Driver).
type Driver interface {
	// Name is the agent's name: "claude-code", "codex", "gemini".
	Name() string
	// Package is the npm package the agent installs from, and
	// Executable the command it installs.
	Package() string
	Executable() string
	// Format is the importer format of the agent's transcript.
	Format() string
	// Env prepares the session's home and returns the environment the
	// agent runs with, besides PATH.
	Env(s agent.Session) ([]string, error)
	// Args is the command line that sends a prompt; resume continues the
	// session the earlier prompts started.
	Args(s agent.Session, prompt string, resume bool) []string
	// Transcript finds the transcript the agent wrote.
	Transcript(s agent.Session) (string, error)
}

// promptStdin is a Driver whose agent takes the prompt on its standard
// input, where it arrives as it is: Args is then given "" for it.
type promptStdin interface{ PromptOnStdin() bool }

// commander is a Driver whose agent records a command the user typed
// (a slash command) as its harness's text: Command returns the prompt
// that typed it again.
type commander interface {
	Command(text string) (prompt string, ok bool)
}

// sent are the prompts the agent is given, in order: the pack's user
// prompts, and the commands its harness recorded (commander).
func sent(d Driver, p *serve.Pack) []string {
	c, _ := d.(commander)
	var out []string
	h := 0
	for i := 0; i <= len(p.Prompts); i++ {
		for ; c != nil && h < len(p.Harness) && p.Harness[h].After <= i; h++ {
			if p.Harness[h].Kind != agent.KindCommand {
				continue
			}
			if cmd, ok := c.Command(p.Harness[h].Text); ok {
				out = append(out, cmd)
			}
		}
		if i < len(p.Prompts) {
			out = append(out, p.Prompts[i])
		}
	}
	return out
}

// Drivers are the agents ctx can run, by name.
var Drivers = []Driver{claudecode.Driver{}, codex.Driver{}, gemini.Driver{}, opencode.Driver{}}

// Lookup returns the driver named name.
func Lookup(name string) (Driver, error) {
	for _, d := range Drivers {
		if d.Name() == name {
			return d, nil
		}
	}
	names := make([]string, len(Drivers))
	for i, d := range Drivers {
		names[i] = d.Name()
	}
	return nil, fmt.Errorf("unknown agent %q (known: %v)", name, names)
}

// Options tune Run.
type Options struct {
	Driver Driver
	// Bin is the agent's executable (default: Driver.Executable() on
	// PATH).
	Bin string
	// Workspace, when set, is the directory to run in (created, or
	// empty); else a temporary one, removed unless Keep.
	Workspace string
	Keep      bool
	TempDir   string
	// Upstream, From and Model fork the session: recorded answers before
	// step *From, the upstream's from there (serve.Options).
	Upstream *url.URL
	From     *int
	Model    string
	// Record puts a recording proxy (ctx-serve --record) between the
	// agent and the served pack, and packs what it recorded with the
	// exchange importer (Report.Recorded): the capture of an agent
	// through its API alone. Not for the Gemini API, whose exchanges
	// ctx does not import.
	Record bool
	// Timeout bounds each prompt's run of the agent.
	Timeout time.Duration
	// Log, when set, receives the agent's output (stdout and stderr).
	Log func(prompt int, output []byte)
}

// Report is the outcome of a re-run.
type Report struct {
	Pack     string `json:"pack"`
	Agent    string `json:"agent"`
	Replayed string `json:"replayed,omitzero"`
	// Recorded is the pack made of the exchanges a recording proxy kept
	// (Options.Record).
	Recorded string                `json:"recorded,omitzero"`
	Fidelity replay.Fidelity       `json:"fidelity"`
	Summary  replay.Summary        `json:"summary"`
	Steps    []StepResult          `json:"steps"`
	Outputs  []replay.OutputResult `json:"outputs,omitempty"`
	Requests []serve.Event         `json:"requests"`
	Runs     []AgentRun            `json:"runs"`
	// Transcript is what importing the agent's transcript said: the
	// records it skipped and why, and its warnings.
	Transcript *Import `json:"transcript,omitzero"`

	Workspace string `json:"-"`
}

// A StepResult is one recorded step's outcome.
type StepResult struct {
	Index      int               `json:"index"`
	Type       string            `json:"type"`
	Tool       string            `json:"tool,omitempty"`
	Agent      string            `json:"agent,omitempty"`
	Status     replay.Status     `json:"status"`
	Difference *serve.Difference `json:"difference,omitzero"`
	Reason     string            `json:"reason,omitempty"`
}

// Import is what importing a transcript said.
type Import struct {
	Format   string   `json:"format"`
	Records  int      `json:"records"`
	Skipped  []string `json:"skipped,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// An AgentRun is one run of the agent, for one prompt.
type AgentRun struct {
	Prompt     int    `json:"prompt"`
	ExitCode   int    `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error,omitempty"`
}

// ErrNotInstalled reports an agent that is not installed.
type ErrNotInstalled struct {
	Driver  Driver
	Version string
	Bin     string // the executable given, if any
}

func (e *ErrNotInstalled) Error() string {
	if e.Bin != "" {
		return fmt.Sprintf("%s: no executable %s", e.Driver.Name(), e.Bin)
	}
	return fmt.Sprintf("%s is not installed (no %s on PATH)", e.Driver.Name(), e.Driver.Executable())
}

// Hint names the package to install.
func (e *ErrNotInstalled) Hint() string {
	v := ""
	if e.Version != "" {
		v = "@" + e.Version
	}
	return fmt.Sprintf("install it with: npm install -g %s%s (or give --agent-bin PATH)", e.Driver.Package(), v)
}

// ExitCode is 2: the agent is missing, which says nothing of the run.
func (e *ErrNotInstalled) ExitCode() int { return 2 }

// Run re-runs the pack m of s with the agent of opts.
func Run(ctx context.Context, s *store.Store, m *manifest.Manifest, opts Options) (*Report, error) {
	d := opts.Driver
	bin := opts.Bin
	if bin == "" {
		bin = d.Executable()
	}
	bin, err := exec.LookPath(bin)
	if err != nil {
		return nil, &ErrNotInstalled{Driver: d, Version: RecordedVersion(m), Bin: opts.Bin}
	}
	rec, err := serve.Load(s, []*manifest.Manifest{m})
	if err != nil {
		return nil, err
	}
	prompts := sent(d, rec.Packs[0])
	if len(prompts) == 0 {
		return nil, fmt.Errorf("pack %s has no user prompt to send the agent", m.Hash)
	}
	var ws *replay.Workspace
	if opts.Workspace != "" {
		ws, _, err = replay.MaterialiseDir(s, m.Inputs, opts.Workspace)
	} else {
		ws, _, err = replay.Materialise(s, m.Inputs, opts.TempDir)
	}
	if err != nil {
		return nil, err
	}
	if opts.Workspace == "" && !opts.Keep {
		defer ws.Remove()
	}
	home, err := os.MkdirTemp(opts.TempDir, "ctx-agent-home-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)

	from := opts.From
	if opts.Upstream == nil {
		from = nil // From forks onto an upstream only
	}
	var mu sync.Mutex
	var events []serve.Event
	srv := serve.New(rec, serve.Options{Workspace: ws.Dir, Upstream: opts.Upstream, From: from, Model: opts.Model,
		Event: func(e serve.Event) {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 30 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()
	base := "http://" + ln.Addr().String()
	var rec2 recorder
	if opts.Record {
		if base, err = rec2.start(base); err != nil {
			return nil, err
		}
		defer rec2.stop()
	}
	sess := agent.Session{Home: home, Workspace: ws.Dir, Model: m.Model.Identifier, Key: Key, Bin: bin,
		BaseURLs: map[string]string{"anthropic": base, "openai": base + "/v1", "gemini": base}}
	env, err := d.Env(sess)
	if err != nil {
		return nil, fmt.Errorf("preparing %s's settings: %w", d.Name(), err)
	}
	env = append(baseEnv(), env...)
	sess.Env = env
	rep := &Report{Pack: m.Hash.String(), Agent: d.Name(), Workspace: ws.Dir}
	for i, p := range prompts {
		args, stdin := d.Args(sess, p, i > 0), ""
		if ps, ok := d.(promptStdin); ok && ps.PromptOnStdin() {
			args, stdin = d.Args(sess, "", i > 0), p
		}
		run := runAgent(ctx, bin, ws.Dir, env, args, stdin, opts.Timeout)
		run.Prompt = i
		if opts.Log != nil {
			opts.Log(i, run.output)
		}
		rep.Runs = append(rep.Runs, run.AgentRun)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	hs.Close()
	mu.Lock()
	rep.Requests = slices.Clone(events)
	mu.Unlock()
	if t, err := d.Transcript(sess); err == nil {
		h, imp, err := packTranscript(s, d, t, m.Hash)
		if err != nil {
			return nil, fmt.Errorf("packing %s's transcript: %w", d.Name(), err)
		}
		rep.Replayed, rep.Transcript = h.String(), imp
	}
	if opts.Record {
		rec2.stop()
		h, err := rec2.pack(s, m.Hash)
		if err != nil {
			return nil, fmt.Errorf("packing the recorded exchanges: %w", err)
		}
		rep.Recorded = h.String()
	}
	rep.judge(m, rep.Requests)
	rep.Outputs = compareOutputs(ws, m.Outputs)
	rep.Summary = summarize(rep.Steps, rep.Outputs)
	rep.Fidelity = rep.fidelity()
	return rep, nil
}

// recorder is a recording proxy in front of a served pack.
type recorder struct {
	srv *http.Server
	mu  sync.Mutex
	xs  []serve.Exchange
}

// start runs the proxy in front of upstream and returns its base URL.
func (r *recorder) start(upstream string) (string, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listening: %w", err)
	}
	r.srv = &http.Server{ReadHeaderTimeout: 30 * time.Second, Handler: serve.New(&serve.Recording{}, serve.Options{Upstream: u,
		Record: func(x serve.Exchange) {
			r.mu.Lock()
			r.xs = append(r.xs, x)
			r.mu.Unlock()
		}})}
	go r.srv.Serve(ln)
	return "http://" + ln.Addr().String(), nil
}

func (r *recorder) stop() {
	if r.srv != nil {
		r.srv.Close()
	}
}

// pack imports the recorded exchanges, the format their API's, and
// packs them with parent as their parent.
func (r *recorder) pack(s *store.Store, parent digest.Digest) (digest.Digest, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.xs) == 0 {
		return digest.Digest{}, fmt.Errorf("no exchange was recorded")
	}
	var lines []byte
	for _, x := range r.xs {
		line, err := x.Line()
		if err != nil {
			return digest.Digest{}, err
		}
		lines = append(lines, line...)
	}
	l, _, err := formats.ImportLog(r.xs[0].API, lines, importer.Options{})
	if err == nil {
		err = l.Check(execlog.Options{})
	}
	if err != nil {
		return digest.Digest{}, err
	}
	l.Parent = parent
	m, _, err := l.Pack(s)
	if err != nil {
		return digest.Digest{}, err
	}
	return m.Hash, nil
}

// RecordedVersion is the agent version the pack's session recorded, if
// any.
func RecordedVersion(m *manifest.Manifest) string {
	return gjsonString(m.Metadata, "session.version")
}

// baseEnv is what every agent runs with besides its driver's settings:
// the PATH, and no terminal.
func baseEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "TERM=dumb", "NO_COLOR=1", "CI=true", "LANG=C.UTF-8"}
}

type ran struct {
	AgentRun
	output []byte
}

func runAgent(ctx context.Context, bin, dir string, env, args []string, stdin string, timeout time.Duration) ran {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := ran{AgentRun: AgentRun{DurationMS: time.Since(start).Milliseconds()}, output: out.Bytes()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.ExitCode = ee.ExitCode()
	case err != nil:
		r.ExitCode = -1
		r.Error = err.Error()
	}
	if ctx.Err() == context.DeadlineExceeded {
		r.Error = fmt.Sprintf("timed out after %s", timeout)
	}
	return r
}

// packTranscript imports the agent's transcript and packs it with the
// original as its parent.
func packTranscript(s *store.Store, d Driver, path string, parent digest.Digest) (digest.Digest, *Import, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return digest.Digest{}, nil, err
	}
	opts := importer.Options{Name: filepath.Base(path)}
	if d.Format() == "claude-code" {
		if opts.Subagents, err = claudecode.Subagents(path); err != nil {
			return digest.Digest{}, nil, err
		}
	}
	l, ir, err := formats.ImportLog(d.Format(), data, opts)
	if err == nil {
		err = l.Check(execlog.Options{})
	}
	if err != nil {
		return digest.Digest{}, nil, err
	}
	l.Parent = parent
	pm, _, err := l.Pack(s)
	if err != nil {
		return digest.Digest{}, nil, err
	}
	return pm.Hash, &Import{Format: ir.Format, Records: ir.Records, Skipped: ir.Reasons, Warnings: ir.Warnings}, nil
}

// Key is the API key an agent is given: the endpoint is local and takes
// any, and this one is told apart where it must never be kept.
const Key = "sk-ctx-serve-local-0000"
