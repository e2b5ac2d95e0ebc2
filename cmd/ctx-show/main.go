// Command ctx-show prints context packs. For each reference (arguments, or
// a stream of ctx output on stdin) it prints the manifest with its hash as
// canonical JSON, the pack in log form with content inlined (--resolve),
// a readable summary (--human), a self-contained HTML page (--html), or an
// ATIF trajectory (--atif, lib/atif).
// --blob REF writes one object's raw bytes; --checkout DIR writes the
// pack's outputs (--inputs: its inputs) as files under DIR and prints
// {"pack","dir","what","files":[{"name","path","hash","size"}],"skipped"}.
// Everything read is verified against its digest.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/atif"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/cost"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/htmlview"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/secrets/verdict"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/visible"
)

type showCmd struct {
	cli.Globals
	Refs    []string `arg:"" optional:"" help:"Packs to show: sha256:<hex>, <hex>, ctx://<hex>, a unique prefix (4+ hex digits), latest or a tag, with ^ or ~N for ancestors (default: read from stdin)." placeholder:"REF"`
	Resolve bool     `help:"Print the pack as an execution log with every content inlined."`
	Blob    string   `help:"Write the raw bytes of one object (a hash, prefix or pack reference) to stdout." placeholder:"REF"`
	HTML    bool     `name:"html" help:"Print the pack as one self-contained HTML page (no scripts, no network): header, prompts, timeline, inputs and outputs."`
	ATIF    bool     `name:"atif" help:"Print the pack as an ATIF trajectory (Agent Trajectory Interchange Format, ATIF-v1.7), as Harbor and other evaluation tools read it; what ATIF cannot hold is named on stderr. Its images are embedded (data: URLs), or with -o those it named by a path are written beside it."`
	Output  string   `short:"o" help:"Write the --html page or the --atif trajectory to FILE instead of stdout (- is stdout)." placeholder:"FILE"`

	Checkout string `help:"Write the pack's outputs as files under DIR, named as the pack names them (never outside DIR), and print what was written." placeholder:"DIR"`
	Inputs   bool   `help:"With --checkout: write the pack's inputs (those it holds whole) instead of its outputs."`
	Force    bool   `help:"With --checkout: replace files that exist with other content."`
	Prices   string `help:"With --human or --html: price usage with the price table in FILE (LiteLLM's model_prices_and_context_window.json shape; its models over the embedded table's)." placeholder:"FILE" type:"existingfile"`
}

// prices returns the price table: --prices over the embedded one, or
// the embedded one.
func (c *showCmd) prices() (*cost.Table, error) {
	if c.Prices == "" {
		return cost.Default(), nil
	}
	return cost.ReadFile(c.Prices)
}

func (c *showCmd) Description() string {
	return "Show context packs: the manifest, the resolved log, a readable summary, a self-contained HTML page, or one object's bytes."
}

func (c *showCmd) Run(env *cli.Env) error {
	s, err := env.Store()
	if err != nil {
		return err
	}
	if c.Output != "" && !c.HTML && !c.ATIF {
		return cli.Errorf(cli.ExitUsage, "-o writes the --html page or the --atif trajectory; give --html or --atif")
	}
	if c.Blob != "" {
		if len(c.Refs) > 0 || c.Resolve || c.Human || c.HTML || c.ATIF {
			return cli.Errorf(cli.ExitUsage, "--blob takes no other references and no --resolve, --human, --html or --atif")
		}
		return c.blob(env, s)
	}
	if (c.Inputs || c.Force) && c.Checkout == "" {
		return cli.Errorf(cli.ExitUsage, "--inputs and --force go with --checkout DIR")
	}
	if c.Checkout != "" {
		if c.Resolve || c.HTML || c.ATIF {
			return cli.Errorf(cli.ExitUsage, "--checkout writes files; give no --resolve, --html or --atif")
		}
		if err := checkoutDir(s, c.Checkout); err != nil {
			return err
		}
		it, err := env.Ref(firstOf(c.Refs), "check out")
		if err != nil {
			return err
		}
		if len(c.Refs) > 1 {
			return cli.Errorf(cli.ExitUsage, "--checkout writes one pack; %d were given", len(c.Refs))
		}
		return c.checkout(env, s, it.Ref)
	}
	if n := countTrue(c.Resolve, c.Human, c.HTML, c.ATIF); n > 1 {
		return cli.Errorf(cli.ExitUsage, "give one of --resolve, --human, --html and --atif")
	}
	items, err := env.Refs(c.Refs)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return cli.Errorf(cli.ExitUsage, "no pack reference given (as an argument or on stdin)")
	}
	if c.HTML && len(items) > 1 {
		return cli.Errorf(cli.ExitUsage, "--html shows one pack; %d were given", len(items))
	}
	if c.ATIF && c.Output != "" && c.Output != "-" && len(items) > 1 {
		return cli.Errorf(cli.ExitUsage, "-o writes one trajectory; %d packs were given", len(items))
	}
	for _, it := range items {
		if err := c.show(env, s, it.Ref); err != nil {
			return err
		}
	}
	return nil
}

func firstOf(refs []string) string {
	if len(refs) == 0 {
		return ""
	}
	return refs[0]
}

func (c *showCmd) show(env *cli.Env, s *store.Store, r string) error {
	m, err := ref.Load(s, r)
	if err != nil {
		return err
	}
	switch {
	case c.ATIF:
		l, err := execlog.FromManifest(s, m)
		if err != nil {
			return err
		}
		b, err := l.JSON()
		if err != nil {
			return err
		}
		toFile := c.Output != "" && c.Output != "-"
		var out []byte
		var media []atif.Media
		var warnings []string
		if toFile {
			// The images the trajectory named by a path go beside it.
			out, media, warnings, err = atif.ExportMedia(b, atif.Options{Pack: m.Hash.String()})
		} else {
			out, warnings, err = atif.Export(b, atif.Options{Pack: m.Hash.String()})
		}
		if err != nil {
			return fmt.Errorf("writing %s as ATIF: %w", m.Hash, err)
		}
		for _, w := range warnings {
			env.Warnf("%s: %s", m.Hash, w)
		}
		// A trajectory is made to leave the machine, as a page is.
		if err := warnSecrets(env, s, m, "trajectory"); err != nil {
			return err
		}
		if !toFile {
			return env.ResultCanonical(out)
		}
		if err := writeMedia(filepath.Dir(c.Output), media); err != nil {
			return err
		}
		return htmlview.WriteFile(c.Output, append(out, '\n'))
	case c.Resolve:
		l, err := execlog.FromManifest(s, m)
		if err != nil {
			return err
		}
		return env.ResultStream(l.WriteJSON)
	case c.HTML:
		prices, err := c.prices()
		if err != nil {
			return err
		}
		page, err := htmlview.Pack(m, s, htmlview.Options{Prices: prices})
		if err != nil {
			return err
		}
		if err := warnSecrets(env, s, m, "page"); err != nil {
			return err
		}
		return htmlview.Write(env.Stdout, c.Output, page)
	case env.Human():
		prices, err := c.prices()
		if err != nil {
			return err
		}
		text, err := human(s, m, prices)
		if err != nil {
			return err
		}
		return env.Text(text)
	}
	b, err := manifest.JSON(m)
	if err != nil {
		return err
	}
	return env.ResultCanonical(b)
}

// blobInMemory is the largest object checked before any byte is written;
// larger ones are streamed and checked at their end.
const blobInMemory = 64 << 20

func (c *showCmd) blob(env *cli.Env, s *store.Store) error {
	d, err := ref.ResolveObject(s, c.Blob)
	if err != nil {
		return err
	}
	size, err := s.Size(d)
	if err != nil {
		return err
	}
	var last lastByte
	if size <= blobInMemory {
		b, err := s.Get(d)
		if err != nil {
			return err
		}
		err = env.Raw(last.reader(bytes.NewReader(b)))
		return finishLine(env, err, &last)
	}
	r, err := s.Open(d)
	if err != nil {
		return err
	}
	defer r.Close()
	err = env.Raw(last.reader(r))
	return finishLine(env, err, &last)
}

// finishLine ends the last line of a blob written to a terminal, where the
// shell's prompt would otherwise follow it on the same line. Piped or
// redirected, the bytes are the object's, exactly.
func finishLine(env *cli.Env, err error, last *lastByte) error {
	if err != nil || !env.StdoutIsTerminal() || !last.seen || last.b == '\n' {
		return err
	}
	return env.Raw(strings.NewReader("\n"))
}

// lastByte remembers the last byte read through it.
type lastByte struct {
	b    byte
	seen bool
	r    io.Reader
}

func (l *lastByte) reader(r io.Reader) io.Reader { l.r = r; return l }

func (l *lastByte) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.b, l.seen = p[n-1], true
	}
	return n, err
}

// tokens writes the pack's token totals and what they cost, and both per
// model and per agent when there are several.
func tokens(b *strings.Builder, p *cost.Pack) {
	if !p.Tokens.IsZero() {
		fmt.Fprintf(b, "tokens   %s\n", p.Tokens.String())
	}
	if line := p.Line(); line != "" {
		fmt.Fprintf(b, "cost     %s\n", line)
	}
	tally := func(kind string, ts []cost.Tally) {
		if len(ts) < 2 {
			return
		}
		for _, t := range ts {
			name := cli.Escape(t.Name)
			if kind == "agent" && t.Name == "" {
				name = "main"
			}
			line := t.Tokens.String()
			if t.USD != nil {
				line += " · " + cost.Format(t.USD)
			}
			fmt.Fprintf(b, "         %s %s: %s\n", kind, name, line)
		}
	}
	tally("model", p.Models)
	tally("agent", p.Agents)
}

// human is the pack as ctx-show prints it for a person: its header and
// tokens, then its prompts, inputs, steps, outputs and environment.
func human(s *store.Store, m *manifest.Manifest, prices *cost.Table) (string, error) {
	pc := cost.Of(m, prices)
	var b strings.Builder
	if err := humanHeader(&b, s, m); err != nil {
		return "", err
	}
	tokens(&b, pc)
	if err := humanPrompts(&b, s, m); err != nil {
		return "", err
	}
	humanInputs(&b, m)
	fmt.Fprintf(&b, "\nsteps (%d)\n", len(m.Steps))
	for i, st := range m.Steps {
		if err := humanStep(&b, s, st, pc.Steps[i]); err != nil {
			return "", err
		}
	}
	humanOutputs(&b, m)
	humanEnvironment(&b, m.Environment)
	return b.String(), nil
}

// humanHeader writes the pack's hash, created time, parent, redaction, model and
// system prompt.
func humanHeader(b *strings.Builder, s *store.Store, m *manifest.Manifest) error {
	fmt.Fprintf(b, "pack     %s\n", m.Hash)
	fmt.Fprintf(b, "created  %s\n", m.Created)
	if !m.Parent.IsZero() {
		fmt.Fprintf(b, "parent   %s\n", m.Parent)
	}
	if r, ok := manifest.RedactionOf(m.Metadata); ok {
		fmt.Fprintf(b, "redacted %d mark(s) replace the secrets found by %s\n", r.Marks, cli.Escape(r.Scanner))
	}
	fmt.Fprintf(b, "model    %s", cli.Escape(m.Model.Identifier))
	if len(m.Model.Parameters) > 0 {
		fmt.Fprintf(b, " %s", m.Model.Parameters)
	}
	b.WriteString("\n")
	if !m.SystemPrompt.IsZero() {
		line, err := firstLine(s, m.SystemPrompt)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "system   %s\n", line)
	}
	return nil
}

// humanPrompts writes each prompt's role and first line.
func humanPrompts(b *strings.Builder, s *store.Store, m *manifest.Manifest) error {
	fmt.Fprintf(b, "\nprompts (%d)\n", len(m.Prompts))
	for i, p := range m.Prompts {
		if p.Parts != nil {
			line, err := partsLine(s, p.Parts)
			if err != nil {
				return err
			}
			fmt.Fprintf(b, "  [%d] %s: %s\n", i, cli.Escape(p.Role), line)
			continue
		}
		line, err := firstLine(s, p.ContentRef)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "  [%d] %s: %s\n", i, cli.Escape(p.Role), line)
	}
	return nil
}

// humanInputs writes each input file, its size and what the run saw of it.
func humanInputs(b *strings.Builder, m *manifest.Manifest) {
	fmt.Fprintf(b, "\ninputs (%d)\n", len(m.Inputs))
	w := 0
	for _, f := range m.Inputs {
		w = max(w, len(cli.Escape(f.Name)))
	}
	for _, f := range m.Inputs {
		fmt.Fprintf(b, "  %-*s  ", w, cli.Escape(f.Name))
		switch f.Seen {
		case manifest.SeenName:
			b.WriteString("seen by name only")
		case manifest.SeenPartial:
			fmt.Fprintf(b, "%s, lines %s", cli.Size(f.Size), ranges(f.Lines))
			if f.TotalLines > 0 {
				fmt.Fprintf(b, " of %d", f.TotalLines)
			}
		default:
			b.WriteString(cli.Size(f.Size))
		}
		if f.MediaType != "" {
			fmt.Fprintf(b, ", %s", cli.Escape(f.MediaType))
		}
		b.WriteString("\n")
	}
}

// humanStep writes a step's line (type, tool, agent, parameters, output,
// error), then a model turn's first lines, its reasoning's size and its
// usage and cost (sc, nil for a step without).
func humanStep(b *strings.Builder, s *store.Store, st manifest.Step, sc *cost.Step) error {
	tool := st.Tool
	if tool == "" {
		// A model turn names its model, when the import recorded it.
		tool = gjson.GetBytes(st.Metadata, "model").String()
	}
	if tool == "" {
		tool = "-"
	}
	fmt.Fprintf(b, "  [%d] %s %s", st.Index, cli.Escape(st.Type), cli.Escape(tool))
	if st.Agent != "" {
		fmt.Fprintf(b, " (agent %s", cli.Escape(st.Agent))
		if st.ParentStep != nil {
			fmt.Fprintf(b, ", started by [%d]", *st.ParentStep)
		}
		b.WriteString(")")
	} else if st.ParentStep != nil {
		fmt.Fprintf(b, " (started by [%d])", *st.ParentStep)
	}
	if len(st.Parameters) > 0 {
		fmt.Fprintf(b, " %s", cli.Escape(visible.Clip(string(st.Parameters), 100)))
	}
	switch {
	case st.OutputParts != nil:
		line, err := partsLine(s, st.OutputParts)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, " -> %s", line)
	case st.OutputRef.IsZero():
		b.WriteString(" -> no output")
	default:
		n, err := s.Size(st.OutputRef)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, " -> %s", cli.Size(n))
	}
	if st.Deterministic {
		b.WriteString(", deterministic")
	}
	if e := st.Error; e != nil {
		b.WriteString(", error")
		if e.ExitCode != nil {
			fmt.Fprintf(b, " (exit %d)", *e.ExitCode)
		}
		if e.Message != "" {
			fmt.Fprintf(b, ": %s", cli.Escape(visible.Clip(e.Message, 80)))
		}
	}
	b.WriteString("\n")
	if st.Type == "llm_call" && !st.OutputRef.IsZero() {
		// What the model said: its answer's first lines.
		lines, err := firstLines(s, st.OutputRef, 3)
		if err != nil {
			return err
		}
		for _, l := range lines {
			fmt.Fprintf(b, "      > %s\n", l)
		}
	}
	if !st.ReasoningRef.IsZero() {
		n, err := s.Size(st.ReasoningRef)
		if err != nil {
			return err
		}
		if n > 0 {
			fmt.Fprintf(b, "      reasoning %s\n", cli.Size(n))
		}
	}
	if u := st.Usage; u != nil {
		b.WriteString("      usage")
		for _, f := range u.Fields() {
			if *f.Value != nil {
				fmt.Fprintf(b, " %s %d", strings.TrimSuffix(f.Name, "_tokens"), **f.Value)
			}
		}
		if sc != nil && sc.USD() != nil {
			b.WriteString(" · " + cost.Format(sc.USD()))
		}
		b.WriteString("\n")
	}
	return nil
}

// humanOutputs writes each output, its size and what the run said of it.
func humanOutputs(b *strings.Builder, m *manifest.Manifest) {
	fmt.Fprintf(b, "\noutputs (%d)\n", len(m.Outputs))
	w := 0
	for _, o := range m.Outputs {
		w = max(w, len(cli.Escape(o.Name)))
	}
	for _, o := range m.Outputs {
		fmt.Fprintf(b, "  %-*s  %s", w, cli.Escape(o.Name), cli.Size(o.Size))
		if o.MediaType != "" {
			fmt.Fprintf(b, ", %s", cli.Escape(o.MediaType))
		}
		if o.Confidence != "" {
			fmt.Fprintf(b, ", confidence %s", o.Confidence)
		}
		if o.Notes != "" {
			fmt.Fprintf(b, ", notes: %s", cli.Escape(visible.Clip(o.Notes, 80)))
		}
		b.WriteString("\n")
	}
}

// humanEnvironment writes where the run happened, when it was recorded.
func humanEnvironment(b *strings.Builder, env manifest.Environment) {
	if env.OS != "" || env.Runtime != "" || len(env.ToolVersions) > 0 {
		b.WriteString("\nenvironment\n")
		if env.OS != "" {
			fmt.Fprintf(b, "  os       %s\n", cli.Escape(env.OS))
		}
		if env.Runtime != "" {
			fmt.Fprintf(b, "  runtime  %s\n", cli.Escape(env.Runtime))
		}
		for _, k := range slices.Sorted(maps.Keys(env.ToolVersions)) {
			fmt.Fprintf(b, "  tool     %s %s\n", cli.Escape(k), cli.Escape(env.ToolVersions[k]))
		}
	}
}

// firstLine returns the first line of an object's text, clipped.
func firstLine(s *store.Store, d digest.Digest) (string, error) {
	b, err := s.Get(d)
	if err != nil {
		return "", err
	}
	text := string(b)
	line, rest, _ := strings.Cut(text, "\n")
	line = cli.Escape(visible.Clip(line, 100))
	if strings.TrimSpace(rest) != "" {
		line += " …"
	}
	return line, nil
}

// firstLines returns the first n lines of an object's text, escaped
// (visible.FirstLines).
func firstLines(s *store.Store, d digest.Digest, n int) ([]string, error) {
	b, err := s.Get(d)
	if err != nil {
		return nil, err
	}
	return visible.FirstLines(string(b), n, 100), nil
}

// partsLine describes multimodal content: each part's type, media type
// and size, and the first line of a text part.
func partsLine(s *store.Store, parts []manifest.Part) (string, error) {
	var items []string
	for _, p := range parts {
		item := "[" + cli.Escape(p.Type)
		if p.MediaType != "" {
			item += " " + cli.Escape(p.MediaType)
		}
		item += " " + cli.Size(p.Size) + "]"
		if p.Type == manifest.PartText {
			line, err := firstLine(s, p.ContentRef)
			if err != nil {
				return "", err
			}
			item += " " + line
		}
		items = append(items, item)
	}
	return strings.Join(items, " "), nil
}

// ranges writes line ranges as "1-20,41-45".
func ranges(lines [][2]int64) string {
	var parts []string
	for _, r := range lines {
		if r[0] == r[1] {
			parts = append(parts, fmt.Sprint(r[0]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", r[0], r[1]))
		}
	}
	return strings.Join(parts, ",")
}

// warnSecrets says on stderr how many secrets gitleaks' rules find in the
// pack an HTML page or an ATIF trajectory shows (either embeds its
// content), and where.
// ctx-redact --check scans, so that ctx-show does not link the scanner.
func warnSecrets(env *cli.Env, s *store.Store, m *manifest.Manifest, what string) error {
	bin, err := cli.Tool("ctx-redact")
	if err != nil {
		env.Warnf("the %s was not checked for secrets: ctx-redact is not installed beside ctx-show or on PATH", what)
		return nil
	}
	if verdict.Open(verdict.DefaultCacheDir(), verdict.Version(nil)).PackClean(m.Hash) {
		return nil
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "--check", "--store", s.Root(), m.Hash.String())
	cmd.Stdout, cmd.Stderr = &out, env.Stderr
	err = cli.RunTool(cmd)
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == cli.ExitFinding) {
		return fmt.Errorf("checking the %s for secrets with %s: %v", what, bin, err)
	}
	lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	if len(out.Bytes()) == 0 {
		return nil
	}
	env.Warnf("the %s shows %d secret(s) that gitleaks' rules find; share the %s of a redacted copy (ctx-redact %s) instead", what, len(lines), what, m.Hash)
	for _, l := range lines {
		f := gjson.ParseBytes(l)
		where := f.Get("path").String()
		if n := f.Get("line").Int(); n > 0 {
			where += fmt.Sprintf(" line %d", n)
		}
		env.Warnf("secret: %s at %s", f.Get("rule").String(), where)
	}
	return nil
}

func main() {
	os.Exit(cli.Run("ctx-show", &showCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
