// Command ctx-replay re-executes the tool calls of a context pack and
// compares every output with the recorded one. It reads one pack reference
// (an argument, or a stream of ctx output on stdin) and prints a fidelity
// report as canonical JSON, a readable one with --human, or with --html a
// self-contained HTML page of the pack with each step's outcome:
//
//	{"pack","fidelity","summary":{steps,verified,matched,…,outputs:{written,reproduced}},"steps":[{index,tool,deterministic,status,expected,actual,reason,duration_ms,changes:[{name,change,before,after}]}],"drift":[…],"outputs":[{name,status,expected,actual,reason}]}
//
// The exit code is the fidelity: 0 exact, 1 degraded or unverified, 4 failed. Steps run in
// a temporary workspace holding the pack's inputs (--workspace DIR: in
// DIR, kept; --git REPO: a temporary git work tree at the commit the
// session started from, the inputs over it) unless --live names a
// directory; the session's own edits are carried out in it in step order,
// and --until N stops after step N. The rules (statuses, edits, built-ins
// and their exact outputs, external executors) are documented in
// lib/replay.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/htmlview"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

type replayCmd struct {
	cli.Globals
	Ref       string        `arg:"" optional:"" help:"Pack to replay: sha256:<hex>, <hex>, ctx://<hex>, a unique prefix, latest or a tag, with ^ or ~N for ancestors (default: read from stdin)." placeholder:"REF"`
	Live      string        `help:"Replay against the files of DIR instead of a temporary workspace holding the pack's inputs; inputs missing or changed in DIR are reported as drift." placeholder:"DIR" xor:"workspace,git"`
	Git       string        `help:"Replay in a temporary git work tree of REPO at the commit the session started from (recorded by ctx-pack from a hook, or with --git-state), with the pack's inputs over it; it is removed afterwards unless --keep. Files the session saw only by name or in part are then known from the commit." placeholder:"REPO" xor:"git"`
	Keep      bool          `help:"Keep the temporary workspace and print where it is on stderr." xor:"workspace"`
	Until     *int          `help:"Stop after step N: the workspace is left as the session had it after that step (see --workspace, --keep); later steps are not replayed, and written outputs are not compared." placeholder:"N"`
	Workspace string        `help:"Make the workspace in DIR (created; if it exists it must be empty) and leave it there: with --until, the files as they were at that step." placeholder:"DIR" xor:"workspace,git"`
	Tool      []string      `help:"Run tool NAME with CMD (repeatable): CMD is split into words as a shell splits simple words, without expansion or operators, runs in the workspace with the step's parameters as JSON on stdin and CTX_TOOL, CTX_STEP_INDEX set; its stdout is the output. Overrides built-ins and configured executors." placeholder:"NAME=CMD" sep:"none"`
	Steps     string        `help:"Replay only these steps: indexes and ranges such as 3, 3-7, 3-, -7, separated by commas." placeholder:"RANGE"`
	Timeout   time.Duration `help:"Time limit of a --tool command for one step." default:"30s"`
	HTML      bool          `name:"html" help:"Print the outcome as one self-contained HTML page (no scripts, no network): the pack with each step's status, the fidelity and the dependencies that drifted."`
	Output    string        `short:"o" help:"Write the --html page to FILE instead of stdout (- is stdout)." placeholder:"FILE"`

	CodexShellReads bool `help:"Replay Codex's plain read-only shell commands (cat, sed -n 'A,Bp', head, nl -ba, ls, rg) by reading the workspace, never by running a shell; other commands are skipped with the reason." name:"codex-shell-reads"`

	Agent        string        `help:"Re-run the session with the real agent (claude-code, codex, gemini) in the loop: the pack answers as the model (as ctx-serve does), the agent gets the session's prompts one by one in a workspace laid out from the pack, and its transcript is packed with this pack as parent." placeholder:"NAME"`
	AgentBin     string        `help:"The agent's executable (default: its command on PATH)." placeholder:"PATH"`
	AgentTimeout time.Duration `help:"Time limit of one prompt's run of the agent." default:"10m"`
	From         int           `help:"With --agent: recorded answers before step N, then --upstream's (a fork onto another model from step N)." default:"-1" placeholder:"N"`
	Upstream     string        `help:"With --agent: the model endpoint that answers from --from on, or what the pack cannot answer (another ctx-serve, or a provider's base URL with its key from the environment)." placeholder:"URL"`
	Model        string        `help:"With --agent --upstream: the model to ask the upstream for." placeholder:"MODEL"`

	TrustStoreConfig bool `help:"Run the executors the store's config.json names (ignored otherwise: stores travel, and a received one must not run code)."`
}

func (c *replayCmd) Description() string {
	return `Replay a context pack: re-execute each step, compare the output hash with the recorded one.

Step status: matched; diverged (a deterministic step produced other bytes);
diverged_expected (a non-deterministic one did); failed (no executor, error,
timeout, bad parameters); skipped (a non-deterministic step with no
executor, no recorded output, a recorded error, files seen only in part or
by name, a rendering not reproduced; the reason says which). Fidelity:
failed (a deterministic step could not run, or an input is missing),
degraded (a deterministic step diverged, a step failed, or a written
output differs), unverified (nothing was executed and compared equal), else
exact. summary.verified counts matched steps. A path outside the recorded
working directory (absolute, through .., under ~) is skipped.

The session's own file edits (Claude Code's Write, Edit, MultiEdit; Codex's
apply_patch, as a tool or a command; write_file, edit_file) are carried out
in the workspace in step order, so later steps see the files as the session
did, and each edit's answer is compared; an edit that does not apply
diverges. After the last step, every output the session wrote is compared
with the workspace (summary.outputs: written, reproduced). --until N stops
after step N; with --workspace DIR (or --keep) the files of that moment stay.

Built-in executors, confined to the workspace: read_file, list_dir, glob,
grep, and Claude Code's Read, LS, Glob, Grep, whose results are rendered as
Claude Code renders them. Other tools need an executor: --tool NAME=CMD, or
"tools" in your config ($CTX_CONFIG, else $XDG_CONFIG_HOME/ctx/config.json):
  {"tools":{"NAME":{"command":["prog","arg"],"version":"1.2","timeout":"30s"}}}
"tools" in the store's .ctx/config.json run only if you trust that store
(--trust-store-config, or its path in "trusted_stores" of your config).
Configuration never replaces a built-in. A recorded shell command never
runs unless you give it an executor.`
}

func (c *replayCmd) Run(env *cli.Env) error {
	if err := c.checkAgentFlags(); err != nil {
		return err
	}
	var ranges []replay.Range
	if c.Steps != "" {
		var err error
		if ranges, err = replay.ParseSteps(c.Steps); err != nil {
			return cli.WithCode(cli.ExitUsage, err)
		}
	}
	if c.Output != "" && !c.HTML {
		return cli.Errorf(cli.ExitUsage, "-o writes the --html page; give --html")
	}
	if c.HTML && c.Human {
		return cli.Errorf(cli.ExitUsage, "give --human or --html, not both")
	}
	if c.Timeout <= 0 {
		return cli.Errorf(cli.ExitUsage, "--timeout must be positive")
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	flagTools := map[string]replay.Executor{}
	for _, spec := range c.Tool {
		name, cmd, err := replay.ParseToolFlag(spec, wd, c.Timeout)
		if err != nil {
			return cli.WithCode(cli.ExitUsage, err)
		}
		if _, dup := flagTools[name]; dup {
			return cli.Errorf(cli.ExitUsage, "--tool %s is given twice", name)
		}
		flagTools[name] = cmd
	}

	s, err := env.Store()
	if err != nil {
		return err
	}
	var user *userconfig.Config
	if path, err := userconfig.Path(); err == nil { // no home: no user config
		if user, err = userconfig.Load(path); err != nil {
			return cli.WithHint(err, "fix "+path)
		}
	}
	tools, warnings, err := replay.LoadTools(replay.ToolSources{
		Flags: flagTools, User: user, Store: s, TrustStore: c.TrustStoreConfig,
	})
	if ce := (*replay.ConfigError)(nil); errors.As(err, &ce) {
		return cli.WithHint(err, "fix "+ce.Path)
	} else if err != nil {
		return err
	}
	for _, w := range warnings {
		env.Warnf("%s", w)
	}

	it, err := env.Ref(c.Ref, "replay")
	if err != nil {
		return err
	}
	m, err := ref.Load(s, it.Ref)
	if err != nil {
		return err
	}
	if c.Agent != "" {
		return c.rerun(env, s, m)
	}

	// The workspace is made in a directory of this run's own, so that a
	// replay stopped by a signal while blocked can still remove it.
	tmp := ""
	if c.Live == "" && !c.Keep && c.Workspace == "" && c.Git == "" {
		if tmp, err = os.MkdirTemp("", "ctx-replay-run-"); err != nil {
			return fmt.Errorf("creating workspace: %w", err)
		}
		defer os.RemoveAll(tmp)
	}
	var rep *replay.Report
	err = replay.Interrupt(2*time.Second, func() {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}, func(ctx context.Context) error {
		var err error
		rep, err = replay.Run(ctx, s, m, replay.Options{
			Live:    c.Live,
			Keep:    c.Keep,
			TempDir: tmp,
			Steps:   ranges,
			Until:   c.Until,
			Dir:     c.Workspace,
			Git:     c.Git,
			Tools:   tools,
			Agents:  formats.ReplayTools(c.CodexShellReads),
			Edits:   formats.ReplayEdits(),
			Progress: func(pos, total int, st *manifest.Step) {
				env.Progressf("step %d/%d (index %d, %s)", pos, total, st.Index, toolName(st))
			},
		})
		return err
	})
	env.ProgressDone()
	switch {
	case errors.Is(err, replay.ErrNoSteps):
		return cli.WithCode(cli.ExitUsage, err)
	case errors.Is(err, replay.ErrWorkspaceNotEmpty):
		return cli.WithCode(cli.ExitUsage, err)
	case errors.Is(err, replay.ErrNoGitState):
		return cli.WithHint(fmt.Errorf("--git: %w", err), "pack the session from its hook, or with ctx-pack --from FORMAT --git-state, on the machine it ran on")
	case err != nil:
		return err
	}
	if c.Keep || c.Workspace != "" {
		env.Infof("workspace kept in %s", rep.Workspace)
	}
	switch {
	case c.HTML:
		var page []byte
		if page, err = htmlview.Replay(m, rep, s, htmlview.Options{}); err == nil {
			err = htmlview.Write(env.Stdout, c.Output, page)
		}
	case env.Human():
		err = env.Styled(rep.Styled())
	default:
		err = env.Result(rep)
	}
	if err != nil {
		return err
	}
	if code := rep.Fidelity.ExitCode(); code != cli.ExitOK {
		return cli.Exit(code)
	}
	return nil
}

func toolName(st *manifest.Step) string {
	if st.Tool != "" {
		return st.Tool
	}
	return st.Type
}

func main() {
	os.Exit(cli.Run("ctx-replay", &replayCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
