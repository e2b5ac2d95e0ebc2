package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/rerun"
	"github.com/ctx-tools/ctx/lib/store"
)

// checkAgentFlags refuses the flags that mean nothing without --agent,
// and those --agent does not take.
func (c *replayCmd) checkAgentFlags() error {
	if c.Agent == "" {
		for name, given := range map[string]bool{"--agent-bin": c.AgentBin != "", "--from": c.From >= 0, "--upstream": c.Upstream != "", "--model": c.Model != ""} {
			if given {
				return cli.Errorf(cli.ExitUsage, "%s only applies to --agent", name)
			}
		}
		return nil
	}
	if _, err := rerun.Lookup(c.Agent); err != nil {
		return cli.WithCode(cli.ExitUsage, fmt.Errorf("--agent: %w", err))
	}
	for name, given := range map[string]bool{"--live": c.Live != "", "--git": c.Git != "", "--until": c.Until != nil, "--tool": len(c.Tool) > 0, "--steps": c.Steps != "", "--html": c.HTML} {
		if given {
			return cli.Errorf(cli.ExitUsage, "%s does not apply to --agent", name)
		}
	}
	if c.From >= 0 && c.Upstream == "" {
		return cli.Errorf(cli.ExitUsage, "--from needs --upstream: the turns from step %d on are the upstream's", c.From)
	}
	if c.Model != "" && c.Upstream == "" {
		return cli.Errorf(cli.ExitUsage, "--model needs --upstream")
	}
	if c.AgentTimeout <= 0 {
		return cli.Errorf(cli.ExitUsage, "--agent-timeout must be positive")
	}
	return nil
}

// rerun re-runs the pack with the real agent.
func (c *replayCmd) rerun(env *cli.Env, s *store.Store, m *manifest.Manifest) error {
	d, _ := rerun.Lookup(c.Agent)
	opts := rerun.Options{Driver: d, Bin: c.AgentBin, Workspace: c.Workspace, Keep: c.Keep, Model: c.Model,
		Timeout: c.AgentTimeout}
	if c.From >= 0 {
		opts.From = &c.From
	}
	if c.Upstream != "" {
		u, err := url.Parse(c.Upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return cli.Errorf(cli.ExitUsage, "--upstream %q: expected an http or https URL", c.Upstream)
		}
		opts.Upstream = u
	}
	opts.Log = func(prompt int, out []byte) {
		if len(out) > 0 && os.Getenv("CTX_AGENT_LOG") != "" {
			env.Infof("%s, prompt %d:\n%s", c.Agent, prompt, cli.Escape(string(out)))
		}
	}
	var rep *rerun.Report
	err := replay.Interrupt(2*time.Second, func() {}, func(ctx context.Context) error {
		env.Progressf("running %s", c.Agent)
		var err error
		rep, err = rerun.Run(ctx, s, m, opts)
		return err
	})
	env.ProgressDone()
	if err != nil {
		return err
	}
	if c.Keep || c.Workspace != "" {
		env.Infof("workspace kept in %s", rep.Workspace)
	}
	if err := env.Result(rep); err != nil {
		return err
	}
	if code := rep.Fidelity.ExitCode(); code != cli.ExitOK {
		return cli.Exit(code)
	}
	return nil
}
