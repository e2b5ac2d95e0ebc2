// Command ctx-grep searches the content of a store's packs: prompts, the
// model's answers and reasoning, tool calls' parameters and outputs,
// inputs and output files. It reads the packs of the store, or those named
// as arguments or on stdin, and writes one canonical JSON line per
// matching line and place,
//
//	{"agent","field","hash","index","line","matches","name","object","part","role","step","text","tool"}
//
// or with -l one {"hash"} per pack, with -c {"count","hash"}; --human
// prints them as git grep does. Each object is read once however many
// packs share it (lib/grep).
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/grep"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/packlog"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/visible"
)

type grepCmd struct {
	cli.Globals
	Pattern    string   `arg:"" help:"What to look for: an RE2 regular expression (Go's regexp syntax), or with -F a plain string." placeholder:"PATTERN"`
	Refs       []string `arg:"" optional:"" help:"Packs to search (default: the references on stdin when it is not a terminal, else every pack of the store)." placeholder:"REF"`
	Fixed      bool     `name:"fixed-strings" short:"F" help:"Match PATTERN as a plain string."`
	IgnoreCase bool     `name:"ignore-case" short:"i" help:"Match letters in either case."`
	Word       bool     `name:"word-regexp" short:"w" help:"Match whole words only."`
	In         []string `help:"Search only these places: prompt (system prompt and prompts), answer (llm_call outputs), reasoning, call (tool parameters), output (tool_call outputs), input (inputs), file (outputs). Comma-separated or repeated (default: all)." placeholder:"FIELD,…"`
	Model      string   `help:"Only packs whose model identifier is ID." placeholder:"ID"`
	Since      string   `help:"Only packs created at or after TIME: RFC 3339, a date (2026-02-10, UTC) or an age (36h, 7d, 2w)." placeholder:"TIME"`
	Until      string   `help:"Only packs created at or before TIME (same forms as --since)." placeholder:"TIME"`
	Session    string   `help:"Only packs that are snapshots of agent session ID (as ctx-show prints it)." placeholder:"ID"`
	Agent      string   `help:"Only the steps of subagent NAME (their output, reasoning and parameters)." placeholder:"NAME"`
	Tool       string   `help:"Only the steps that call tool NAME (their output, reasoning and parameters)." placeholder:"NAME"`
	List       bool     `name:"files-with-matches" short:"l" help:"Print only the packs that match, one line each." xor:"mode"`
	Count      bool     `short:"c" help:"Print the number of matching lines of each pack that matches." xor:"mode"`
	SkipBinary bool     `name:"skip-binary" short:"I" help:"Leave out binary objects (a NUL byte in their first 8 KiB) rather than report that they match."`
	Stats      bool     `short:"v" help:"Print a summary on stderr: objects searched, their bytes, packs (the default when stderr is a terminal). Not grep's -v: there is no inverted match."`
}

func (c *grepCmd) Description() string {
	return `Search the content of the packs: prompts, answers and reasoning, tool parameters and outputs,
inputs and output files. Lines are matched one at a time, as grep does. One JSON line per matching
line and place:
{"agent","field","hash","index","line","matches","name","object","part","role","step","text","tool"}
where hash is the pack, object the object searched (absent for tool parameters, which the manifest
holds), step/tool/agent, index/role (prompts) or index/name (inputs, outputs) and part say where in
the pack, line is the 1-based line number, text the line escaped as every rendering of pack content
is (controls and invisible characters written \u…, invalid UTF-8 \x…) and matches the [start,end]
byte offsets of the matches in text. A binary object that matches gives one line with "binary":true
and no text (-I leaves binary objects out). -l prints {"hash"} per pack that matches, -c
{"count","hash"}; both are input for the other ctx commands (ctx-grep -l needle | ctx-show).

Every object is read once, however many packs reference it, and its matches are reported for each
place that references it. The store holds content as it was packed: in a redacted pack a secret is
its mark, [REDACTED:rule:prefix], which a search can find; the secret itself is not there.

Each manifest read is kept, without its steps' metadata (which no search looks at, and which holds
most of an agent session's manifest), in the user's cache directory ($XDG_CACHE_HOME/ctx/grep, or
~/.cache/ctx/grep; CTX_GREP_CACHE=DIR moves it, CTX_GREP_CACHE=off disables it), named by the
manifest's digest and checksummed; later searches read it instead. It is safe to delete.

Without REF arguments, references are read from stdin when it is not a terminal (an empty stdin
searches every pack), else every finalized pack of the store is searched, newest first. --model,
--since and --until select packs as they do for ctx-log.

Exit status: 0 when a line matched, 1 when none did, 2 when a pack or object could not be read (the
rest is still searched), 3 for a bad pattern or flags.`
}

func (c *grepCmd) Run(env *cli.Env) error {
	m, err := grep.Compile(grep.Pattern{Expr: c.Pattern, Fixed: c.Fixed, IgnoreCase: c.IgnoreCase, Word: c.Word})
	if err != nil {
		return cli.WithCode(cli.ExitUsage, err)
	}
	fields, err := grep.ParseFields(splitList(c.In))
	if err != nil {
		return cli.Errorf(cli.ExitUsage, "--in: %w", err)
	}
	var filter packlog.Options
	filter.Model = c.Model
	if err := filter.SetRange(c.Since, c.Until, time.Now()); err != nil {
		return cli.WithCode(cli.ExitUsage, err)
	}
	var items []ref.Item
	if len(c.Refs) > 0 || !env.StdinIsTerminal() {
		if items, err = env.Refs(c.Refs); err != nil {
			return err
		}
	}
	s, err := env.Store()
	if err != nil {
		return err
	}
	packs, err := c.packs(env, s, items, filter)
	if err != nil {
		return err
	}
	opt := grep.Options{Fields: fields, Session: c.Session, Agent: c.Agent, Tool: c.Tool, SkipBinary: c.SkipBinary,
		CacheDir: grep.DefaultCacheDir()}
	switch {
	case c.List:
		opt.Mode = grep.ModeExists
	case c.Count:
		opt.Mode = grep.ModeCount
	}
	out := newPrinter(env, c, s)
	st, err := grep.Search(s, packs, m, opt, out.result)
	if err == nil {
		err = out.finish()
	}
	if err != nil {
		return err
	}
	if c.Stats || env.StderrIsTerminal() {
		env.Infof("searched %s objects (%s bytes) in %s pack(s): %s matching line(s)%s",
			manifest.Thousands(int64(st.Objects)), manifest.Thousands(st.Bytes), manifest.Thousands(int64(st.Packs)),
			manifest.Thousands(int64(st.Matches)), binaryNote(st.Binary))
	}
	if len(packs) == 0 {
		env.Infof("no packs to search")
	}
	if out.matched == 0 {
		return cli.Exit(cli.ExitFinding)
	}
	return nil
}

func binaryNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %s binary objects left out", manifest.Thousands(int64(n)))
}

// splitList splits comma-separated values of a repeated flag.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for f := range strings.SplitSeq(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// packs returns the packs to search, in order: the references given,
// each once, or the whole store newest first; either way those the
// filter selects. A pack that cannot be listed is reported and left out.
func (c *grepCmd) packs(env *cli.Env, s *store.Store, items []ref.Item, filter packlog.Options) ([]digest.Digest, error) {
	filtered := filter.Model != "" || !filter.Since.IsZero() || !filter.Until.IsZero()
	if len(items) == 0 {
		l, err := packlog.List(s, filter)
		if err != nil {
			return nil, err
		}
		for _, p := range l.Problems {
			env.Problem(p)
		}
		out := make([]digest.Digest, len(l.Entries))
		for i := range l.Entries {
			out[i] = l.Entries[i].Hash
		}
		return out, nil
	}
	var out []digest.Digest
	var entries []packlog.Entry
	for _, it := range items {
		d, err := ref.Resolve(s, it.Ref)
		if err != nil {
			if errors.Is(err, ref.ErrInvalid) {
				return nil, err
			}
			env.Problem(err)
			continue
		}
		if slices.Contains(out, d) {
			continue
		}
		out = append(out, d)
		if filtered {
			e, err := packlog.ReadOne(s, d)
			if err != nil {
				env.Problem(fmt.Errorf("pack %s: %w", d, err))
				continue
			}
			entries = append(entries, e)
		}
	}
	if !filtered {
		return out, nil
	}
	kept, probs := packlog.Select(s, entries, filter)
	for _, p := range probs {
		env.Problem(p)
	}
	out = out[:0]
	for i := range kept {
		out = append(out, kept[i].Hash)
	}
	return out, nil
}

// printer writes results as they come: JSON lines through a buffer
// flushed after each object's lines (so a failure never leaves half a
// line), or the --human rendering.
type printer struct {
	env     *cli.Env
	c       *grepCmd
	s       *store.Store
	w       *bufio.Writer
	line    []byte
	matched int // matching lines reported
	// -l: the packs already printed; -c: the count of each pack, in the
	// order first met.
	seen   map[digest.Digest]int
	order  []digest.Digest
	counts []int
}

func newPrinter(env *cli.Env, c *grepCmd, s *store.Store) *printer {
	return &printer{env: env, c: c, s: s, w: bufio.NewWriterSize(env.Stdout, 64<<10), seen: map[digest.Digest]int{}}
}

func (p *printer) result(r *grep.Result) error {
	if r.Err != nil {
		p.env.Problem(r.Err)
		return nil
	}
	p.matched += r.Count
	switch {
	case p.c.List:
		for _, pl := range r.Places {
			if _, ok := p.seen[pl.Pack]; !ok {
				p.seen[pl.Pack] = 0
				if err := p.pack(pl.Pack, -1); err != nil {
					return err
				}
			}
		}
		return p.flush()
	case p.c.Count:
		for _, pl := range r.Places {
			i, ok := p.seen[pl.Pack]
			if !ok {
				i = len(p.order)
				p.seen[pl.Pack] = i
				p.order = append(p.order, pl.Pack)
				p.counts = append(p.counts, 0)
			}
			p.counts[i] += r.Count
		}
		return nil
	}
	for i := range r.Places {
		pl := &r.Places[i]
		if r.Binary {
			if err := p.match(r, pl, nil); err != nil {
				return err
			}
		}
		for j := range r.Lines {
			if err := p.match(r, pl, &r.Lines[j]); err != nil {
				return err
			}
		}
	}
	return p.flush()
}

// finish writes what is only known at the end: the counts of -c.
func (p *printer) finish() error {
	for i, d := range p.order {
		if err := p.pack(d, p.counts[i]); err != nil {
			return err
		}
	}
	return p.flush()
}

// pack writes one line for pack d: with n >= 0, its count.
func (p *printer) pack(d digest.Digest, n int) error {
	if p.env.Human() {
		t := new(visible.Text)
		t.Paint(visible.Yellow, d.Short())
		if n >= 0 {
			t.Paint(visible.Cyan, ":")
			t.WriteString(strconv.Itoa(n))
		}
		t.WriteString("\n")
		_, err := io.WriteString(p.w, t.Render(p.env.Colour()))
		return err
	}
	b := []byte(`{`)
	if n >= 0 {
		b = append(strconv.AppendInt(append(b, `"count":`...), int64(n), 10), ',')
	}
	b = append(append(b, `"hash":"`...), d.String()...)
	return p.json(append(b, `"}`...))
}

func (p *printer) match(r *grep.Result, pl *grep.Place, l *grep.Line) error {
	if !p.env.Human() {
		p.line = grep.AppendJSON(p.line[:0], r, pl, l)
		return p.json(p.line)
	}
	t := new(visible.Text)
	t.Paint(visible.Yellow, pl.Pack.Short())
	t.Paint(visible.Cyan, ":")
	t.WriteString(where(pl))
	t.Paint(visible.Cyan, ":")
	if l == nil {
		t.WriteString("binary object matches\n")
	} else {
		text, spans := grep.Escaped(l)
		t.Paint(visible.Green, strconv.Itoa(l.Number))
		t.Paint(visible.Cyan, ":")
		at := 0
		for _, sp := range spans {
			t.WriteString(text[at:sp[0]])
			t.Paint(visible.Red, text[sp[0]:sp[1]])
			at = sp[1]
		}
		t.WriteString(text[at:])
		t.WriteString("\n")
	}
	_, err := io.WriteString(p.w, t.Render(p.env.Colour()))
	return err
}

// where names a place for --human: system_prompt, prompts[0],
// steps[3].output, steps[3](explorer).call, inputs[src/main.go],
// outputs[result.md], with [part] for a part; its strings escaped.
func where(pl *grep.Place) string {
	var b strings.Builder
	switch {
	case pl.Step >= 0:
		fmt.Fprintf(&b, "steps[%d]", pl.Step)
		if pl.Agent != "" {
			fmt.Fprintf(&b, "(%s)", visible.Escape(pl.Agent))
		}
		b.WriteString("." + pl.Field.String())
	case pl.Field == grep.Prompt && pl.Index < 0:
		b.WriteString("system_prompt")
	case pl.Field == grep.Prompt:
		fmt.Fprintf(&b, "prompts[%d]", pl.Index)
	case pl.Field == grep.Input:
		fmt.Fprintf(&b, "inputs[%s]", visible.Escape(pl.Name))
	default:
		fmt.Fprintf(&b, "outputs[%s]", visible.Escape(pl.Name))
	}
	if pl.Part >= 0 {
		fmt.Fprintf(&b, "[%d]", pl.Part)
	}
	return b.String()
}

// json buffers one JSON line, indented when stdout is a terminal.
func (p *printer) json(b []byte) error {
	if p.env.StdoutIsTerminal() {
		b = canon.Indent(b)
	}
	p.w.Write(b)
	return p.w.WriteByte('\n')
}

func (p *printer) flush() error {
	if err := p.w.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

func main() {
	os.Exit(cli.Run("ctx-grep", &grepCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
