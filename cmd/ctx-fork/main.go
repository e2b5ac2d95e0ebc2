// Command ctx-fork prints a pack as an editable execution log: the log form
// of docs/design.md §5 with every content inlined (content, or content_base64 for
// bytes that are not UTF-8) and "parent" set to the pack's hash, so that
// packing an edited copy records where it came from:
//
//	ctx-fork latest | jq '.model.parameters.temperature=0' | ctx-pack
//
// It reads one reference (argument, else stdin) and writes the log on
// stdout, or with --draft NAME to .ctx/drafts/NAME.json, printing
// {"draft","parent"}.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/store"
)

type forkCmd struct {
	cli.Globals
	Ref      string `arg:"" optional:"" help:"The pack to fork (default: one reference read from stdin)." placeholder:"REF"`
	NoParent bool   `help:"Do not record REF as the parent: the log keeps REF's own parent, if any, so that packing it unchanged gives back REF itself."`
	Draft    string `help:"Write the log to .ctx/drafts/NAME.json instead of stdout and print {\"draft\",\"parent\"}; finalise it with ctx-pack .ctx/drafts/NAME.json." placeholder:"NAME"`
	Force    bool   `help:"Let --draft replace an existing draft."`
}

func (c *forkCmd) Description() string {
	return `Print a pack as an execution log to edit and pack again: every content inlined, and "parent" set
to the pack's hash. created, timestamps and everything else are the pack's own; edit them with jq.
With --no-parent the log is exactly the pack's (ctx-fork --no-parent X | ctx-pack gives back X).`
}

func (c *forkCmd) Run(env *cli.Env) error {
	if c.Draft != "" || env.Given("draft") {
		if err := store.CheckDraftName(c.Draft); err != nil {
			return cli.WithCode(cli.ExitUsage, err)
		}
	} else if c.Force {
		return cli.Errorf(cli.ExitUsage, "--force only applies to --draft")
	}
	s, err := env.Store()
	if err != nil {
		return err
	}
	it, err := env.Ref(c.Ref, "fork")
	if err != nil {
		return err
	}
	m, err := ref.Load(s, it.Ref)
	if err != nil {
		return err
	}
	d := m.Hash
	l, err := execlog.FromManifest(s, m)
	if err != nil {
		return fmt.Errorf("forking %s: %w", d, err)
	}
	if !c.NoParent {
		l.Parent = d
	}
	if c.Draft == "" && !env.Human() {
		return env.ResultStream(l.WriteJSON)
	}
	b, err := l.JSON()
	if err != nil {
		return fmt.Errorf("forking %s: %w", d, err)
	}
	if c.Draft != "" {
		return c.writeDraft(env, s, b, l.Parent)
	}
	return env.Text(string(canon.Indent(b)))
}

// writeDraft writes the log, indented for editing, to drafts/NAME.json,
// never replacing an existing draft unless --force.
func (c *forkCmd) writeDraft(env *cli.Env, s *store.Store, log []byte, parent digest.Digest) error {
	path, err := s.PutDraft(c.Draft, append(canon.Indent(log), '\n'), c.Force)
	if errors.Is(err, store.ErrDraftExists) {
		return cli.WithHint(cli.Errorf(cli.ExitError, "draft %s already exists", path), "use --force to replace it, or pick another NAME")
	}
	if err != nil {
		return err
	}
	if env.Human() {
		msg := "draft written to " + path
		if !parent.IsZero() {
			msg += " (parent " + parent.String() + ")"
		}
		return env.Text(msg + "\nfinalise it with: ctx-pack " + path)
	}
	out := map[string]string{"draft": path}
	if !parent.IsZero() {
		out["parent"] = parent.String()
	}
	return env.Result(out)
}

func main() {
	os.Exit(cli.Run("ctx-fork", &forkCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
