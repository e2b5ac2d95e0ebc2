package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/ctx-tools/ctx/lib/attest"
	"github.com/ctx-tools/ctx/lib/blame"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/sidecar"
)

// commitVerdict is the result of --commit.
type commitVerdict struct {
	Commit   string   `json:"commit"`
	Status   string   `json:"status"`
	Reason   string   `json:"reason,omitzero"`
	Key      string   `json:"key,omitzero"`
	Packs    []string `json:"packs"`
	Problems []string `json:"problems,omitzero"`
}

// commit verifies a commit's signed statement: the signature, that the
// statement's subject is the commit, that the attested lines are the
// commit's, and that the store's packs still attribute them so.
func (c *verifyCmd) commit(env *cli.Env) error {
	switch {
	case c.Commit == "" || c.Bundle == "":
		return cli.Errorf(cli.ExitUsage, "--commit REV and --bundle FILE go together")
	case len(c.Args) > 0 || c.Pack != "" || c.Fsck || c.KernelPack != "":
		return cli.Errorf(cli.ExitUsage, "--commit verifies one commit; it takes no other mode")
	}
	repo, commits, err := blame.Commits(".", "--commit", c.Commit, false)
	if err != nil {
		return err
	}
	commit := commits[0]
	b, err := readBundleFile(c.Bundle)
	if err != nil {
		return cli.WithCode(cli.ExitError, fmt.Errorf("--bundle %s: %w", c.Bundle, err))
	}
	opts, err := c.attestOptions(env)
	if err != nil {
		return err
	}
	s, err := env.Store()
	if err != nil {
		return err
	}
	keys, err := opts.Keys(s)
	if err != nil {
		return err
	}
	st, key, status, why, err := attest.VerifyCommit(b, keys, opts.KeysFrom)
	if err != nil {
		return cli.WithCode(cli.ExitFinding, fmt.Errorf("--bundle %s: %w", c.Bundle, err))
	}
	v := commitVerdict{Commit: commit, Status: sidecar.Verified, Packs: []string{}}
	for _, p := range st.Predicate.Packs {
		v.Packs = append(v.Packs, p.URI)
	}
	switch {
	case key == nil:
		v.Status, v.Reason = status, why
	case st.Subject[0].Digest["gitCommit"] != commit:
		v.Status, v.Reason = sidecar.WrongSubject, fmt.Sprintf("the statement is about commit %s, not %s", st.Subject[0].Digest["gitCommit"], commit)
	default:
		v.Key = key.ID
		ix, err := blame.Open(s)
		if err != nil {
			return err
		}
		if v.Problems, err = ix.CheckCommit(repo, st); err != nil {
			return cli.WithCode(cli.ExitError, err)
		}
		if len(v.Problems) > 0 {
			v.Status, v.Reason = sidecar.Modified, fmt.Sprintf("%d attested range(s) no longer hold", len(v.Problems))
		}
	}
	if env.Human() {
		var out strings.Builder
		fmt.Fprintf(&out, "%s  commit %s\n", v.Status, v.Commit)
		if v.Reason != "" {
			fmt.Fprintf(&out, "  %s\n", cli.Escape(v.Reason))
		}
		for _, p := range v.Problems {
			fmt.Fprintf(&out, "  %s\n", cli.Escape(p))
		}
		if err := env.Text(out.String()); err != nil {
			return err
		}
	} else if err := env.Result(v); err != nil {
		return err
	}
	if v.Status != sidecar.Verified {
		env.AtLeast(cli.ExitFinding)
	}
	return nil
}

// readBundleFile reads a bundle named on the command line, bounded as
// lib/attest bounds the bundles it finds.
func readBundleFile(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if fi.Size() > attest.MaxBundle {
		return nil, fmt.Errorf("%d bytes, more than the %d a bundle may have", fi.Size(), attest.MaxBundle)
	}
	return os.ReadFile(name)
}
