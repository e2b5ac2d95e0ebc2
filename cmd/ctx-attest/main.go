// Command ctx-attest makes a pack's provenance checkable outside ctx. It
// reads pack references (arguments or stdin) and prints, for every output
// of each pack, an in-toto Statement v1 with ctx's context-pack predicate
// (or the pack-level statement, or the predicate alone); with --sign-key
// it signs them into Sigstore bundles, printed or written as
// DIR/<output>.sigstore.json beside the outputs' sidecars. --public-key
// prints a key's public half in the PEM form cosign reads.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ctx-tools/ctx/lib/attest"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/sidecar"
	"github.com/ctx-tools/ctx/lib/store"
)

type attestCmd struct {
	cli.Globals
	Refs      []string `arg:"" optional:"" help:"Packs to attest: sha256:<hex>, <hex>, ctx://<hex>, a unique prefix, latest or a tag (default: read from stdin)." placeholder:"REF"`
	Pack      bool     `help:"The pack-level statement (subject: the pack itself) instead of the outputs'."`
	Output    []string `help:"Only the output NAME (repeatable)." placeholder:"NAME"`
	Predicate bool     `help:"Print the predicate alone (for actions/attest predicate-path), not the statement."`
	SignKey   string   `name:"sign-key" help:"Sign with this ed25519 or ECDSA P-256 private key (cosign's encrypted key, OpenSSH with or without a passphrase, PEM; the passphrase from $CTX_KEY_PASSPHRASE or $COSIGN_PASSWORD, else the terminal) and print Sigstore bundles." placeholder:"KEY"`
	Dir       string   `help:"With --sign-key: write DIR/<output>.sigstore.json for every output (never outside DIR) instead of printing." placeholder:"DIR"`
	Force     bool     `help:"With --dir: replace bundles that differ."`
	PublicKey string   `name:"public-key" help:"Print the public key of KEY (a private key, or an OpenSSH .pub) as PKIX PEM, the form cosign --key reads, and exit." placeholder:"KEY"`
	Commit    string   `help:"Attest git commit REV instead of packs: the statement whose subject is the commit and whose predicate lists the packs and the line ranges they wrote in the files it changed (ctx-blame at REV)." placeholder:"REV"`
}

func (c *attestCmd) Description() string {
	return `Print in-toto attestations of packs, signed or not.

  ctx-attest REF                    one statement per output (JSON Lines)
  ctx-attest --pack REF             the statement whose subject is the pack
  ctx-attest --predicate REF        predicates only, for actions/attest
  ctx-attest --sign-key KEY REF     Sigstore bundles (JSON Lines)
  ctx-attest --sign-key KEY --dir DIR REF
                                    write DIR/<output>.sigstore.json
  ctx-attest --public-key KEY       KEY's public key as PEM, for cosign
  ctx-attest --commit REV [--sign-key KEY]
                                    the statement (or bundle) of a git commit:
                                    which packs wrote which of its lines

The predicate type is ` + attest.PredicateType + `
(docs/attestation.md). Bundles hold a DSSE envelope and a public-key hint,
no transparency log; check one with ctx-verify --key PUB ARTIFACT, or
  cosign verify-blob-attestation --key PUB --insecure-ignore-tlog \
    --type ` + attest.PredicateType + ` \
    --bundle ARTIFACT.sigstore.json ARTIFACT
Keys are read, never written, and never taken from inside the store.`
}

func (c *attestCmd) Run(env *cli.Env) error {
	if c.PublicKey != "" {
		if len(c.Refs) > 0 || c.Pack || c.Predicate || c.SignKey != "" || c.Dir != "" || len(c.Output) > 0 {
			return cli.Errorf(cli.ExitUsage, "--public-key takes nothing else")
		}
		return c.publicKey(env)
	}
	if c.Commit != "" {
		return c.commit(env)
	}
	switch {
	case c.Dir != "" && c.SignKey == "":
		return cli.Errorf(cli.ExitUsage, "--dir writes signed bundles: give --sign-key KEY")
	case c.Dir != "" && c.Pack:
		return cli.WithHint(cli.Errorf(cli.ExitUsage, "--dir writes the outputs' bundles, not the pack's"), "print the pack's bundle with --pack --sign-key KEY REF > FILE")
	case c.Force && c.Dir == "":
		return cli.Errorf(cli.ExitUsage, "--force goes with --dir")
	case c.Predicate && c.SignKey != "":
		return cli.Errorf(cli.ExitUsage, "give --predicate or --sign-key, not both: a bundle signs a whole statement")
	case c.Pack && len(c.Output) > 0:
		return cli.Errorf(cli.ExitUsage, "give --pack or --output, not both")
	case c.Human:
		return cli.Errorf(cli.ExitUsage, "ctx-attest has no --human rendering; its results are for other tools")
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
	items, err := env.Refs(c.Refs)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return cli.Errorf(cli.ExitUsage, "no pack reference given (as an argument or on stdin)")
	}
	for _, it := range items {
		m, err := ref.Load(s, it.Ref)
		if err != nil {
			return err
		}
		if err := c.attest(env, m, signer); err != nil {
			return err
		}
	}
	return nil
}

// loadSigner reads the signing key, refusing one kept inside the store:
// a store is copied and shared, and a private key must never travel with
// it.
func loadSigner(env *cli.Env, path string, s *store.Store) (*attest.Signer, error) {
	if err := attest.CheckKeyOutside(path, s.Root()); err != nil {
		return nil, cli.WithCode(cli.ExitUsage, err)
	}
	signer, err := attest.LoadSigner(path, env.Passphrase)
	var fe *found.Error
	if errors.As(err, &fe) {
		return nil, err // a pipe or device given as a key: exit 2
	}
	if err != nil {
		return nil, keyError(err)
	}
	return signer, nil
}

// keyError gives a key that cannot be read the usage exit code, keeping
// the hint of a passphrase that could not be had.
func keyError(err error) error {
	var ce *cli.Error
	if errors.As(err, &ce) && ce.Hint != "" {
		return err
	}
	if errors.Is(err, attest.ErrPassphrase) {
		return cli.WithHint(cli.WithCode(cli.ExitUsage, err), "the passphrase comes from "+strings.Join(cli.PassphraseVars, " or ")+", else the terminal")
	}
	return cli.WithCode(cli.ExitUsage, err)
}

func (c *attestCmd) attest(env *cli.Env, m *manifest.Manifest, signer *attest.Signer) error {
	var stmts []attest.Statement
	var names []string
	if c.Pack {
		stmts, names = []attest.Statement{attest.ForPack(m)}, []string{m.Hash.URI()}
	} else {
		for _, name := range c.Output {
			if !slices.ContainsFunc(m.Outputs, func(o manifest.Output) bool { return o.Name == name }) {
				return cli.Errorf(cli.ExitError, "pack %s has no output named %q", m.Hash, name)
			}
		}
		for i, st := range attest.ForOutputs(m) {
			if len(c.Output) == 0 || slices.Contains(c.Output, m.Outputs[i].Name) {
				stmts, names = append(stmts, st), append(names, m.Outputs[i].Name)
			}
		}
	}
	if c.Dir != "" {
		if err := sidecar.CheckFiles(c.Dir, names, attest.Suffix); err != nil {
			return err
		}
	}
	res := result{Hash: m.Hash, URI: m.Hash.URI(), Bundles: []string{}}
	for i, st := range stmts {
		var b []byte
		var err error
		switch {
		case c.Predicate:
			b, err = attest.EncodePredicate(st.Predicate)
		case signer != nil:
			if b, err = attest.Encode(st); err == nil {
				b, err = signer.Sign(b)
			}
		default:
			b, err = attest.Encode(st)
		}
		if err != nil {
			return err
		}
		if c.Dir == "" {
			if err := env.Result(bytes.TrimSuffix(b, []byte("\n"))); err != nil {
				return err
			}
			continue
		}
		p, err := sidecar.WriteFile(c.Dir, names[i]+attest.Suffix, b, c.Force)
		if errors.Is(err, sidecar.ErrExists) {
			return cli.WithHint(err, "use --force to replace it")
		}
		if err != nil {
			return err
		}
		res.Bundles = append(res.Bundles, p)
	}
	if c.Dir != "" {
		res.Key = signer.Public().ID
		return env.Result(res)
	}
	return nil
}

// result is what ctx-attest --dir prints for each pack.
type result struct {
	Hash    digest.Digest `json:"hash"`
	URI     string        `json:"uri"`
	Key     string        `json:"key"`
	Bundles []string      `json:"bundles"`
}

func (c *attestCmd) publicKey(env *cli.Env) error {
	b, err := found.ReadFile(c.PublicKey, found.Rule{What: "key", Max: attest.MaxKeyFile})
	if err != nil {
		return err
	}
	var pub attest.PublicKey
	if priv, perr := attest.ParseKey(b, func() ([]byte, error) { return env.Passphrase(c.PublicKey) }); perr == nil {
		signer, err := attest.NewSigner(priv)
		if err != nil {
			return cli.WithCode(cli.ExitUsage, fmt.Errorf("%s: %w", c.PublicKey, err))
		}
		pub = signer.Public()
	} else if strings.Contains(string(b), "PRIVATE KEY-----") {
		return keyError(fmt.Errorf("%s: %w", c.PublicKey, perr))
	} else if pub, err = attest.ParsePublicKey(b, c.PublicKey); err != nil {
		return cli.WithCode(cli.ExitUsage, fmt.Errorf("%s: neither a private key (%v) nor a public key", c.PublicKey, perr))
	}
	return env.Raw(bytes.NewReader(pub.PEM()))
}

func main() {
	os.Exit(cli.Run("ctx-attest", &attestCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
