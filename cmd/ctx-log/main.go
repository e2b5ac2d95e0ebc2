// Command ctx-log lists the packs of a store, newest first: one canonical
// JSON line per finalized pack,
//
//	{"cost_usd","created","hash","inputs","latest","model","outputs","parent","steps","tags","tokens","unpriced","uri"}
//
// read from the packs/ entries (the store's index), never from manifests
// unless a --where query needs manifest fields. It reads no stdin. With
// --lineage REF it lists REF and its ancestors instead; with --tags, the
// tags.
package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctx-tools/ctx/cmd/internal/taglist"
	"github.com/ctx-tools/ctx/lib/blame"
	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/cost"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/packlog"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/visible"
)

type logCmd struct {
	cli.Globals
	MaxCount int      `name:"max-count" short:"n" default:"-1" help:"List at most N packs (default: all; -n 0 lists none, as git log does)." placeholder:"N"`
	Lineage  string   `help:"List REF, its parent, its parent's parent, … to the root, in that order, instead of the whole store (a session's snapshot is followed by the one taken before it)." placeholder:"REF"`
	Commit   string   `help:"Only the packs of git commit REV (or range A..B): those its Ctx-Pack trailers name, and those whose recorded edits wrote lines it adds (so also when the trailers were stripped)." placeholder:"REV"`
	Model    string   `help:"Only packs whose model identifier is ID." placeholder:"ID"`
	Since    string   `help:"Only packs created at or after TIME: RFC 3339, a date (2026-02-10, UTC) or an age (36h, 7d, 2w)." placeholder:"TIME"`
	Until    string   `help:"Only packs created at or before TIME (same forms as --since)." placeholder:"TIME"`
	Where    []string `help:"Only packs matching a gjson query condition, e.g. 'steps>10', 'model%\"gpt-*\"', 'tags.#(==\"v1\")', 'model.parameters.temperature==0'. Queries on log line fields read only packs/ entries; others read each candidate's manifest. Repeat to require several." placeholder:"QUERY" sep:"none"`
	Tags     bool     `help:"List tags instead: {\"hash\",\"tag\",\"uri\"} per tag, by name."`
	Usage    string   `help:"Report tokens and cost instead, summed by day, week, month, model, agent or session, over the packs selected (each agent session once): one JSON line per group, a table with --human." enum:",day,week,month,model,agent,session" default:"" placeholder:"BY"`
	Prices   string   `help:"With --usage: price every pack's usage with the price table in FILE (LiteLLM's model_prices_and_context_window.json shape) instead of the figures kept when it was packed; reads each pack's manifest." placeholder:"FILE" type:"existingfile"`
}

func (c *logCmd) Description() string {
	return `List the packs of the store, newest first by created: the run's time, for an agent session the
time it started, never the time it was packed. Packs created at the same instant (the snapshots of one
session) are listed a descendant before its parent, then more steps first, then the one packed later
first. So -n 1 is the newest run, which is not always latest (the pack the last ctx-pack made):
latest is marked, "latest":true in JSON and in the TAGS column of the table.

One JSON line per pack, {"cost_usd","created","hash","inputs","latest","model","outputs","parent","steps",
"tags","tokens","unpriced","uri"}, where steps, inputs and outputs are counts, parent is left out for a
pack without one, latest only on the pack refs/latest names, and tags lists the tags naming the pack.
tokens sums the steps' usage and cost_usd is what the run cost (the agent's own figure, else computed
from usage with the embedded LiteLLM prices when it was packed); unpriced names the models cost_usd
leaves out. They are left out for packs made before packs/ entries kept them.

--usage day|week|month|model|agent|session sums tokens and cost over the packs selected instead,
counting each agent session once (its fullest snapshot): one JSON line per group, a table with --human.

An empty store prints nothing (and "no packs found" on stderr) and exits 0. A corrupt or unreadable
pack entry is reported on stderr, every other pack is still listed, and the exit code is then 2.

--where takes the condition of a gjson query (https://github.com/tidwall/gjson/blob/master/SYNTAX.md#queries).
A condition on a log line field (hash, uri, tags; or created, parent, model, steps, inputs, outputs
compared as a whole) is answered from the packs/ entries. A condition on anything else (a path into
model, steps, prompts, inputs or outputs, or version, system_prompt, environment, metadata) is
answered from each candidate pack's manifest, which is then read: such queries are slower.

For stores of 2048 packs or more (CTX_LOG_CACHE_MIN=N says from how many), a copy of the packs/
entries is kept in the user's cache directory ($XDG_CACHE_HOME/ctx/packlog, or ~/.cache/ctx/packlog;
CTX_LOG_CACHE=DIR moves it, CTX_LOG_CACHE=off disables it): packs/ is still listed every time, and an
entry is taken from the copy only while its file is the same (same name and inode); anything else is
read from packs/. Beside it, in manifests/, --where keeps each manifest it read without its steps,
named by the manifest's digest and checksummed; a condition on a plain path outside steps
('metadata.session.cwd=="/src"') is answered from these, anything else from the manifests. Both are
safe to delete.`
}

func (c *logCmd) Run(env *cli.Env) error {
	opt, err := c.options()
	if err != nil {
		return err
	}
	s, err := env.Store()
	if err != nil {
		return err
	}
	if c.MaxCount == 0 {
		return nil
	}
	if c.Tags {
		return c.listTags(env, s)
	}
	if c.Lineage != "" {
		return c.listLineage(env, s, opt)
	}
	if c.Commit != "" {
		if err := c.commitPacks(s, &opt); err != nil {
			return err
		}
	}
	l, err := packlog.List(s, opt)
	if err != nil {
		return err
	}
	if c.Usage != "" {
		return c.usage(env, s, l)
	}
	if err := print(env, l.Entries); err != nil {
		return err
	}
	if len(l.Entries) == 0 && len(l.Problems) == 0 {
		if l.Total == 0 {
			env.Infof("no packs found")
		} else {
			env.Infof("no packs match (%d in the store)", l.Total)
		}
	}
	return problems(env, l.Problems)
}

// options checks the flags and turns them into listing options.
func (c *logCmd) options() (packlog.Options, error) {
	var opt packlog.Options
	if c.MaxCount < -1 {
		return opt, cli.Errorf(cli.ExitUsage, "-n %d: want a count of at least 0", c.MaxCount)
	}
	if c.Tags && (c.Lineage != "" || c.MaxCount != -1 || c.Model != "" || c.Since != "" || c.Until != "" || len(c.Where) > 0) {
		return opt, cli.Errorf(cli.ExitUsage, "--tags lists tags; it takes no other listing flag")
	}
	if c.Usage != "" && (c.Lineage != "" || c.Tags || c.MaxCount != -1) {
		return opt, cli.Errorf(cli.ExitUsage, "--usage sums the packs selected; it takes no --lineage, --tags or -n")
	}
	if c.Prices != "" && c.Usage == "" {
		return opt, cli.Errorf(cli.ExitUsage, "--prices prices a --usage report; give --usage BY")
	}
	opt.Limit = max(c.MaxCount, 0) // 0 means all; -n 0 never gets here
	opt.Model = c.Model
	opt.CacheDir = packlog.DefaultCacheDir()
	opt.CacheMin = cacheMin()
	if err := opt.SetRange(c.Since, c.Until, time.Now()); err != nil {
		return opt, cli.WithCode(cli.ExitUsage, err)
	}
	for _, w := range c.Where {
		q, err := packlog.ParseQuery(w)
		if err != nil {
			return opt, cli.Errorf(cli.ExitUsage, "--where: %w", err)
		}
		opt.Where = append(opt.Where, q)
	}
	return opt, nil
}

// usage prints the --usage report of the listed packs.
func (c *logCmd) usage(env *cli.Env, s *store.Store, l packlog.Listing) error {
	var prices *cost.Table
	if c.Prices != "" {
		t, err := cost.ReadFile(c.Prices)
		if err != nil {
			return err
		}
		prices = t
	}
	rows, probs := packlog.Usage(s, l.Entries, c.Usage, prices)
	if env.Human() {
		if len(rows) > 0 {
			if err := env.Styled(usageTable(c.Usage, rows)); err != nil {
				return err
			}
		}
	} else {
		for _, r := range rows {
			line := map[string]any{c.Usage: r.Key, "packs": r.Packs, "steps": r.Steps, "tokens": r.Tokens}
			if r.USD != nil {
				line["cost_usd"] = *r.USD
			}
			if len(r.Unpriced) > 0 {
				line["unpriced"] = r.Unpriced
			}
			if r.Hash != "" {
				line["hash"] = r.Hash
			}
			if err := env.Result(line); err != nil {
				return err
			}
		}
	}
	if len(rows) == 0 && len(probs) == 0 {
		env.Infof("no usage recorded in the packs selected")
	}
	if t := packlog.UsageTotal(rows); len(t.Unpriced) > 0 {
		env.Warnf("no price for %s: their tokens are counted, not their cost (--prices FILE prices them)", strings.Join(t.Unpriced, ", "))
	}
	return problems(env, append(l.Problems, probs...))
}

// usageTable renders a --usage report: a row per group and the total.
func usageTable(by string, rows []packlog.UsageRow) *visible.Text {
	head := []string{strings.ToUpper(by), "PACKS", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "REASONING", "COST"}
	cells := [][]string{head}
	row := func(key string, r packlog.UsageRow) []string {
		n := func(v *int64) string {
			if v == nil {
				return "-"
			}
			return manifest.Thousands(*v)
		}
		c := cost.Format(r.USD)
		if len(r.Unpriced) > 0 {
			c += "*"
		}
		return []string{key, strconv.Itoa(r.Packs), n(r.Tokens.InputTokens), n(r.Tokens.OutputTokens),
			n(r.Tokens.CacheReadTokens), n(r.Tokens.CacheCreationTokens), n(r.Tokens.ReasoningTokens), c}
	}
	for _, r := range rows {
		key := r.Key
		if by == "agent" && key == "" {
			key = "(main)"
		}
		cells = append(cells, row(cli.Escape(key), r))
	}
	total := packlog.UsageTotal(rows)
	cells = append(cells, row("TOTAL", total))
	width := make([]int, len(head))
	for _, r := range cells {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	b := new(visible.Text)
	for i, r := range cells {
		for j, c := range r {
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(c))
			switch {
			case j == 0:
				c += pad
			default:
				c = pad + c // numbers right-aligned
			}
			if i == 0 || i == len(cells)-1 {
				b.Paint(visible.Bold, c)
			} else {
				b.WriteString(c)
			}
			if j < len(r)-1 {
				b.WriteString("  ")
			}
		}
		b.WriteString("\n")
	}
	if len(total.Unpriced) > 0 {
		b.WriteString("* leaves out the models without a price: " + cli.Escape(strings.Join(total.Unpriced, ", ")) + "\n")
	}
	return b
}

func (c *logCmd) listLineage(env *cli.Env, s *store.Store, opt packlog.Options) error {
	d, err := ref.Resolve(s, c.Lineage)
	if err != nil {
		return err
	}
	entries, lineageErr := packlog.Lineage(s, d)
	if len(entries) == 0 {
		return lineageErr
	}
	tags, probs, err := s.Tags()
	if err != nil {
		return err
	}
	packlog.IndexTags(tags).Apply(entries)
	kept, more := packlog.Select(s, entries, opt)
	if err := print(env, kept); err != nil {
		return err
	}
	if lineageErr != nil && (opt.Limit == 0 || len(kept) < opt.Limit) {
		probs = append(probs, lineageErr)
	}
	return problems(env, append(probs, more...))
}

// commitPacks restricts the listing to the packs of --commit.
func (c *logCmd) commitPacks(s *store.Store, opt *packlog.Options) error {
	repo, commits, err := blame.Commits(".", "--commit", c.Commit, true)
	if err != nil {
		return err
	}
	ix, err := blame.Open(s)
	if err != nil {
		return err
	}
	found, err := ix.CommitPacks(repo, commits)
	if err != nil {
		return cli.WithCode(cli.ExitError, err)
	}
	opt.Only = found
	return nil
}

func (c *logCmd) listTags(env *cli.Env, s *store.Store) error {
	probs, err := taglist.Print(env, s)
	if err != nil {
		return err
	}
	return problems(env, probs)
}

// cacheMin returns $CTX_LOG_CACHE_MIN, the number of packs from which a
// store's caches are kept; 0 (2,048) when unset or not a count.
func cacheMin() int {
	n, _ := strconv.Atoi(os.Getenv("CTX_LOG_CACHE_MIN"))
	return max(n, 0)
}

// print writes the entries: JSON lines in chunks of whole lines (a
// failure never leaves half a line), indented on a terminal; or a table.
func print(env *cli.Env, es []packlog.Entry) error {
	s, err := env.Store()
	if err != nil {
		return err
	}
	if err := packlog.MarkLatest(s, es); err != nil {
		env.Problem(err)
	}
	if env.Human() {
		return env.Styled(table(es)(tokenCells(s, es)))
	}
	const chunk = 64 << 10
	buf := make([]byte, 0, chunk+1024)
	tty := env.StdoutIsTerminal()
	for i := range es {
		if tty {
			buf = append(canon.Indent(es[i].AppendJSON(nil)), '\n')
			if _, err := env.Stdout.Write(buf); err != nil {
				return fmt.Errorf("writing output: %w", err)
			}
			continue
		}
		buf = append(es[i].AppendJSON(buf), '\n')
		if len(buf) >= chunk || i == len(es)-1 {
			if _, err := env.Stdout.Write(buf); err != nil {
				return fmt.Errorf("writing output: %w", err)
			}
			buf = buf[:0]
		}
	}
	return nil
}

// tokenCells returns the TOKENS and COST cells of each entry: the input
// and output tokens its steps recorded ("-" when none did) and their cost
// ("-" when nothing is priced; "*" marks a figure that leaves out unpriced
// models), from its packs/ entry; for an entry written before usage was
// kept, from its manifest, "?" when that cannot be read (the listing
// reports that elsewhere: ctx-verify).
func tokenCells(s *store.Store, es []packlog.Entry) (tokens, costs []string) {
	tokens, costs = make([]string, len(es)), make([]string, len(es))
	for i := range es {
		u := es[i].Usage
		if u == nil {
			m, err := manifest.Load(s, es[i].Hash)
			if err != nil {
				tokens[i], costs[i] = "?", "?"
				continue
			}
			if u = cost.Entry(m); u == nil {
				u = &manifest.SummaryUsage{}
			}
		}
		switch t := u.Tokens; {
		case t.InputTokens == nil && t.OutputTokens == nil:
			tokens[i] = "-"
		default:
			tokens[i] = thousands(t.InputTokens) + " in, " + thousands(t.OutputTokens) + " out"
		}
		costs[i] = cost.Format(u.CostUSD)
		if len(u.Unpriced) > 0 {
			costs[i] += "*"
		}
	}
	return tokens, costs
}

func thousands(n *int64) string {
	if n == nil {
		return "0"
	}
	return manifest.Thousands(*n)
}

// table renders entries for --human: columns two spaces apart, each as
// wide as its widest cell, and no trailing blanks; in colour, the header
// bold and the hashes yellow, as git log shows them.
func table(es []packlog.Entry) func(tokens, costs []string) *visible.Text {
	return func(tokens, costs []string) *visible.Text { return tableOf(es, tokens, costs) }
}

func tableOf(es []packlog.Entry, tokens, costs []string) *visible.Text {
	b := new(visible.Text)
	if len(es) == 0 {
		return b
	}
	rows := make([][8]string, 0, len(es)+1)
	rows = append(rows, [8]string{"HASH", "CREATED", "MODEL", "STEPS", "TOKENS", "COST", "PARENT", "TAGS"})
	for i := range es {
		e := &es[i]
		parent := "-"
		if !e.Parent.IsZero() {
			parent = e.Parent.Short()
		}
		refs := e.Tags
		if e.Latest {
			refs = append([]string{store.Latest}, refs...)
		}
		rows = append(rows, [8]string{e.Hash.Short(), e.Created, cli.Escape(e.Model), strconv.Itoa(e.Steps), tokens[i], costs[i], parent, strings.Join(refs, ",")})
	}
	var width [8]int
	for _, r := range rows {
		for c, cell := range r {
			width[c] = max(width[c], utf8.RuneCountInString(cell))
		}
	}
	for i, r := range rows {
		last := len(r) - 1
		for last > 0 && r[last] == "" {
			last--
		}
		for c := 0; c <= last; c++ {
			switch {
			case i == 0:
				b.Paint(visible.Bold, r[c])
			case c == 0:
				b.Paint(visible.Yellow, r[c])
			default:
				b.WriteString(r[c])
			}
			if c < last {
				b.WriteString(strings.Repeat(" ", max(0, width[c]+2-utf8.RuneCountInString(r[c]))))
			}
		}
		b.WriteString("\n")
	}
	return b
}

// problems reports each problem met while listing and, if there were any,
// makes the exit code 2: the listing is complete except for them.
func problems(env *cli.Env, probs []error) error {
	if len(probs) == 0 {
		return nil
	}
	corrupt := false
	for _, p := range probs {
		env.Problem(p)
		corrupt = corrupt || errors.Is(p, store.ErrCorrupt)
	}
	err := cli.Errorf(cli.ExitError, "%d problem(s) reading the store; everything else was listed", len(probs))
	if corrupt {
		return cli.WithHint(err, "run ctx-verify --fsck to check the whole store")
	}
	return err
}

func main() {
	os.Exit(cli.Run("ctx-log", &logCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
