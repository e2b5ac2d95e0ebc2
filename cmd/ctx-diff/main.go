// Command ctx-diff compares two context packs, A (the baseline) and B, and
// prints a typed drift report: {"a","b","identical","drift":[…],
// "summary":{type:count}} as canonical JSON, a readable summary with
// --human, or a self-contained HTML page with --html. It reads B from
// stdin (any ctx output line) when it is not an argument; A, when neither
// given nor named by --against, is B's parent, else the snapshot of B's
// agent session taken before B, else the "previous" pack of the stdin
// line; one pack named with nothing on stdin is B (ctx-diff latest). So
// `ctx-pack | ctx-diff`
// compares a run with the one before it and `ctx-fork X | … | ctx-pack |
// ctx-diff` with X. Exit 0 when identical, 1 when drift is found (like
// diff(1)).
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/cost"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/drift"
	"github.com/ctx-tools/ctx/lib/htmlview"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/packlog"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/store"
)

type diffCmd struct {
	cli.Globals
	A           string   `arg:"" optional:"" help:"The baseline pack (default: --against REF, else B's parent, else the snapshot of B's session taken before it, else the previous pack named by the stdin line)." placeholder:"A"`
	B           string   `arg:"" optional:"" help:"The pack to compare (default: read from stdin, as a reference or any ctx output line)." placeholder:"B"`
	Against     string   `help:"Compare B with REF (instead of its parent or the previous pack)." placeholder:"REF"`
	Align       string   `help:"How steps are paired: index (step i with step i; extra steps added or removed) or lcs (along the longest common run of type, tool and parameters, so an inserted step is one addition)." enum:"index,lcs" default:"index"`
	AllMetadata bool     `name:"all-metadata" help:"Also report metadata values that differ between any two runs (ids, request ids, uuids, timestamps, session ids), which are otherwise only counted (volatile_metadata)."`
	Ignore      []string `help:"Leave out a drift type (repeatable): model_drift, prompt_drift, input_drift, tool_drift, param_drift, reasoning_drift, tool_output_drift, part_drift, error_drift, usage_drift, output_drift, environment_drift, metadata_drift." placeholder:"TYPE"`
	Prices      string   `help:"Price the runs' usage with the price table in FILE (LiteLLM's model_prices_and_context_window.json shape; its models over the embedded table's) for the cost_usd entry." placeholder:"FILE" type:"existingfile"`
	HTML        bool     `name:"html" help:"Print the report as one self-contained HTML page (no scripts, no network): the first divergence, model and environment side by side, the aligned steps with their diffs."`
	Output      string   `short:"o" help:"Write the --html page to FILE instead of stdout (- is stdout)." placeholder:"FILE"`
}

func (c *diffCmd) Description() string {
	return `Compare two context packs and report typed drift.

Drift types: ` + strings.Join(drift.Types(), ", ") + `.
Each entry has a type, a path (system_prompt, prompts[1],
steps[4].parameters.path, outputs["result.md"], …), the change (changed,
added, removed), the two sides and, for text, a bounded unified diff.

Forms: ctx-diff A B; ctx-diff B (nothing on stdin: B against its parent or
the snapshot before it); ctx-pack … | ctx-diff [A]; ctx-diff --against REF [B].`
}

func (c *diffCmd) Run(env *cli.Env) error {
	opt := drift.Options{}
	for _, t := range c.Ignore {
		if !drift.IsType(t) {
			return cli.Errorf(cli.ExitUsage, "--ignore %s: unknown drift type (want one of %s)", t, strings.Join(drift.Types(), ", "))
		}
	}
	opt.Ignore = c.Ignore
	opt.AllMetadata = c.AllMetadata
	if c.Prices != "" {
		t, err := cost.ReadFile(c.Prices)
		if err != nil {
			return err
		}
		opt.Prices = t
	}
	if c.Align == "lcs" {
		opt.Align = drift.AlignLCS
	}
	if c.Output != "" && !c.HTML {
		return cli.Errorf(cli.ExitUsage, "-o writes the --html page; give --html")
	}
	if c.HTML && c.Human {
		return cli.Errorf(cli.ExitUsage, "give --human or --html, not both")
	}
	if c.A != "" && c.B != "" && c.Against != "" {
		return cli.Errorf(cli.ExitUsage, "give A or --against, not both")
	}
	if c.A == "-" && c.B == "-" {
		return cli.Errorf(cli.ExitUsage, "only one of A and B can be read from stdin")
	}
	s, err := env.Store()
	if err != nil {
		return err
	}

	aRef, bRef := c.A, c.B
	var line []byte // the stdin value B came from
	if c.B == "" && c.A != "" && c.A != "-" {
		// One pack named: it is A when stdin names B (ctx-pack | ctx-diff
		// A), else it is B, compared with its parent or the snapshot
		// before it (ctx-diff REF, as git diff REF~ REF).
		if aRef, bRef, line, err = oneArg(env, c.A, c.Against); err != nil {
			return err
		}
	}
	switch {
	case c.A == "-" && c.B != "":
		if aRef, _, err = oneRef(env, "compare as A"); err != nil {
			return err
		}
	case bRef == "" || bRef == "-":
		if c.A == "-" {
			aRef = ""
		}
		if bRef, line, err = oneRef(env, "compare as B"); err != nil {
			return err
		}
	}
	if aRef == "" {
		aRef = c.Against
	}
	var ma, mb *manifest.Manifest
	if aRef != "" {
		// Both named: load them side by side; a 10,000-step manifest
		// takes as long to load and check as the comparison itself.
		ma, mb, err = loadBoth(s, aRef, bRef)
		if err != nil {
			return err
		}
		return c.report(env, s, ma, mb, opt)
	}
	// A is found from B: B is loaded first, and A then takes B's steps
	// where its bytes are theirs, as loadBoth's B takes A's.
	db, err := resolve(s, "B", bRef, bRef)
	if err != nil {
		return err
	}
	mb, like, err := ref.LoadResolvedForLike(s, bRef, db)
	if err != nil {
		return packErr("B", bRef, bRef, err)
	}
	var aWhat string
	prevSnap := digest.Digest{}
	if mb.Parent.IsZero() && mb.Snapshot() {
		if prevSnap, err = packlog.PreviousOf(s, mb); err != nil {
			return err
		}
	}
	switch {
	case !mb.Parent.IsZero():
		aRef, aWhat = mb.Parent.String(), "parent of B, "+mb.Parent.String()
	case !prevSnap.IsZero():
		aRef, aWhat = prevSnap.String(), "previous snapshot of B's session, "+prevSnap.String()
	default:
		prev := gjson.GetBytes(line, "previous")
		if prev.Type != gjson.String || prev.String() == "" {
			return cli.WithHint(cli.Errorf(cli.ExitUsage, "no pack to compare %s with: it has no parent and no previous pack was given", mb.Hash),
				"name the baseline: ctx-diff A B, or --against REF")
		}
		aRef, aWhat = prev.String(), "previous pack, "+prev.String()
	}
	da, err := resolve(s, "A", aWhat, aRef)
	if err != nil {
		return err
	}
	ma = mb
	if da != mb.Hash {
		if ma, err = ref.LoadResolvedLike(s, aRef, da, like); err != nil {
			return packErr("A", aWhat, aRef, err)
		}
	}
	return c.report(env, s, ma, mb, opt)
}

// report compares the packs and prints the report; drift is exit 1.
func (c *diffCmd) report(env *cli.Env, s *store.Store, ma, mb *manifest.Manifest, opt drift.Options) error {
	r, err := drift.Diff(ma, mb, drift.StoreObjects(s), opt)
	if err != nil {
		return err
	}
	switch {
	case c.HTML:
		var page []byte
		if page, err = htmlview.Diff(ma, mb, r, opt.Align, htmlview.Options{}); err == nil {
			err = htmlview.Write(env.Stdout, c.Output, page)
		}
	case env.Human():
		err = env.Styled(r.StyledWith(drift.StoreObjects(s)))
	default:
		err = env.ResultStream(r.WriteJSON)
	}
	if err != nil {
		return err
	}
	if !r.Identical {
		return cli.Exit(cli.ExitFinding)
	}
	return nil
}

// loadBoth loads A and B side by side, decoding only the steps of B whose
// bytes are not A's (manifest.LoadPair). B's error, if any, is reported
// first, as when they are loaded in turn.
func loadBoth(s *store.Store, aRef, bRef string) (ma, mb *manifest.Manifest, err error) {
	da, errA := resolve(s, "A", aRef, aRef)
	db, err := resolve(s, "B", bRef, bRef)
	if err != nil {
		return nil, nil, err
	}
	if errA != nil {
		return nil, nil, errA
	}
	ma, mb, errA, errB := ref.LoadResolvedPair(s, aRef, bRef, da, db)
	switch {
	case errB != nil:
		return nil, nil, packErr("B", bRef, bRef, errB)
	case errA != nil:
		return nil, nil, packErr("A", aRef, aRef, errA)
	}
	return ma, mb, nil
}

func resolve(s *store.Store, which, what, r string) (digest.Digest, error) {
	d, err := ref.Resolve(s, r)
	if err != nil {
		return d, packErr(which, what, r, err)
	}
	return d, nil
}

// packErr says which pack err (a *ref.Error, which names the reference)
// is about, and where the reference came from when the user did not give
// it (a parent, a previous pack).
func packErr(which, what, r string, err error) error {
	if what == r {
		return fmt.Errorf("pack %s: %w", which, err)
	}
	return fmt.Errorf("pack %s (%s): %w", which, what, err)
}

func main() {
	// A diff allocates two manifests and a report within a few tens of
	// milliseconds and exits, and little of it is garbage. At the default
	// GOGC the collector ran three times meanwhile, and its scans of step
	// lists not yet written cost a page fault more per page; at 400 it
	// still ran once on two 10,000-step packs, for a tenth of the CPU
	// time (docs/performance.md). So it runs only when the heap nears
	// diffMemory (two 100,000-step packs take 150 MB). Objects too large
	// to diff are streamed, so memory stays bounded. GOGC or GOMEMLIMIT,
	// when set, still rules.
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(diffMemory)
	}
	os.Exit(cli.Run("ctx-diff", &diffCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// diffMemory is the heap size at which ctx-diff's collector runs.
const diffMemory = 256 << 20

// oneArg reads the one pack given as an argument, arg: B when stdin is a
// terminal, names no pack, or --against names A; else A, and B is the one
// pack stdin names.
func oneArg(env *cli.Env, arg, against string) (aRef, bRef string, line []byte, err error) {
	if against != "" || env.StdinIsTerminal() {
		return "", arg, nil, nil
	}
	items, err := env.Refs(nil)
	switch {
	case err != nil:
		return "", "", nil, err
	case len(items) == 0:
		return "", arg, nil, nil
	case len(items) > 1:
		return "", "", nil, cli.Errorf(cli.ExitUsage, "stdin names %d packs; give one pack to compare as B", len(items))
	}
	return arg, items[0].Ref, items[0].Raw, nil
}

// oneRef reads the one reference on stdin and the line it came from.
func oneRef(env *cli.Env, what string) (string, []byte, error) {
	it, err := env.Ref("", what)
	return it.Ref, it.Raw, err
}
