package main

import (
	"github.com/ctx-tools/ctx/lib/attest"
	"github.com/ctx-tools/ctx/lib/blame"
	"github.com/ctx-tools/ctx/lib/cli"
)

// commit prints the statement of --commit, or its bundle with --sign-key.
func (c *attestCmd) commit(env *cli.Env) error {
	if len(c.Refs) > 0 || c.Pack || c.Predicate || c.Dir != "" || len(c.Output) > 0 || c.Human {
		return cli.Errorf(cli.ExitUsage, "--commit takes no pack references, --pack, --output, --predicate, --dir or --human")
	}
	s, err := env.Store()
	if err != nil {
		return err
	}
	var signer *attest.Signer
	if c.SignKey != "" {
		if signer, err = loadSigner(env, c.SignKey, s); err != nil {
			return err
		}
	}
	repo, commits, err := blame.Commits(".", "--commit", c.Commit, false)
	if err != nil {
		return err
	}
	commit := commits[0]
	ix, err := blame.Open(s)
	if err != nil {
		return err
	}
	files, err := ix.CommitFiles(repo, commit)
	if err != nil {
		return cli.WithCode(cli.ExitError, err)
	}
	st := attest.ForCommit(commit, files)
	if signer == nil {
		b, err := attest.EncodeCommit(st)
		if err != nil {
			return err
		}
		return env.ResultCanonical(b)
	}
	b, err := signer.SignCommit(st)
	if err != nil {
		return err
	}
	return env.ResultCanonical(b[:len(b)-1])
}
