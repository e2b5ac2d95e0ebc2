// Command ctx-pack turns execution logs into immutable, content-addressed
// context packs. It reads logs from its arguments (or stdin), validates each
// completely before writing anything, stores the content, the manifest and
// the packs/ entry, moves refs/latest (and a tag), and prints one canonical
// JSON result per log: {"hash","uri","created","parent","previous",
// "objects":{"new","reused"},"steps","inputs","outputs","tag","sidecars",
// "bundles"}; with --print, the log it would pack instead. --sidecars DIR writes each output's provenance sidecar, and
// --sign-key KEY its signed in-toto attestation (<output>.sigstore.json).
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/attest"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/gitstate"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/observe"
	"github.com/ctx-tools/ctx/lib/sidecar"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

type packCmd struct {
	cli.Globals
	Logs  []string `arg:"" optional:"" help:"Execution logs to pack (default: stdin; - also means stdin)." placeholder:"LOG"`
	Tag   string   `help:"Also point tag NAME at the new pack." placeholder:"NAME"`
	Force bool     `help:"Move --tag even if it already points at another pack, and replace --sidecars that differ."`

	tagLock *store.RefLock // held from the tag check until the tag is set

	Sidecars string `help:"Also write DIR/<output name>.ctx.json, a provenance sidecar, for every output (never outside DIR)." placeholder:"DIR"`
	SignKey  string `name:"sign-key" help:"With --sidecars, also write DIR/<output name>.sigstore.json: the output's in-toto attestation signed with this ed25519 or ECDSA P-256 key (cosign's encrypted key, OpenSSH, PEM, as ctx-attest reads them; never one inside the store)." placeholder:"KEY"`

	From          string   `help:"Format of the logs (default: a ctx execution log, else the agent format detected, said on stderr): ctx (only the execution log), auto (detect, and say which on stderr), or an agent's own format: aider, anthropic, atif, claude-code, codex, copilot-cli, gemini-cli, inspect, langsmith, openai-chat, openai-responses, opencode, otel-genai. A Claude Code or Codex file leaves a checkpoint in the user's cache (ctx/import; $CTX_IMPORT_CACHE=DIR moves it, off keeps none), so that packing it again once it has grown reads only the lines added, and takes the steps the last pack holds as they were packed." placeholder:"FORMAT"`
	Deterministic []string `help:"With --from, also mark TOOL's calls deterministic (besides read-only tools such as read_file, Read, Glob, Grep, LS). Repeatable." placeholder:"TOOL"`
	Hook          string   `help:"With --from codex or auto, pack the session named by this hook payload (the JSON Codex gives its notify program as its last argument), into the store of its cwd unless --store or $CTX_STORE names one. A payload on stdin (Claude Code's hooks) needs no flag." placeholder:"JSON"`
	AsHook        bool     `name:"as-hook" help:"Run as an agent's hook: print nothing on stdout, exit 1 (never 2, which makes Claude Code carry on) when packing fails, and append the failure to .ctx/hook.log; with no store, say so once for this place and then exit 0 quietly."`
	GitState      bool     `name:"git-state" help:"With --from, record the git state of the session's working directory (the recorded cwd) in environment.metadata.git when it is a git work tree on this machine: the commit the session started from, the branch, the remote, and the hashes of the files that differed from that commit. Packing from a hook payload records it without this flag."`

	signer      *attest.Signer
	hookEvent   string // the event of the hook payload read, for hook.log
	hookSession string // and its session

	Print bool `help:"Print the execution log each LOG would be packed as, canonical JSON one per line, instead of packing it: what --from makes of an agent's log, to read, edit or keep (ctx-pack --from claude-code --print S.jsonl | ctx-pack packs it). Nothing is written, and no store is needed (without one, object references are printed unchecked)."`

	Redact    bool   `help:"Pack the log with every secret gitleaks' rules find replaced by [REDACTED:<rule>:<sha256 prefix>], so that no secret reaches the store: the log goes through ctx-redact (beside ctx-pack, else on PATH), which says on stderr what it replaced."`
	Allowlist string `help:"With --redact, a gitleaks configuration file whose [[allowlists]] are added to the default rules' (known false positives)." placeholder:"FILE"`
	redactor  string // ctx-redact's path
}

func (c *packCmd) Description() string {
	return "Pack execution logs into immutable, content-addressed context packs."
}

// source is one log read and validated, not yet packed.
type source struct {
	name string
	file bool // name is a file read from disk
	data []byte
	log  *execlog.Log

	hook     bool   // read from a hook payload, on the session's machine
	observed bool   // a hook payload about one step: observed, not packed
	cwd      string // the working directory the hook payload gives
	imported bool   // converted from an agent's own format

	prior, priorKey string // where the steps of this pack are kept for the next (execlog.SavePrior)
}

func (c *packCmd) Run(env *cli.Env) error {
	if c.AsHook {
		return c.runHook(env)
	}
	return c.run(env)
}

func (c *packCmd) run(env *cli.Env) error {
	c.storeFromHook()
	// --print writes nothing: without a store it prints the log all the
	// same, its object references (content_ref) as given, unchecked.
	s, err := env.Store()
	if err != nil && !(c.Print && errors.Is(err, store.ErrNoStore)) {
		return err
	}
	if c.Tag != "" || env.Given("tag") {
		if err := store.CheckTagName(c.Tag); err != nil {
			return cli.WithCode(cli.ExitUsage, err)
		}
	}
	names := c.Logs
	if c.Hook != "" {
		if len(names) > 0 {
			return cli.Errorf(cli.ExitUsage, "--hook names the log to pack; give no LOG")
		}
		switch c.From {
		case importer.Ctx:
			return cli.Errorf(cli.ExitUsage, "--hook needs --from codex, claude-code or auto")
		case "":
			c.From = importer.Auto
		}
		names = []string{hookArg}
	}
	if len(names) == 0 {
		names = []string{"-"}
		if env.StdinIsTerminal() {
			// Nothing was piped in: say what is awaited rather than wait
			// in silence.
			env.Infof("reading an execution log from stdin (the terminal); end it with Ctrl-D, or give LOG as an argument (--help)")
		}
	}
	if n := slices.Index(names, "-"); n >= 0 && slices.Contains(names[n+1:], "-") {
		return cli.Errorf(cli.ExitUsage, "stdin (-) can be read only once")
	}
	if len(names) > 1 && c.Tag != "" {
		return cli.Errorf(cli.ExitUsage, "--tag names one pack; give one log")
	}
	if c.Print && (c.Tag != "" || c.Sidecars != "") {
		return cli.Errorf(cli.ExitUsage, "--print packs nothing: it takes no --tag or --sidecars")
	}
	if c.SignKey != "" {
		if c.Sidecars == "" {
			return cli.WithHint(cli.Errorf(cli.ExitUsage, "--sign-key signs the attestations written beside the sidecars: give --sidecars DIR"), "to sign a pack already made: ctx-attest --sign-key KEY --dir DIR REF")
		}
		if c.signer, err = signer(env, c.SignKey, s); err != nil {
			return err
		}
	}
	if c.Allowlist != "" && !c.Redact {
		return cli.Errorf(cli.ExitUsage, "--allowlist applies to --redact")
	}
	if c.Redact {
		if c.redactor, err = cli.Tool("ctx-redact"); err != nil {
			return cli.WithHint(cli.Errorf(cli.ExitError, "--redact needs ctx-redact: %v", err), "install it beside ctx-pack: go install ./cmd/ctx-redact")
		}
	}

	// Validate every log before writing anything.
	var srcs []source
	bad := false
	for _, name := range names {
		src, err := c.read(env, s, name)
		if err == nil && src.observed {
			continue
		}
		if err != nil {
			var probs execlog.Problems
			if !errors.As(err, &probs) {
				return err
			}
			for _, p := range probs {
				env.Problem(cli.WithCode(cli.ExitFinding, fmt.Errorf("%s:%s", src.name, prefixed(p))))
			}
			bad = true
			continue
		}
		srcs = append(srcs, src)
	}
	if bad {
		return cli.Exit(cli.ExitFinding)
	}
	if c.Print {
		for _, src := range srcs {
			for _, w := range src.log.Warnings {
				env.Warnf("%s: %s", src.name, w)
			}
			if err := env.ResultStream(src.log.WriteJSON); err != nil {
				return err
			}
		}
		return nil
	}
	// The tag is decided before the pack's commit point and held until it
	// is set: a ctx-pack that fails on the tag has changed nothing.
	if err := c.checkTag(s, srcs); err != nil {
		return err
	}
	if c.tagLock != nil {
		defer c.tagLock.Unlock()
	}
	if c.Sidecars != "" {
		// Before any pack is written: no name or symlink may lead out of DIR.
		for _, src := range srcs {
			var names []string
			for _, o := range src.log.Outputs {
				names = append(names, o.Name)
			}
			if err := sidecar.CheckFiles(c.Sidecars, names, sidecar.Suffix, attest.Suffix); err != nil {
				return err
			}
		}
	}

	for _, src := range srcs {
		for _, w := range src.log.Warnings {
			env.Warnf("%s: %s", src.name, w)
		}
		if !src.log.Parent.IsZero() {
			if ok, _ := s.HasPack(src.log.Parent); !ok {
				env.Warnf("%s: parent %s is not a pack in this store", src.name, src.log.Parent)
			}
		}
		if err := c.pack(env, s, src); err != nil {
			return err
		}
	}
	return nil
}

// checkTag refuses, before anything is written, to move an existing tag
// to another pack without --force. Packing the same log again under the
// same tag is fine, so the new pack's hash is computed first. The tag's
// lock stays held (c.tagLock), so that no other ctx-pack can take the tag
// before this one sets it.
func (c *packCmd) checkTag(s *store.Store, srcs []source) error {
	if c.Tag == "" || c.Force || len(srcs) != 1 {
		return nil
	}
	d, err := srcs[0].log.Hash(s)
	if err != nil {
		return err
	}
	l, err := s.LockRef(c.Tag)
	if err != nil {
		return err
	}
	old, err := l.Get()
	if err != nil {
		l.Unlock()
		return err
	}
	if old != nil && *old != d {
		l.Unlock()
		return cli.WithHint(cli.Errorf(cli.ExitError, "tag %s already points at %s", c.Tag, *old), "use --force to move it")
	}
	c.tagLock = l
	return nil
}

// prefixed renders a problem after "file:": "line:col: path: msg".
func prefixed(p execlog.Problem) string {
	if p.Line > 0 {
		return p.Error()
	}
	return " " + p.Error()
}

func (c *packCmd) read(env *cli.Env, s *store.Store, name string) (source, error) {
	src := source{name: name}
	dir, err := os.Getwd()
	if err != nil {
		return src, err
	}
	switch name {
	case "-":
		src.name = "<stdin>"
	case hookArg:
		src.name = "--hook"
	default:
		dir = filepath.Dir(name)
		src.file = true
	}
	if name == hookArg {
		src.data = []byte(c.Hook)
	} else if src.data, err = env.ReadInput(name); err != nil {
		return src, cli.WithCode(cli.ExitError, fmt.Errorf("reading log: %w", err))
	}
	if err := c.followHook(env, s, &src, &dir); err != nil || src.observed {
		return src, err
	}
	if err := c.importLog(env, s, &src); err != nil {
		return src, err
	}
	c.attachObserved(env, s, &src)
	opts := execlog.Options{Dir: dir, SourceDateEpoch: os.Getenv("SOURCE_DATE_EPOCH")}
	if src.imported {
		// The importer's log, never printed: checked as Parse would
		// check it printed, it packs to the same pack.
		err = src.log.Check(opts)
	} else {
		src.log, err = execlog.Parse(src.data, opts)
	}
	if err != nil {
		return src, err
	}
	c.recordGit(env, &src)
	if s != nil {
		if err := src.log.CheckStore(s); err != nil {
			return src, err
		}
	}
	if c.Redact {
		return src, c.redact(env, s, &src, opts)
	}
	return src, nil
}

// redact replaces src's log by its redacted form, its files and objects
// read in first, before anything is stored. ctx-redact does the work, as
// a filter, so that ctx-pack, which agent hooks start after every turn,
// does not link (nor start up) the secret scanner.
func (c *packCmd) redact(env *cli.Env, s *store.Store, src *source, opts execlog.Options) error {
	if err := src.log.Inline(s); err != nil {
		return fmt.Errorf("%s: %w", src.name, err)
	}
	b, err := src.log.JSON()
	if err != nil {
		return fmt.Errorf("%s: %w", src.name, err)
	}
	args := []string{}
	if c.Allowlist != "" {
		args = append(args, "--allowlist", c.Allowlist)
	}
	var out bytes.Buffer
	cmd := exec.Command(c.redactor, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(b), &out, env.Stderr
	if err := cli.RunTool(cmd); err != nil {
		code := cli.ExitError
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == cli.ExitUsage {
			code = cli.ExitUsage
		}
		return cli.Errorf(code, "%s: redacting with %s: %v", src.name, c.redactor, err)
	}
	src.data = out.Bytes()
	if src.log, err = execlog.Parse(src.data, opts); err != nil {
		return fmt.Errorf("%s: the redacted log does not parse: %w", src.name, err)
	}
	return nil
}

// storeFromHook makes the store of a --hook payload's working directory
// (Codex's cwd), when there is one, the one to pack into when neither
// --store nor $CTX_STORE names one: Codex runs its notify program
// wherever it was started.
func (c *packCmd) storeFromHook() {
	if c.Hook == "" || c.Store != "" {
		return
	}
	h, err := formats.ParseHook([]byte(c.Hook))
	if err != nil || h == nil || h.Cwd == "" || !filepath.IsAbs(h.Cwd) {
		return
	}
	if s, err := store.Find(h.Cwd); err == nil {
		c.Store = s.Root()
	}
	// Else the store is looked for from the working directory, as always.
}

// hookArg stands for the --hook payload among the logs to read.
const hookArg = "\x00hook"

// followHook replaces a hook payload (an agent's hook input naming its
// transcript) by the transcript it names, when --from is an agent format.
func (c *packCmd) followHook(env *cli.Env, s *store.Store, src *source, dir *string) error {
	if c.From == "" || c.From == importer.Ctx {
		return nil
	}
	h, err := formats.ParseHook(src.data)
	if err != nil {
		return cli.WithCode(cli.ExitFinding, fmt.Errorf("%s: %w", src.name, err))
	}
	if h == nil {
		if src.name == "--hook" {
			return cli.Errorf(cli.ExitFinding, "--hook: not a hook payload (an object with transcript_path, or Codex's agent-turn-complete notification)")
		}
		return nil
	}
	c.hookEvent, c.hookSession = h.Event, h.SessionID
	if slices.Contains(observe.Events, h.Event) {
		src.observed = true
		return c.observe(env, s, h)
	}
	what := "the hook payload's transcript_path"
	if h.Within != "" {
		what = "the Codex rollout of thread " + h.SessionID
	}
	data, err := found.ReadFile(h.Transcript, found.Rule{What: what, Max: importer.MaxTranscript, Within: h.Within})
	if err != nil {
		return cli.WithCode(cli.ExitError, fmt.Errorf("%s: %w", src.name, err))
	}
	what = "hook payload"
	if h.Event != "" {
		what += " (" + h.Event + ")"
	}
	env.Infof("%s: %s: packing %s", src.name, what, h.Transcript)
	src.name, src.data, *dir, src.file = h.Transcript, data, filepath.Dir(h.Transcript), true
	src.hook, src.cwd = true, h.Cwd
	return nil
}

// importLog converts src from an agent's own format into an execution log
// (src.log) when --from asks for it (lib/importer chooses). Problems found
// in the converted log then name it as such, since their paths are not
// the input's.
func (c *packCmd) importLog(env *cli.Env, s *store.Store, src *source) error {
	format, err := c.format(src)
	if err != nil {
		var mis *importer.MismatchError
		if errors.As(err, &mis) {
			return cli.WithHint(fmt.Errorf("%s: %w", src.name, err), mis.Hint())
		}
		var uns *importer.UnsupportedError
		if errors.As(err, &uns) {
			return cli.WithHint(fmt.Errorf("%s: %w", src.name, err), uns.Hint())
		}
		var unk *importer.UnknownFormatError
		if errors.As(err, &unk) {
			return fmt.Errorf("--from %w", err)
		}
		return fmt.Errorf("%s: %w", src.name, err)
	}
	if c.From == importer.Auto || c.From == "" && format != importer.Ctx {
		env.Infof("%s: detected format %s", src.name, format)
	}
	if format == importer.Ctx {
		return nil
	}
	opts := importer.Options{Name: filepath.Base(src.name), Deterministic: c.Deterministic}
	if src.file {
		opts.Dir = filepath.Dir(src.name)
	}
	f, _ := formats.Lookup(format)
	if f.Beside != nil && src.file {
		// What a session file has beside it: its subagents'
		// transcripts, or its messages and parts when it is a session
		// file of a storage.
		beside, err := f.Beside(src.name)
		if err != nil {
			return cli.WithCode(cli.ExitError, fmt.Errorf("%s: %w", src.name, err))
		}
		if beside.Note != "" {
			env.Infof("%s: %s", src.name, beside.Note)
		}
		if beside.Data != nil {
			src.data = beside.Data
		}
		opts.Subagents = beside.Subagents
	}
	if f.Resumable && src.file && !c.Print {
		// Packed again after every reply: the next import reads only
		// the lines this one did not (a checkpoint in the user's cache).
		if dir := userconfig.CacheDir("CTX_IMPORT_CACHE", "import"); dir != "" {
			if abs, err := filepath.Abs(src.name); err == nil {
				opts.Checkpoint = importer.CheckpointFile(dir, abs)
				if !c.Redact {
					// And the steps its last pack holds are taken as
					// they were packed (a redacted log's are not).
					src.prior, src.priorKey = importer.PriorFile(opts.Checkpoint)
					opts.Prior = execlog.LoadPrior(s, src.prior, src.priorKey)
				}
			}
		}
	}
	l, rep, err := formats.ImportLog(format, src.data, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", src.name, err)
	}
	msg := fmt.Sprintf("%s: imported %d of %d %s records", src.name, rep.Mapped, rep.Records, format)
	if rep.Resumed > 0 {
		msg += fmt.Sprintf(" (the first %d lines from the last import's checkpoint)", rep.Resumed)
	}
	if rep.Reused > 0 {
		msg += fmt.Sprintf("; %d of %d steps as pack %s holds them", rep.Reused, len(l.Steps), opts.Prior.Pack().Short())
	}
	if rep.Skipped > 0 {
		msg += fmt.Sprintf("; skipped %d (%s)", rep.Skipped, reasons(rep.Reasons, 160))
	}
	env.Infof("%s", msg)
	for _, w := range rep.Warnings {
		env.Warnf("%s: %s", src.name, w)
	}
	src.name += " (imported as " + format + ")"
	src.log = l
	src.imported = true
	return nil
}

// format is the format of src: --from's, or without it a ctx execution
// log, else the agent format detected. What is neither is read as an
// execution log, whose checks say what is wrong with it.
func (c *packCmd) format(src *source) (string, error) {
	if c.From != "" {
		return formats.Choose(c.From, src.name, src.data)
	}
	format, err := formats.Choose(importer.Auto, src.name, src.data)
	var unknown *importer.DetectError
	if errors.As(err, &unknown) {
		return importer.Ctx, nil
	}
	return format, err
}

// reasons joins the reasons records were skipped for, as many as fit in
// max bytes, and says how many more there are: an import of a long
// session can skip records of many kinds, and one line of stderr should
// stay one line on a terminal.
func reasons(rs []string, max int) string {
	n := 0
	for i, r := range rs {
		if i > 0 && n+len(r)+2 > max {
			return strings.Join(rs[:i], ", ") + fmt.Sprintf(", and %d more", len(rs)-i)
		}
		n += len(r) + 2
	}
	return strings.Join(rs, ", ")
}

// recordGit adds the git state of the session's working directory to an
// imported log packed from a hook payload (on the session's machine, as
// it ends) or with --git-state. Only then: the same transcript packed
// elsewhere must not take the state of another machine's directory.
func (c *packCmd) recordGit(env *cli.Env, src *source) {
	if !src.imported || !src.hook && !c.GitState {
		return
	}
	dir := src.cwd
	if dir == "" {
		dir = gjson.GetBytes(src.log.Metadata, "session.cwd").String()
	}
	if dir == "" || !filepath.IsAbs(dir) {
		if c.GitState {
			env.Warnf("%s: no git state recorded: the session's working directory is not recorded", src.name)
		}
		return
	}
	if gjson.GetBytes(src.log.Environment.Metadata, "git").Exists() {
		env.Warnf("%s: environment.metadata.git is already set; the git state of %s is not recorded", src.name, dir)
		return
	}
	start, _ := time.Parse(time.RFC3339Nano, src.log.Created)
	var exclude []string
	if s, err := env.Store(); err == nil {
		exclude = observe.StoreIn(s, dir)
	}
	st, err := gitstate.Capture(dir, start, exclude...)
	switch {
	case errors.Is(err, gitstate.ErrNotWorkTree):
		if c.GitState {
			env.Warnf("%s: no git state recorded: %s is not a git work tree on this machine", src.name, dir)
		}
		return
	case err != nil:
		env.Warnf("%s: no git state recorded: %v", src.name, err)
		return
	}
	meta := map[string]jsontext.Value{}
	if len(src.log.Environment.Metadata) > 0 {
		if err := json.Unmarshal(src.log.Environment.Metadata, &meta); err != nil {
			env.Warnf("%s: no git state recorded: environment.metadata: %v", src.name, err)
			return
		}
	}
	b, err := json.Marshal(st, json.Deterministic(true))
	if err != nil {
		env.Warnf("%s: no git state recorded: %v", src.name, err)
		return
	}
	meta["git"] = b
	if src.log.Environment.Metadata, err = json.Marshal(meta, json.Deterministic(true)); err != nil {
		env.Warnf("%s: no git state recorded: %v", src.name, err)
		return
	}
	env.Infof("%s: recorded the git state of %s: commit %s, %d file(s) differing from it", src.name, dir, st.Commit, len(st.Changed))
}

// result is what ctx-pack prints for each pack.
type result struct {
	execlog.Result `json:",inline"`
	Tag            string   `json:"tag,omitzero"`
	Sidecars       []string `json:"sidecars,omitzero"`
	Bundles        []string `json:"bundles,omitzero"`
}

func (c *packCmd) pack(env *cli.Env, s *store.Store, src source) error {
	// latest, and the tag, are written with the pack's objects and
	// flushed with them (store.PrepareRefs): setting them below costs a
	// rename and a directory sync each.
	refs := 1
	if c.Tag != "" {
		refs++
	}
	s.PrepareRefs(refs)
	defer s.DiscardPreparedRefs()
	src.log.Progress = func(done, total int) {
		env.Progressf("%s: stored %d of %s", src.name, done, cli.Plural(int64(total), "object"))
	}
	m, stats, err := src.log.Pack(s)
	env.ProgressDone()
	if err != nil {
		return fmt.Errorf("packing %s: %w", src.name, err)
	}
	if src.prior != "" {
		// A cache: the next pack without it does the work again.
		_ = src.log.SavePrior(src.prior, src.priorKey)
	}
	res := result{Result: execlog.NewResult(m, stats), Tag: c.Tag}
	err = s.UpdateRef(store.Latest, func(old *digest.Digest) (digest.Digest, error) {
		if old != nil {
			res.Previous = *old
		}
		return m.Hash, nil
	})
	if err != nil {
		return err
	}
	if c.tagLock != nil {
		if err := c.tagLock.Set(m.Hash); err != nil {
			return fmt.Errorf("pack %s is stored, but not its tag: %w", m.Hash, err)
		}
	} else if c.Tag != "" {
		err := s.UpdateRef(c.Tag, func(old *digest.Digest) (digest.Digest, error) {
			if old != nil && *old != m.Hash && !c.Force {
				return m.Hash, cli.WithHint(cli.Errorf(cli.ExitError, "tag %s already points at %s", c.Tag, *old), "use --force to move it")
			}
			return m.Hash, nil
		})
		if err != nil {
			return err
		}
	}
	if c.Sidecars != "" {
		for _, sc := range sidecar.ForPack(m) {
			p, err := sidecar.Write(c.Sidecars, sc, c.Force)
			if err != nil {
				err = fmt.Errorf("pack %s is stored, but not its sidecars: %w", m.Hash, err)
				if errors.Is(err, sidecar.ErrExists) {
					err = cli.WithHint(err, "use --force to replace it")
				}
				return err
			}
			res.Sidecars = append(res.Sidecars, p)
		}
		if c.signer != nil {
			if res.Bundles, err = c.sign(m); err != nil {
				return err
			}
		}
	}
	if env.Human() {
		return env.Text(human(m, res))
	}
	return env.Result(res)
}

// signer reads the signing key before anything is written, refusing one
// kept inside the store.
func signer(env *cli.Env, path string, s *store.Store) (*attest.Signer, error) {
	if err := attest.CheckKeyOutside(path, s.Root()); err != nil {
		return nil, cli.WithCode(cli.ExitUsage, err)
	}
	k, err := attest.LoadSigner(path, env.Passphrase)
	var fe *found.Error
	if errors.As(err, &fe) {
		return nil, err // a pipe or device given as a key: exit 2
	}
	if err != nil {
		var ce *cli.Error
		if errors.As(err, &ce) && ce.Hint != "" {
			return nil, err
		}
		return nil, cli.WithCode(cli.ExitUsage, err)
	}
	return k, nil
}

// sign writes the signed attestation of every output of m beside its
// sidecar.
func (c *packCmd) sign(m *manifest.Manifest) ([]string, error) {
	signed, err := c.signer.SignOutputs(m)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, sb := range signed {
		p, err := sidecar.WriteFile(c.Sidecars, sb.Name+attest.Suffix, sb.Bundle, c.Force)
		if err != nil {
			err = fmt.Errorf("pack %s is stored, but not its signed attestations: %w", m.Hash, err)
			if errors.Is(err, sidecar.ErrExists) {
				err = cli.WithHint(err, "use --force to replace it")
			}
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func human(m *manifest.Manifest, r result) string {
	s := fmt.Sprintf("packed %s\n  created %s, model %s, %s, %s, %s\n  objects: %d new, %d reused\n",
		r.Hash, r.Created, m.Model.Identifier, cli.Plural(int64(r.Steps), "step"), cli.Plural(int64(r.Inputs), "input"), cli.Plural(int64(r.Outputs), "output"), r.Objects.New, r.Objects.Reused)
	if !r.Parent.IsZero() {
		s += "  parent " + r.Parent.String() + "\n"
	}
	if r.Tag != "" {
		s += "  tag " + r.Tag + "\n"
	}
	for _, p := range r.Sidecars {
		s += "  sidecar " + p + "\n"
	}
	for _, p := range r.Bundles {
		s += "  signed  " + p + "\n"
	}
	return s
}

func main() {
	os.Exit(cli.Run("ctx-pack", &packCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
