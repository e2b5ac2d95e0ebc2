// Command ctx-verify checks provenance and integrity. It reads artifacts
// with their <artifact>.ctx.json sidecars and <artifact>.sigstore.json
// signed attestations, a pack, whole stores, or a context-engine-kernel
// Run Export Pack directory, and prints one canonical JSON verdict per
// thing verified: an artifact's status (verified, modified,
// no_provenance, broken, bad_signature, untrusted_signature,
// wrong_predicate_type, wrong_subject), or {"ok",…,"violations"} for a
// pack, a store or a kernel pack.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ctx-tools/ctx/lib/attest"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/fsck"
	"github.com/ctx-tools/ctx/lib/kernelpack"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
	"github.com/ctx-tools/ctx/lib/visible"
)

type verifyCmd struct {
	cli.Globals
	StoreDir string   `name:"store-dir" hidden:"" help:"The same as --store DIR (its name when --store was the whole-store mode)." placeholder:"DIR"`
	Args     []string `arg:"" name:"path" optional:"" help:"Artifacts to verify against their sidecars; with --fsck, store directories (default: the one --store, $CTX_STORE or the working directory names)." placeholder:"ARTIFACT|DIR"`
	Pack     string   `help:"Verify one pack and every object it references (- reads references from stdin)." placeholder:"REF"`
	Fsck     bool     `help:"Verify whole stores: every object, pack entry, manifest, reference and ref, and the layout. --store DIR with nothing else to verify does the same for DIR."`

	legacyStore bool     // --store was given without a value, as the whole-store mode
	KernelPack  string   `name:"kernel-pack" help:"Verify a context-engine-kernel Run Export Pack directory (PACK_SPEC 1.0.0, PK1-PK12)." placeholder:"DIR"`
	NoDeep      bool     `name:"no-deep" help:"With --kernel-pack: skip bundle, optional-file and ledger validation (PK4, PK8, PK9)."`
	NoRefs      bool     `name:"no-refs" help:"With --kernel-pack: skip the run.json to bundle.json hash check (PK5)."`
	Key         []string `help:"Trust attestations (ARTIFACT.sigstore.json) signed with this public key: PEM, or an OpenSSH .pub; repeatable. Without it, keys come from trusted_keys in the user config ($CTX_CONFIG, else ~/.config/ctx/config.json)." placeholder:"PUB"`
	Signed      bool     `help:"Require a signed attestation: an artifact with only a sidecar is no_provenance. Implied by --key."`
	Commit      string   `help:"Verify git commit REV's signed statement (--bundle FILE, from ctx-attest --commit --sign-key): signed by a trusted key, and the line ranges it attests still hold." placeholder:"REV"`
	Bundle      string   `help:"With --commit: the commit's Sigstore bundle." placeholder:"FILE"`
}

func (c *verifyCmd) Description() string {
	return `Verify artifacts, packs, stores and kernel packs.

  ctx-verify ARTIFACT...         each artifact against ARTIFACT.ctx.json and the
                                 pack it names: verified (0), or modified,
                                 no_provenance, broken (1)
  ctx-verify --key PUB ARTIFACT...
                                 ARTIFACT.sigstore.json, a signed attestation,
                                 too: verified (0), or bad_signature,
                                 untrusted_signature, wrong_predicate_type,
                                 wrong_subject, modified, broken (1)
  ctx-verify --pack REF          a pack and every object it references
  ctx-verify --fsck [DIR...]     whole stores; DIR defaults to the store
                                 --store, $CTX_STORE or the working
                                 directory names (--store DIR alone verifies
                                 the store DIR too)
  ctx-verify --kernel-pack DIR   a kernel Run Export Pack (exit 0/1/2/3)
  ctx-verify --commit REV --bundle FILE [--key PUB]
                                 a git commit's signed statement: verified (0),
                                 or bad_signature, untrusted_signature,
                                 modified (1)

--store DIR names the store, as in every ctx command. A recipient with
an artifact, its .sigstore.json bundle and the signer's public key needs
no store: ctx-verify --key PUB ARTIFACT checks the signature and the
subject, and says that the pack was not compared. (--store without a
value, the whole-store mode of earlier versions, still means --fsck.)

Pack and store violations are {rule_id, path, message}, sorted by rule id,
path and message; paths are relative to the store directory:
  ST1  an object's bytes do not hash to its name, or it cannot be read
  ST2  a file or directory that is not part of the store layout
  ST3  a symlink, device or pipe, or a file where a directory belongs
  ST4  a packs/ entry that does not parse, is not canonical, disagrees with
       its manifest, or is missing
  ST5  a pack's manifest object is missing, corrupt, or does not parse
  ST6  a manifest references an object that is not in the store
  ST7  a ref is malformed or points at no finalized pack
Warnings, which never make a store invalid:
  ST8  a pack's parent is not a finalized pack in this store
  ST9  a leftover temporary or lock file (safe to delete when idle)`
}

func (c *verifyCmd) Run(env *cli.Env) error {
	if c.legacyStore {
		env.Warnf("--store without DIR is the whole-store check of earlier versions: use --fsck")
		c.Fsck = true
	}
	if c.StoreDir != "" {
		if c.StoreGiven() {
			return cli.Errorf(cli.ExitUsage, "give --store or --store-dir, not both")
		}
		c.Store = c.StoreDir
	}
	if c.StoreGiven() && !c.Fsck && len(c.Args) == 0 && c.Pack == "" && c.KernelPack == "" && c.Commit == "" && c.Bundle == "" {
		c.Fsck = true // ctx-verify --store DIR: the store DIR
	}
	if c.Commit != "" || c.Bundle != "" {
		return c.commit(env)
	}
	modes := 0
	for _, on := range []bool{len(c.Args) > 0 && !c.Fsck, c.Pack != "", c.Fsck, c.KernelPack != ""} {
		if on {
			modes++
		}
	}
	switch {
	case modes == 0:
		return cli.WithHint(cli.Errorf(cli.ExitUsage, "nothing to verify"), "give ARTIFACT..., --pack REF, --fsck or --kernel-pack DIR")
	case modes > 1:
		return cli.Errorf(cli.ExitUsage, "give one of ARTIFACT..., --pack REF, --fsck and --kernel-pack DIR")
	case (c.NoDeep || c.NoRefs) && c.KernelPack == "":
		return cli.Errorf(cli.ExitUsage, "--no-deep and --no-refs go with --kernel-pack")
	case (len(c.Key) > 0 || c.Signed) && (c.Pack != "" || c.Fsck || c.KernelPack != ""):
		return cli.Errorf(cli.ExitUsage, "--key and --signed go with ARTIFACT...")
	case c.Pack != "" && len(c.Args) > 0:
		return cli.Errorf(cli.ExitUsage, "--pack takes one reference (- for stdin), not arguments")
	case c.KernelPack != "" && len(c.Args) > 0:
		return cli.Errorf(cli.ExitUsage, "--kernel-pack takes one directory, not arguments")
	case c.Fsck && len(c.Args) > 0 && c.StoreGiven():
		return cli.Errorf(cli.ExitUsage, "give store directories either as arguments of --fsck or with --store, not both")
	}
	switch {
	case c.KernelPack != "":
		return c.kernelPack(env)
	case c.Fsck:
		return c.stores(env)
	case c.Pack != "":
		return c.packs(env)
	}
	return c.artifacts(env)
}

func (c *verifyCmd) artifacts(env *cli.Env) error {
	// An explicit store serves every artifact; otherwise each artifact's
	// store is the nearest .ctx above it, then above the working directory.
	open := func(dir string) (*store.Store, error) {
		if env.G.Store != "" {
			s, err := env.Store()
			if err != nil {
				// Named but not there: an error, not a verdict
				// without the pack.
				return nil, cli.WithHint(fmt.Errorf("%v", err), "check --store DIR or CTX_STORE")
			}
			return s, nil
		}
		s, err := store.Find(dir)
		if errors.Is(err, store.ErrNoStore) {
			if s, err2 := env.Store(); err2 == nil {
				return s, nil
			}
		}
		return s, err
	}
	opts, err := c.attestOptions(env)
	if err != nil {
		return err
	}
	opts.Open = open
	for _, a := range c.Args {
		v, err := attest.Verify(a, opts)
		if err != nil {
			env.Problem(fmt.Errorf("%s: %w", a, err))
			if errors.Is(err, store.ErrNoStore) {
				env.Infof("hint: name the store with --store DIR or CTX_STORE")
			}
			continue
		}
		if err := c.print(env, v, v.Styled); err != nil {
			return err
		}
		env.AtLeast(v.ExitCode())
	}
	return nil
}

// attestOptions says which keys signed attestations are checked against:
// exactly the --key keys, else the user's trusted keys (and a store's
// own only when the user trusts that store). A store naming keys it may
// not trust itself gets one warning.
func (c *verifyCmd) attestOptions(env *cli.Env) (attest.Options, error) {
	var trust *attest.Trust
	keysFrom := ""
	if len(c.Key) > 0 {
		var keys []attest.PublicKey
		for _, p := range c.Key {
			k, err := attest.LoadPublicKey(p)
			var fe *found.Error
			if errors.As(err, &fe) {
				return attest.Options{}, err // a pipe or device given as a key: exit 2
			}
			if err != nil {
				return attest.Options{}, cli.WithCode(cli.ExitUsage, err)
			}
			keys = append(keys, k)
		}
		trust = attest.TrustKeys(keys)
		keysFrom = trust.Described()
	}
	config, err := userconfig.Path()
	if trust == nil && err != nil {
		return attest.Options{}, err
	}
	if trust == nil {
		keysFrom = "trusted_keys in " + config
	}
	// The user config is read only once an artifact has a bundle: a
	// sidecar alone needs no key.
	var loadErr error
	warned := map[string]bool{}
	return attest.Options{
		Keys: func(s *store.Store) ([]attest.PublicKey, error) {
			if trust == nil && loadErr == nil {
				var user *userconfig.Config
				if user, loadErr = userconfig.Load(config); loadErr == nil {
					trust, loadErr = attest.LoadTrust(user)
				}
			}
			if loadErr != nil {
				return nil, loadErr
			}
			keys, note, err := trust.Keys(s)
			if note != "" && !warned[s.Root()] {
				warned[s.Root()] = true
				env.Warnf("%s", note)
			}
			return keys, err
		},
		KeysFrom: keysFrom,
		Signed:   c.Signed || len(c.Key) > 0,
	}, nil
}

// print writes v as JSON, or human() as the readable rendering.
func (c *verifyCmd) print(env *cli.Env, v any, human func() *visible.Text) error {
	if env.Human() {
		return env.Styled(human())
	}
	return env.Result(v)
}

// plain makes a rendering without styles one print takes.
func plain(human func() string) func() *visible.Text {
	return func() *visible.Text {
		t := new(visible.Text)
		t.WriteString(human())
		return t
	}
}

func (c *verifyCmd) packs(env *cli.Env) error {
	s, err := env.Store()
	if err != nil {
		return err
	}
	items, err := env.Refs([]string{c.Pack})
	if err != nil {
		return err
	}
	for _, it := range items {
		r, err := c.pack(env, s, it.Ref)
		env.ProgressDone()
		if err != nil {
			env.Problem(err)
			continue
		}
		if err := c.report(env, r); err != nil {
			return err
		}
		env.AtLeast(r.ExitCode())
	}
	return nil
}

// pack checks the pack r names; its errors name r.
func (c *verifyCmd) pack(env *cli.Env, s *store.Store, r string) (*fsck.Report, error) {
	d, err := ref.Resolve(s, r)
	if err != nil {
		return nil, err
	}
	rep, err := fsck.Pack(s, d, c.options(env))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r, err)
	}
	return rep, nil
}

func (c *verifyCmd) stores(env *cli.Env) error {
	var stores []*store.Store
	if len(c.Args) == 0 {
		s, err := env.Store()
		if err != nil {
			return err
		}
		stores = append(stores, s)
	}
	for _, dir := range c.Args {
		s, err := store.OpenAt(dir)
		if err != nil {
			env.Problem(err)
			continue
		}
		stores = append(stores, s)
	}
	for _, s := range stores {
		r, err := fsck.Store(s, c.options(env))
		env.ProgressDone()
		if err != nil {
			env.Problem(err)
			continue
		}
		if err := c.report(env, r); err != nil {
			return err
		}
		env.AtLeast(r.ExitCode())
	}
	return nil
}

// options shows progress on a terminal, at most ten times a second.
func (c *verifyCmd) options(env *cli.Env) fsck.Options {
	var last time.Time
	return fsck.Options{Progress: func(objects int, bytes int64) {
		if now := time.Now(); now.Sub(last) >= 100*time.Millisecond {
			last = now
			env.Progressf("verified %s, %s", cli.Plural(int64(objects), "object"), cli.Size(bytes))
		}
	}}
}

func (c *verifyCmd) report(env *cli.Env, r *fsck.Report) error {
	if !env.Human() {
		for _, w := range r.Warnings {
			env.Warnf("%s %s: %s", w.RuleID, w.Path, w.Message)
		}
	}
	return c.print(env, r.JSON(), plain(r.Human))
}

// kernelPack runs the kernel's verifier contract: its canonical JSON
// (which sorts by UTF-16 code units and may carry lone surrogates) goes
// out byte for byte, and its exit codes are kept.
func (c *verifyCmd) kernelPack(env *cli.Env) error {
	r := kernelpack.Verify(c.KernelPack, kernelpack.Options{Deep: !c.NoDeep, Refs: !c.NoRefs})
	if r.Err != nil {
		// Where the reference throws, its CLI prints this and nothing else.
		env.Diag("IO_ERROR: " + r.Err.Error())
		return cli.Exit(r.ExitCode())
	}
	var err error
	if env.Human() {
		err = env.Text(r.Human())
	} else {
		err = env.Raw(bytes.NewReader(r.JSON()))
	}
	if err != nil {
		return err
	}
	if code := r.ExitCode(); code != 0 {
		return cli.Exit(code)
	}
	return nil
}

func main() {
	c := &verifyCmd{}
	args := legacyStore(c, os.Args[1:])
	os.Exit(cli.Run("ctx-verify", c, args, os.Stdin, os.Stdout, os.Stderr))
}

// legacyStore replaces --store given without a value (last, or before
// another flag) by --fsck, what it meant in earlier versions, and marks c
// to say so. --store with a value names the store, as everywhere.
func legacyStore(c *verifyCmd, args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if a == "--store" && (i == len(out)-1 || strings.HasPrefix(out[i+1], "-")) {
			out[i] = "--fsck"
			c.legacyStore = true
		}
	}
	return out
}
