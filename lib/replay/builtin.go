package replay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// BuiltinVersion is the version of the built-in executors' output contract
// (see the package documentation), compared with recorded tool versions.
const BuiltinVersion = "1.0"

// Builtin is a built-in executor: a file tool confined to the workspace.
type Builtin struct {
	name     string
	defaults map[string]jsontext.Value
	run      func(ctx context.Context, root *os.Root, p *Params, out io.Writer) error
}

// Version returns BuiltinVersion.
func (b *Builtin) Version() string { return BuiltinVersion }

// Name returns the built-in's own name (read_file for the alias Read).
func (b *Builtin) Name() string { return b.name }

// Run executes the built-in on call's parameters inside its workspace.
func (b *Builtin) Run(ctx context.Context, call *Call, out io.Writer) error {
	p, err := parseParams(b.name, call.Parameters, b.defaults)
	if err != nil {
		return err
	}
	return b.run(ctx, call.Workspace.Root, p, out)
}

var builtins = map[string]*Builtin{
	"read_file": {name: "read_file", run: readFile},
	"list_dir":  {name: "list_dir", run: listDir},
	"glob":      {name: "glob", run: globFiles},
	"grep":      {name: "grep", run: grep},
}

// Aliases maps tool names that agents use to built-in names, for tools
// whose output is the raw one.
var Aliases = map[string]string{
	"list_directory": "list_dir",
}

// aliasDefaults are the defaults an alias changes, so that a step recorded
// with the agent's defaults replays with them.
var aliasDefaults = map[string]map[string]jsontext.Value{}

// Lookup returns the executor for a tool name: the user's (tools) first,
// then a built-in, then an agent's own tool rendered as the agent renders
// it (agents: Options.Agents), then a built-in through Aliases; nil if
// none.
func Lookup(tool string, tools, agents map[string]Executor) Executor {
	if ex, ok := tools[tool]; ok {
		return ex
	}
	if b, ok := builtins[tool]; ok {
		return b
	}
	if a, ok := agents[tool]; ok {
		return a
	}
	if name, ok := Aliases[tool]; ok {
		b := *builtins[name]
		b.defaults = aliasDefaults[tool]
		return &b
	}
	return nil
}

// Params reads a step's parameters; every member must be used, so that a
// parameter a built-in does not understand fails the step.
type Params struct {
	tool string
	m    map[string]jsontext.Value
	used map[string]bool
}

func parseParams(tool string, v jsontext.Value, defaults map[string]jsontext.Value) (*Params, error) {
	p := &Params{tool: tool, m: map[string]jsontext.Value{}, used: map[string]bool{}}
	if len(v) > 0 {
		if v.Kind() != '{' {
			return nil, fmt.Errorf("%s: parameters are %s, not an object", tool, kindName(v.Kind()))
		}
		if err := json.Unmarshal(v, &p.m); err != nil {
			return nil, fmt.Errorf("%s: reading parameters: %w", tool, err)
		}
	}
	for k, d := range defaults {
		if _, ok := p.m[k]; !ok {
			p.m[k] = d
		}
	}
	return p, nil
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '[':
		return "an array"
	}
	return "not JSON"
}

// Get reads parameter key into into (JSON); want names what it must be
// in the error when it is not. It reports whether key is present.
func (p *Params) Get(key string, into any, want string) (bool, error) {
	v, ok := p.m[key]
	if !ok {
		return false, nil
	}
	p.used[key] = true
	if err := json.Unmarshal(v, into); err != nil {
		return false, fmt.Errorf("%s: parameter %s: want %s, got %s", p.tool, key, want, v)
	}
	return true, nil
}

// Path returns the first of keys that is present (the spellings of one
// parameter); present spellings must agree.
func (p *Params) Path(keys ...string) (string, bool, error) {
	var val, from string
	for _, k := range keys {
		var s string
		ok, err := p.Get(k, &s, "a string")
		if err != nil || !ok {
			if err != nil {
				return "", false, err
			}
			continue
		}
		if from != "" && s != val {
			return "", false, fmt.Errorf("%s: parameters %s and %s disagree", p.tool, from, k)
		}
		val, from = s, k
	}
	return val, from != "", nil
}

// Str reads a string parameter; it reports whether key is present.
func (p *Params) Str(key string) (string, bool, error) {
	var s string
	ok, err := p.Get(key, &s, "a string")
	return s, ok, err
}

// Count reads a non-negative integer parameter; it reports whether key
// is present.
func (p *Params) Count(key string) (int, bool, error) {
	var n int
	ok, err := p.Get(key, &n, "a non-negative integer")
	if err == nil && n < 0 {
		err = fmt.Errorf("%s: parameter %s: want a non-negative integer, got %d", p.tool, key, n)
	}
	return n, ok, err
}

// Flag reads a boolean parameter, def when absent.
func (p *Params) Flag(key string, def bool) (bool, error) {
	b := def
	_, err := p.Get(key, &b, "a boolean")
	return b, err
}

// List reads an array of strings parameter, nil when absent.
func (p *Params) List(key string) ([]string, error) {
	var l []string
	_, err := p.Get(key, &l, "an array of strings")
	return l, err
}

// Finish fails on parameters nothing asked for.
func (p *Params) Finish() error {
	var extra []string
	for k := range p.m {
		if !p.used[k] {
			extra = append(extra, strconv.Quote(k))
		}
	}
	if len(extra) == 0 {
		return nil
	}
	slices.Sort(extra)
	return fmt.Errorf("%s: unsupported parameter %s; give an executor with --tool to replay this step", p.tool, strings.Join(extra, ", "))
}

// openFile opens a regular file in root; FIFOs and devices are refused
// before they could block a read.
func openFile(root *os.Root, name string) (*os.File, error) {
	fi, err := root.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, UnwrapPath(err))
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory", name)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, UnwrapPath(err))
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	return f, nil
}

func readFile(ctx context.Context, root *os.Root, p *Params, out io.Writer) error {
	raw, ok, err := p.Path("path", "file_path", "filename")
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("read_file: no path parameter (path, file_path or filename)")
	}
	offset, hasOffset, err := p.Count("offset")
	if err != nil {
		return err
	}
	limit, hasLimit, err := p.Count("limit")
	if err != nil {
		return err
	}
	if err := p.Finish(); err != nil {
		return err
	}
	name, err := Resolve(raw)
	if err != nil {
		return fmt.Errorf("read_file: %w", err)
	}
	f, err := openFile(root, name)
	if err != nil {
		return fmt.Errorf("read_file: %w", err)
	}
	defer f.Close()
	if !hasOffset && !hasLimit {
		if _, err := io.Copy(out, f); err != nil {
			return fmt.Errorf("read_file: reading %s: %w", name, UnwrapPath(err))
		}
		return nil
	}
	first := max(offset, 1)
	w := &errWriter{w: out}
	r := bufio.NewReader(f)
	for n := 1; !hasLimit || n < first+limit; n++ {
		line, err := r.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			if n >= first {
				w.Write(line)
			}
			line, err = r.ReadSlice('\n')
		}
		if n >= first {
			w.Write(line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read_file: reading %s: %w", name, UnwrapPath(err))
		}
	}
	return w.err
}

// errWriter keeps the first write error, so a loop can check it once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	var n int
	n, e.err = e.w.Write(p)
	return n, e.err
}

func listDir(ctx context.Context, root *os.Root, p *Params, out io.Writer) error {
	raw, ok, err := p.Path("path", "dir_path", "directory")
	if err != nil {
		return err
	}
	if !ok {
		raw = "."
	}
	ignore, err := p.List("ignore")
	if err != nil {
		return err
	}
	if err := p.Finish(); err != nil {
		return err
	}
	for _, pat := range ignore {
		if _, err := path.Match(pat, ""); err != nil {
			return fmt.Errorf("list_dir: ignore pattern %q: %w", pat, err)
		}
	}
	name, err := Resolve(raw)
	if err != nil {
		return fmt.Errorf("list_dir: %w", err)
	}
	entries, err := fs.ReadDir(root.FS(), name)
	if err != nil {
		return fmt.Errorf("list_dir: %s: %w", name, UnwrapPath(err))
	}
	var b bytes.Buffer
entries:
	for _, e := range entries {
		for _, pat := range ignore {
			if ok, _ := path.Match(pat, e.Name()); ok {
				continue entries
			}
		}
		b.WriteString(e.Name())
		if e.IsDir() {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	_, err = out.Write(b.Bytes())
	return err
}

func globFiles(ctx context.Context, root *os.Root, p *Params, out io.Writer) error {
	pattern, ok, err := p.Str("pattern")
	if err != nil {
		return err
	}
	if !ok || pattern == "" {
		return errors.New("glob: no pattern parameter")
	}
	raw, ok, err := p.Path("path")
	if err != nil {
		return err
	}
	if !ok {
		raw = "."
	}
	if err := p.Finish(); err != nil {
		return err
	}
	base, err := Resolve(raw)
	if err != nil {
		return fmt.Errorf("glob: %w", err)
	}
	if _, err := Resolve(pattern); err != nil {
		return fmt.Errorf("glob: pattern: %w", err)
	}
	m, err := CompileGlob(pattern)
	if err != nil {
		return fmt.Errorf("glob: %w", err)
	}
	var found []string
	err = Walk(ctx, root, base, func(rel string, d fs.DirEntry) error {
		if !d.IsDir() && m.Match(rel) {
			found = append(found, path.Join(base, rel))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("glob: %w", err)
	}
	slices.Sort(found)
	var b bytes.Buffer
	for _, f := range found {
		b.WriteString(f)
		b.WriteByte('\n')
	}
	_, err = out.Write(b.Bytes())
	return err
}

// Walk calls fn for every entry under base (in lexical order, as
// fs.WalkDir does) with its path relative to base. It skips .git
// directories and does not follow symbolic links.
func Walk(ctx context.Context, root *os.Root, base string, fn func(rel string, d fs.DirEntry) error) error {
	fsys := root.FS()
	return fs.WalkDir(fsys, base, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", name, UnwrapPath(err))
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if name == base {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		rel := name
		if base != "." {
			rel = strings.TrimPrefix(name, base+"/")
		}
		return fn(rel, d)
	})
}

func grep(ctx context.Context, root *os.Root, p *Params, out io.Writer) error {
	pattern, ok, err := p.Str("pattern")
	if err != nil {
		return err
	}
	if !ok || pattern == "" {
		return errors.New("grep: no pattern parameter")
	}
	raw, ok, err := p.Path("path")
	if err != nil {
		return err
	}
	if !ok {
		raw = "."
	}
	fileGlob, _, err := p.Str("glob")
	if err != nil {
		return err
	}
	mode, _, err := p.Str("output_mode")
	if err != nil {
		return err
	}
	icase, err := p.Flag("-i", false)
	if err != nil {
		return err
	}
	numbers, err := p.Flag("-n", true)
	if err != nil {
		return err
	}
	headLimit, hasHead, err := p.Count("head_limit")
	if err != nil {
		return err
	}
	if err := p.Finish(); err != nil {
		return err
	}
	switch mode {
	case "":
		mode = "content"
	case "content", "files_with_matches", "count":
	default:
		return fmt.Errorf("grep: output_mode %q is not content, files_with_matches or count", mode)
	}
	if icase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return fmt.Errorf("grep: pattern: %w", err)
	}
	var filter *Glob
	if fileGlob != "" {
		if filter, err = CompileGlob(fileGlob); err != nil {
			return fmt.Errorf("grep: glob: %w", err)
		}
	}
	base, err := Resolve(raw)
	if err != nil {
		return fmt.Errorf("grep: %w", err)
	}
	fi, err := root.Stat(base)
	if err != nil {
		return fmt.Errorf("grep: %s: %w", base, UnwrapPath(err))
	}
	var files []string
	if !fi.IsDir() {
		files = []string{base}
	} else {
		err = Walk(ctx, root, base, func(rel string, d fs.DirEntry) error {
			if !d.Type().IsRegular() {
				return nil
			}
			if filter != nil {
				subject := rel
				if !strings.Contains(fileGlob, "/") {
					subject = path.Base(rel)
				}
				if !filter.Match(subject) {
					return nil
				}
			}
			files = append(files, path.Join(base, rel))
			return nil
		})
		if err != nil {
			return fmt.Errorf("grep: %w", err)
		}
		slices.Sort(files)
	}
	var b bytes.Buffer
	lines := 0
	emit := func(format string, args ...any) bool {
		if hasHead && lines >= headLimit {
			return false
		}
		fmt.Fprintf(&b, format, args...)
		lines++
		return true
	}
files:
	for _, name := range files {
		data, err := ReadRegular(root, name)
		if err != nil {
			return fmt.Errorf("grep: %w", err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		n := 0
		for i, line := range SplitLines(data) {
			if !re.Match(line) {
				continue
			}
			n++
			switch mode {
			case "content":
				if numbers {
					if !emit("%s:%d:%s\n", name, i+1, line) {
						break files
					}
				} else if !emit("%s:%s\n", name, line) {
					break files
				}
			case "files_with_matches":
				emit("%s\n", name)
				continue files
			}
		}
		if mode == "count" && n > 0 {
			emit("%s:%d\n", name, n)
		}
	}
	_, err = out.Write(b.Bytes())
	return err
}

// ReadRegular reads name, a regular file in root.
func ReadRegular(root *os.Root, name string) ([]byte, error) {
	f, err := openFile(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, UnwrapPath(err))
	}
	return b, nil
}

// SplitLines splits data into lines without their "\n"; a final line
// without one counts, an empty tail after the last "\n" does not.
func SplitLines(data []byte) [][]byte {
	lines := bytes.Split(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}
