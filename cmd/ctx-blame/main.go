// Command ctx-blame says, for each line of each file it is given, which
// recorded agent step wrote it: it reads the store's packs (their edit
// steps and the files their sessions saw) and the files, from the work
// tree or from a git revision, and writes one canonical JSON line per
// run of lines with one attribution,
//
//	{"file","start_line","end_line","by", "pack","uri","step","tool",
//	 "session","model","agent","prompt","timestamp","moved","reindented"}
//
// (by is "agent", "mixed" or "unknown"; the origin fields are left out of
// unknown lines). --human prints the lines as git blame does; --html a
// page;
// --agent-trace prints an Agent Trace record; --trailers prints the
// Ctx-Pack: trailers of the packs whose edits the index (the staged
// changes) holds.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-tools/ctx/lib/blame"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/git"
	"github.com/ctx-tools/ctx/lib/htmlview"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/store"
)

type blameCmd struct {
	cli.Globals
	Files      []string `arg:"" optional:"" help:"Files to blame (paths in the work tree)." placeholder:"FILE"`
	Rev        string   `help:"Blame the files as they are at git revision REV instead of in the work tree." placeholder:"REV"`
	Pack       []string `help:"Only the edits of these packs (repeatable; default: every pack in the store)." placeholder:"REF"`
	AgentTrace bool     `name:"agent-trace" help:"Print one Agent Trace 0.1.0 record for the files instead of line ranges."`
	HTML       bool     `name:"html" help:"Print a self-contained HTML page of the files' lines and who wrote them (no scripts, no network)."`
	Output     string   `short:"o" help:"With --html: write the page to FILE (whole or not at all) instead of stdout." placeholder:"FILE"`
	Trailers   bool     `help:"Print a 'Ctx-Pack: ctx://<hash>' trailer line for each pack whose edits are in the staged changes (for a prepare-commit-msg hook); takes no files."`
}

func (c *blameCmd) Description() string {
	return `Say which recorded agent step wrote each line of each FILE.

The edits the store's packs recorded (Write, Edit, MultiEdit, apply_patch, write_file, edit_file) are
applied in time order, from the content each session first saw of a file, and the file as it is now
is aligned with the result, as git blame walks commits. A line is "agent" when a recorded edit wrote
it as it is (also when it was re-indented since, "reindented": true, or moved within the file or to
another one, "moved": true), "mixed" when an agent wrote it and a person changed part of it since,
"unknown" when no recorded edit wrote it (a person, or a session never packed).

Output: one JSON line per run of lines with one attribution (see ctx-blame's package comment for the
fields); --human prints each line as git blame does. An index of the store by file, made from each
pack once, is kept in the user's cache directory ($XDG_CACHE_HOME/ctx/blame; CTX_BLAME_CACHE=DIR
moves it, =off disables it), so that a file's blame reads only that file's history.

Exit status: 0 when the files were read, 2 when one cannot be (the others are still blamed).`
}

func (c *blameCmd) Run(env *cli.Env) error {
	if c.Trailers && (len(c.Files) > 0 || c.Rev != "" || c.AgentTrace) {
		return cli.Errorf(cli.ExitUsage, "--trailers reads the staged changes; it takes no files, --rev or --agent-trace")
	}
	if c.Output != "" && !c.HTML {
		return cli.Errorf(cli.ExitUsage, "-o names the --html page's file; give --html")
	}
	if c.HTML && (c.AgentTrace || c.Human) {
		return cli.Errorf(cli.ExitUsage, "give one of --html, --agent-trace and --human")
	}
	if !c.Trailers && len(c.Files) == 0 {
		return cli.Errorf(cli.ExitUsage, "name the files to blame, e.g. ctx-blame src/main.go")
	}
	s, err := env.Store()
	if err != nil {
		return err
	}
	ix, err := c.index(s)
	if err != nil {
		return err
	}
	repo, repoErr := git.Open(".")
	if c.Trailers {
		if repoErr != nil {
			return cli.WithCode(cli.ExitError, repoErr)
		}
		return trailers(env, ix, repo)
	}
	if c.Rev != "" && repoErr != nil {
		return cli.WithCode(cli.ExitError, fmt.Errorf("--rev %s: %w", c.Rev, repoErr))
	}
	var files []blamed
	for _, f := range c.Files {
		b, err := c.blame(ix, repo, f)
		if err != nil {
			env.Problem(cli.WithCode(cli.ExitError, err))
			continue
		}
		files = append(files, b)
	}
	switch {
	case c.HTML:
		in := make([]htmlview.BlameFile, len(files))
		for i, f := range files {
			in[i] = htmlview.BlameFile{Path: f.name, Text: f.text, Lines: f.lines}
		}
		page, err := htmlview.Blame(in)
		if err != nil {
			return err
		}
		if err := htmlview.Write(env.Stdout, c.Output, page); err != nil {
			return cli.WithCode(cli.ExitError, err)
		}
	case c.AgentTrace:
		rev := ""
		if repo != nil {
			rev = repo.Head()
			if c.Rev != "" {
				rev, _ = repo.Commit(c.Rev)
			}
		}
		if err := env.Result(agentTrace(files, rev)); err != nil {
			return err
		}
	case env.Human():
		if err := env.Text(human(files)); err != nil {
			return err
		}
	default:
		for _, f := range files {
			for _, r := range blame.Ranges(f.name, f.lines) {
				if err := env.Result(r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// index reads the edits of the packs named by --pack, or of every pack.
func (c *blameCmd) index(s *store.Store) (*blame.Index, error) {
	if len(c.Pack) == 0 {
		return blame.Open(s)
	}
	var ps []digest.Digest
	for _, p := range c.Pack {
		d, err := ref.Resolve(s, p)
		if err != nil {
			return nil, err
		}
		ps = append(ps, d)
	}
	return blame.OpenPacks(s, ps)
}

// blamed is one file's attribution.
type blamed struct {
	name  string // relative to the work tree's root (or as given, outside one)
	text  []string
	lines []blame.Line
}

func (c *blameCmd) blame(ix *blame.Index, repo *git.Repo, file string) (blamed, error) {
	name := filepath.ToSlash(filepath.Clean(file))
	var names []string
	var content []byte
	var err error
	if repo != nil {
		rel, rerr := repo.Rel(file)
		if rerr != nil {
			if c.Rev != "" {
				return blamed{}, rerr
			}
		} else {
			name = rel
			names = repo.Names(c.Rev, rel)
		}
	}
	if c.Rev != "" {
		content, err = repo.Show(c.Rev, name)
		if err != nil {
			return blamed{}, fmt.Errorf("%s at %s: %w", file, c.Rev, err)
		}
	} else {
		content, err = readFile(file)
		if err != nil {
			return blamed{}, err
		}
	}
	var past *blame.Past
	if repo != nil {
		past = blame.GitPast(repo, c.Rev, name, content)
	}
	lines, err := ix.Blame(name, content, past, names...)
	if err != nil {
		return blamed{}, err
	}
	return blamed{name: name, text: blame.Lines(content), lines: lines}, nil
}

// maxFile bounds the size of a file ctx-blame reads.
const maxFile = 64 << 20

func readFile(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if fi.Size() > maxFile {
		return nil, fmt.Errorf("%s is larger than %d MiB", name, maxFile>>20)
	}
	return os.ReadFile(name)
}

// human renders the files as git blame does: pack, step, tool, model and
// time, line number, line.
func human(files []blamed) string {
	var b strings.Builder
	for _, f := range files {
		width := len(fmt.Sprint(len(f.lines)))
		for i, l := range f.lines {
			who := fmt.Sprintf("%-12s %5s %-10s", "unknown", "", "")
			if o := l.Origin; o != nil {
				mark := " "
				switch {
				case l.By == blame.ByMixed:
					mark = "~"
				case l.Moved:
					mark = ">"
				}
				who = fmt.Sprintf("%-12s%s%5s %-10s", strings.TrimPrefix(o.Pack, "sha256:")[:12], mark, fmt.Sprintf("#%d", o.Step), trunc(o.Tool, 10))
				who += fmt.Sprintf(" (%s %s", trunc(o.Model, 24), shortTime(o.Timestamp))
			} else {
				who += fmt.Sprintf(" (%-24s %-16s", "", "")
			}
			fmt.Fprintf(&b, "%s %*d) %s\n", cli.Escape(who), width, i+1, cli.Escape(f.text[i]))
		}
	}
	return b.String()
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return fmt.Sprintf("%-*s", n, s)
	}
	return s[:n]
}

func shortTime(t string) string {
	if len(t) >= 16 {
		return strings.Replace(t[:16], "T", " ", 1)
	}
	return fmt.Sprintf("%-16s", t)
}

// trailers prints the Ctx-Pack trailers of the packs whose edits wrote
// lines the index adds, most lines first.
func trailers(env *cli.Env, ix *blame.Index, repo *git.Repo) error {
	added, err := repo.StagedAdded()
	if err != nil {
		return cli.WithCode(cli.ExitError, err)
	}
	counts, err := ix.AddedPacks(repo, added, nil)
	if err != nil {
		return cli.WithCode(cli.ExitError, err)
	}
	var b strings.Builder
	for _, p := range blame.SortedPacks(counts) {
		d, err := digest.Parse(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "Ctx-Pack: %s\n", d.URI())
	}
	return env.Text(b.String())
}

// agentTrace is the Agent Trace record of the files at rev, stamped with
// SOURCE_DATE_EPOCH when it is set (for reproducible records) and the
// current time otherwise.
func agentTrace(files []blamed, rev string) blame.TraceRecord {
	in := make([]blame.TraceInput, len(files))
	for i, f := range files {
		in[i] = blame.TraceInput{Path: f.name, Text: f.text, Lines: f.lines}
	}
	now := time.Now().UTC()
	if v, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		now = time.Unix(v, 0).UTC()
	}
	return blame.AgentTrace(in, rev, now.Format(time.RFC3339), cli.Version)
}

func main() {
	os.Exit(cli.Run("ctx-blame", &blameCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
