// Command ctx-redact finds secrets in a context pack with gitleaks' rules
// and writes a new pack in which each is replaced by a mark,
// [REDACTED:<rule>:<first 8 hex of the secret's SHA-256>], the pack's
// parent being the original, which stays in the store untouched. It
// prints ctx-pack's result line with the findings under "redaction".
// --check only reports: one finding per line, exit 1 when any. Given an
// execution log on stdin instead of a reference, it is a filter: the
// redacted log on stdout, the findings on stderr
// (ctx-fork REF | ctx-redact | ctx-pack). No output ever holds a secret.
package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/secrets"
	"github.com/ctx-tools/ctx/lib/secrets/verdict"
	"github.com/ctx-tools/ctx/lib/store"
)

type redactCmd struct {
	cli.Globals
	Ref       string   `arg:"" optional:"" help:"The pack to redact (default: stdin, which may instead hold an execution log to redact as a filter)." placeholder:"REF"`
	Check     bool     `help:"Only report the secrets found, one JSON line each (--human: one sentence each); write nothing. Exit 1 when any is found. A pack's objects found clean are remembered ($XDG_CACHE_HOME/ctx/secrets; CTX_SECRETS_CACHE=off to disable), so checking them again costs nothing."`
	Allowlist string   `help:"A gitleaks configuration file whose [[allowlists]] are added to the default rules' (known false positives)." placeholder:"FILE"`
	Files     []string `name:"file" sep:"none" help:"With --check, scan FILE as text instead of a pack (repeatable): a page, sidecar or attachment about to be shared. Findings name the file as their path." placeholder:"FILE"`
}

func (c *redactCmd) Description() string {
	return `Replace every secret gitleaks' rules find in a pack by [REDACTED:<rule>:<sha256 prefix>] and
write the result as a new pack whose parent is the original. The same secret gets the same mark
everywhere; everything else stays byte for byte. The original pack stays in the store: to remove it,
drop the refs that name it and prune the store (ctx-gc, where installed).
Also a filter on an execution log: ctx-fork REF | ctx-redact | ctx-pack.`
}

func (c *redactCmd) Run(env *cli.Env) error {
	sc, err := secrets.Load(c.Allowlist)
	if err != nil {
		return cli.WithCode(cli.ExitUsage, err)
	}
	if len(c.Files) > 0 {
		if !c.Check || c.Ref != "" {
			return cli.Errorf(cli.ExitUsage, "--file checks files: give --check and no REF")
		}
		return c.checkFiles(env, sc)
	}
	if c.Ref != "" && c.Ref != "-" {
		return c.redactPack(env, sc, c.Ref)
	}
	data, err := env.ReadInput("-")
	if err != nil {
		return err
	}
	if isLog(data) {
		return c.filter(env, sc, data)
	}
	items, err := ref.ReadStream(bytes.NewReader(data))
	if err != nil {
		return cli.WithCode(cli.ExitUsage, err)
	}
	if len(items) != 1 {
		return cli.Errorf(cli.ExitUsage, "give one pack to redact (stdin names %d)", len(items))
	}
	return c.redactPack(env, sc, items[0].Ref)
}

// isLog reports whether stdin holds an execution log rather than a
// reference: a JSON object naming no pack.
func isLog(data []byte) bool {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	for _, k := range []string{"hash", "uri", "pack", "b"} {
		if gjson.GetBytes(t, k).Type == gjson.String {
			return false
		}
	}
	return true
}

// result is ctx-pack's result line, with what was redacted.
type result struct {
	execlog.Result `json:",inline"`
	Redaction      redaction `json:"redaction"`
}

type redaction struct {
	Secrets  int               `json:"secrets"`
	Marks    int               `json:"marks"`
	Findings []secrets.Finding `json:"findings"`
}

func (c *redactCmd) redactPack(env *cli.Env, sc *secrets.Scanner, r string) error {
	s, err := env.Store()
	if err != nil {
		return err
	}
	m, err := ref.Load(s, r)
	if err != nil {
		return err
	}
	if c.Check {
		// Each object once, and none this user's scans found clean before.
		cache := verdict.Open(verdict.DefaultCacheDir(), sc.Version())
		defer cache.Save()
		found, stats, err := sc.ScanPack(s, m, cache)
		if err != nil {
			return err
		}
		binaryNote(env, stats.Binary, stats.Scanned, "object")
		return report(env, found)
	}
	l, err := execlog.FromManifest(s, m)
	if err != nil {
		return fmt.Errorf("reading pack %s: %w", m.Hash, err)
	}
	l.Parent = m.Hash
	b, err := l.JSON()
	if err != nil {
		return fmt.Errorf("reading pack %s: %w", m.Hash, err)
	}
	red, rep, err := sc.RedactLog(b)
	if err != nil {
		return fmt.Errorf("redacting pack %s: %w", m.Hash, err)
	}
	secrets.Place(m, rep.Findings)
	nl, err := execlog.Parse(red, execlog.Options{})
	if err != nil {
		return fmt.Errorf("redacting pack %s: the redacted log does not parse: %w", m.Hash, err)
	}
	nm, stats, err := nl.Pack(s)
	if err != nil {
		return fmt.Errorf("packing the redaction of %s: %w", m.Hash, err)
	}
	res := result{
		Result:    execlog.NewResult(nm, stats),
		Redaction: redaction{Secrets: rep.Secrets, Marks: rep.Marks, Findings: rep.Findings},
	}
	if res.Redaction.Findings == nil {
		res.Redaction.Findings = []secrets.Finding{}
	}
	err = s.UpdateRef(store.Latest, func(old *digest.Digest) (digest.Digest, error) {
		if old != nil {
			res.Previous = *old
		}
		return nm.Hash, nil
	})
	if err != nil {
		return fmt.Errorf("pack %s is stored, but refs/latest did not move: %w", nm.Hash, err)
	}
	if env.Human() {
		var t strings.Builder
		fmt.Fprintf(&t, "redacted %s\n  into %s (parent %s)\n  %d secret(s) replaced; the pack holds %d mark(s)\n", m.Hash, nm.Hash, m.Hash, rep.Secrets, rep.Marks)
		for _, f := range rep.Findings {
			fmt.Fprintf(&t, "  %s %s\n", cli.Escape(f.Mark), cli.Escape(f.Rule+" at "+where(f)))
		}
		return env.Text(t.String())
	}
	return env.Result(res)
}

// where is a finding's place without its pack.
func where(f secrets.Finding) string {
	s := f.Path
	if f.Line > 0 {
		s += fmt.Sprintf(" line %d", f.Line)
	}
	return s
}

// report prints each finding (--check) and exits 1 when there is any.
func report(env *cli.Env, fs []secrets.Finding) error {
	for _, f := range fs {
		var err error
		if env.Human() {
			err = env.Text(f.String())
		} else {
			err = env.Result(f)
		}
		if err != nil {
			return err
		}
	}
	if len(fs) > 0 {
		return cli.Exit(cli.ExitFinding)
	}
	return nil
}

// checkFiles reports the secrets in --file FILEs.
func (c *redactCmd) checkFiles(env *cli.Env, sc *secrets.Scanner) error {
	var found []secrets.Finding
	binary := 0
	for _, name := range c.Files {
		b, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		if secrets.IsBinary(b) {
			binary++
		}
		fs, err := sc.ScanText(string(b), name)
		if err != nil {
			return err
		}
		found = append(found, fs...)
	}
	binaryNote(env, binary, len(c.Files), "file")
	return report(env, found)
}

// binaryNote says on stderr, when any of the n objects or files scanned
// was binary, how many: only their runs of printable text went through
// the rules (secrets.ScanStats.Binary).
func binaryNote(env *cli.Env, binary, n int, what string) {
	if binary > 0 {
		env.Infof("%d of the %d %s(s) scanned are binary: only their runs of printable text went through the rules", binary, n, what)
	}
}

// filter redacts the execution log data: the redacted log on stdout, what
// was replaced on stderr.
func (c *redactCmd) filter(env *cli.Env, sc *secrets.Scanner, data []byte) error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	l, err := execlog.Parse(data, execlog.Options{Dir: dir, SourceDateEpoch: os.Getenv("SOURCE_DATE_EPOCH")})
	if err != nil {
		return cli.WithCode(cli.ExitFinding, fmt.Errorf("<stdin>: %w", err))
	}
	s, _ := env.Store() // only content_ref needs one
	if err := l.Inline(s); err != nil {
		return err
	}
	b, err := l.JSON()
	if err != nil {
		return err
	}
	red, rep, err := sc.RedactLog(b)
	if err != nil {
		return fmt.Errorf("redacting <stdin>: %w", err)
	}
	if c.Check {
		return report(env, rep.Findings)
	}
	for _, f := range rep.Findings {
		env.Infof("redacted %s at %s as %s", f.Rule, where(f), f.Mark)
	}
	env.Infof("%d secret(s) replaced; the log holds %d mark(s)", rep.Secrets, rep.Marks)
	return env.Result(red)
}

// gcPercent is the collector's target while scanning: a large object
// stays live for the whole scan while the rules' windows come and go, so
// Go's default (collect when the heap doubles) would hold about twice
// the object's size: 64 MB of text take 277 MB at 100, 228 MB at 50,
// for the same CPU time.
const gcPercent = 50

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(cli.Run("ctx-redact", &redactCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
