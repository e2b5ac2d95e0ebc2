package main

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/gitstate"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/observe"
	"github.com/ctx-tools/ctx/lib/store"
)

// observe records, for a hook payload about one tool step (Claude Code's
// PreToolUse, PostToolUse, PostToolUseFailure), what the files of the session's working
// directory hold (lib/observe): nothing is packed. A directory that is
// not a git work tree has nothing to compare with, and is passed over.
func (c *packCmd) observe(env *cli.Env, s *store.Store, h *importer.Hook) error {
	if h.Cwd == "" || !filepath.IsAbs(h.Cwd) {
		return cli.Errorf(cli.ExitFinding, "hook payload (%s): no absolute cwd to observe", h.Event)
	}
	e, err := observe.Record(s, h.Cwd, h.SessionID, observe.Entry{Event: h.Event, Time: observe.Now(), ToolUseID: h.ToolUseID, Tool: h.Tool})
	if errors.Is(err, gitstate.ErrNotWorkTree) {
		env.Infof("hook payload (%s): %s is not a git work tree: nothing observed", h.Event, h.Cwd)
		return nil
	}
	if err != nil {
		return cli.WithCode(cli.ExitFinding, err)
	}
	if len(e.Observed) > 0 && h.ToolUseID == "" {
		env.Warnf("hook payload (%s): no tool_use_id: what %s changed cannot be given to its step", h.Event, cli.Escape(h.Tool))
	}
	if len(e.Observed) > 0 {
		var names []string
		for _, o := range e.Observed {
			n := cli.Escape(o.Name)
			if o.Skipped != "" {
				n += " (content not kept: " + o.Skipped + ")"
			}
			names = append(names, n)
		}
		env.Infof("hook payload (%s): %s changed %s", h.Event, cli.Escape(h.Tool), strings.Join(names, ", "))
	}
	return nil
}

// attachObserved gives the steps of a session packed from its hook the
// files the observations after them recorded (lib/observe). Only then:
// the journal is this machine's, and the same transcript packed anywhere
// else packs to the same pack.
func (c *packCmd) attachObserved(env *cli.Env, s *store.Store, src *source) {
	if s == nil || !src.hook || !src.imported || c.hookSession == "" {
		return
	}
	entries, err := observe.Read(s, c.hookSession)
	if err != nil {
		env.Warnf("%s: the files steps changed are not recorded: %v", src.name, err)
		return
	}
	n, missing := observe.Attach(s, src.log, entries)
	if len(missing) > 0 {
		env.Warnf("%s: %s observed but no longer in the store (removed by ctx-gc): left out", src.name, cli.Plural(int64(len(missing)), "file"))
	}
	if n > 0 {
		env.Infof("%s: recorded the files %s changed on disk", src.name, cli.Plural(int64(n), "step"))
	}
}
