package execlog

import (
	"cmp"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Log is a parsed, validated execution log.
type Log struct {
	Created      string
	Parent       digest.Digest
	Model        manifest.Model
	SystemPrompt *Content
	Prompts      []Prompt
	Inputs       []File
	Steps        []Step
	Outputs      []Output
	Environment  manifest.Environment
	Metadata     jsontext.Value

	// Warnings are problems that did not stop parsing (a defaulted created
	// time, for instance).
	Warnings []string

	// Progress, if set, is called while Pack stores content, with the
	// number of content objects stored so far and in all, at most every
	// 100 ms and once at the end; never from two goroutines at once.
	Progress func(done, total int)
}

// Prompt is a prompt message.
type Prompt struct {
	Role    string
	Content Content
}

// File is a named input.
type File struct {
	Name    string
	Content Content
	size    int64 // the size the log states, or -1
}

// Output is a named artifact of the run.
type Output struct {
	Name       string
	Content    Content
	Confidence string
	Notes      string
	size       int64
}

// Step is one recorded action; Output is nil when none was recorded.
type Step struct {
	Index         int
	Type          string
	Tool          string
	Parameters    jsontext.Value
	Output        *Content
	Deterministic bool
	Timestamp     string
	Metadata      jsontext.Value
}

// Options tune Parse.
type Options struct {
	// Dir is the directory "path" content is relative to: the log file's
	// directory, or the working directory for stdin.
	Dir string
	// SourceDateEpoch is the value of $SOURCE_DATE_EPOCH, used for created
	// when the log has neither created nor step timestamps.
	SourceDateEpoch string
}

// Problem is one thing wrong with a log.
type Problem struct {
	Path   canon.Path
	Line   int
	Column int
	Msg    string
}

func (p Problem) Error() string {
	s := p.Msg
	if len(p.Path) > 0 {
		s = p.Path.String() + ": " + s
	}
	if p.Line > 0 {
		s = fmt.Sprintf("%d:%d: %s", p.Line, p.Column, s)
	}
	return s
}

// Problems is every problem found in a log, in input order.
type Problems []Problem

func (ps Problems) Error() string {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "\n")
}

// Step types a log may record.
var stepTypes = []string{manifest.ToolCall, manifest.LLMCall}

// Parse validates data as an execution log. On failure the error is
// Problems, listing everything found. The returned Log aliases data, which
// must not change until the Log is packed.
func Parse(data []byte, opts Options) (*Log, error) {
	if err := canon.Check(data); err != nil {
		var ce *canon.Error
		if errors.As(err, &ce) {
			return nil, Problems{{Path: ce.Path, Line: ce.Line, Column: ce.Column, Msg: ce.Msg}}
		}
		return nil, Problems{{Msg: err.Error()}}
	}
	root, err := parseTree(data)
	if err != nil {
		return nil, Problems{{Msg: err.Error()}}
	}
	p := &parser{data: data, opts: opts}
	l := p.log(root)
	if len(p.probs) > 0 {
		// Report in the order of the input, as a compiler does.
		slices.SortStableFunc(p.probs, func(a, b Problem) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
		})
		return nil, p.probs
	}
	l.Warnings = p.warnings
	return l, nil
}

type parser struct {
	data     []byte
	opts     Options
	probs    Problems
	warnings []string
}

func (p *parser) errorf(n *node, at canon.Path, format string, args ...any) {
	pr := Problem{Path: at, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		off := int(n.off)
		pr.Line = 1 + strings.Count(string(p.data[:off]), "\n")
		pr.Column = off - strings.LastIndexByte(string(p.data[:off]), '\n')
	}
	p.probs = append(p.probs, pr)
}

// object walks an object node's members, remembering which were used so
// that the rest can be reported as unknown.
type object struct {
	p    *parser
	n    *node
	at   canon.Path
	used map[string]bool
}

func (p *parser) object(n *node, at canon.Path) *object {
	if n.kind != '{' {
		p.errorf(n, at, "expected object, got %s", kindName(n.kind))
		return nil
	}
	return &object{p: p, n: n, at: at, used: map[string]bool{}}
}

func (o *object) get(key string) *node {
	o.used[key] = true
	return o.n.member(key)
}

func (o *object) str(key string, required bool) (string, *node) {
	v := o.get(key)
	if v == nil {
		if required {
			o.p.errorf(o.n, o.at.Key(key), "required field is missing")
		}
		return "", nil
	}
	if v.kind != '"' {
		o.p.errorf(v, o.at.Key(key), "expected string, got %s", kindName(v.kind))
		return "", nil
	}
	s := decodeString(v.raw)
	if required && s == "" {
		o.p.errorf(v, o.at.Key(key), "must not be empty")
	}
	return s, v
}

func (o *object) boolean(key string) bool {
	v := o.get(key)
	if v == nil {
		return false
	}
	if v.kind != 't' && v.kind != 'f' {
		o.p.errorf(v, o.at.Key(key), "expected boolean, got %s", kindName(v.kind))
		return false
	}
	return v.kind == 't'
}

// json returns a member's value in canonical form; want is '{' to require
// an object, 0 for any value.
func (o *object) json(key string, want jsontext.Kind) jsontext.Value {
	v := o.get(key)
	if v == nil {
		return nil
	}
	if want != 0 && v.kind != want {
		o.p.errorf(v, o.at.Key(key), "expected %s, got %s", kindName(want), kindName(v.kind))
		return nil
	}
	b, err := canon.Canonicalize(v.raw)
	if err != nil {
		o.p.errorf(v, o.at.Key(key), "%v", err)
		return nil
	}
	return b
}

func (o *object) time(key string) string {
	s, v := o.str(key, false)
	if v != nil {
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			o.p.errorf(v, o.at.Key(key), "%q is not an RFC 3339 time (like 2026-02-10T09:00:00Z)", s)
		}
	}
	return s
}

func (o *object) array(key string, required bool) ([]*node, bool) {
	v := o.get(key)
	if v == nil {
		if required {
			o.p.errorf(o.n, o.at.Key(key), "required field is missing")
		}
		return nil, false
	}
	if v.kind != '[' {
		o.p.errorf(v, o.at.Key(key), "expected array, got %s", kindName(v.kind))
		return nil, false
	}
	return v.elems, true
}

func (o *object) finish(hints map[string]string) {
	for i, k := range o.n.keys {
		if !o.used[k] {
			msg := "unknown field"
			if h := hints[k]; h != "" {
				msg += " (" + h + ")"
			}
			o.p.errorf(o.n.vals[i], o.at.Key(k), "%s", msg)
		}
	}
}

func (p *parser) log(root *node) *Log {
	l := &Log{}
	o := p.object(root, nil)
	if o == nil {
		return l
	}
	// A manifest's version is accepted; its hash is not: it would claim
	// what the log is before it is packed.
	if v, n := o.str("version", false); n != nil && v != manifest.Version {
		p.errorf(n, canon.Path{"version"}, "version %q is not %q", v, manifest.Version)
	}
	l.Created = o.time("created")
	if s, n := o.str("parent", false); n != nil {
		d, err := parseFullDigest(s)
		if err != nil {
			p.errorf(n, canon.Path{"parent"}, "%v", err)
		}
		l.Parent = d
	}
	if mo := o.get("model"); mo == nil {
		p.errorf(root, canon.Path{"model"}, "required field is missing")
	} else if m := p.object(mo, canon.Path{"model"}); m != nil {
		l.Model.Identifier, _ = m.str("identifier", true)
		l.Model.Parameters = m.json("parameters", '{')
		m.finish(nil)
	}
	if sp := o.get("system_prompt"); sp != nil {
		at := canon.Path{"system_prompt"}
		switch sp.kind {
		case '"':
			l.SystemPrompt = &Content{kind: inline, raw: sp.raw, at: at}
		case '{':
			if so := p.object(sp, at); so != nil {
				l.SystemPrompt = so.content(contentKeys, true)
				so.finish(nil)
			}
		default:
			p.errorf(sp, at, "expected string or object, got %s", kindName(sp.kind))
		}
	}
	if elems, ok := o.array("prompts", false); ok {
		for i, e := range elems {
			if po := p.object(e, canon.Path{"prompts", i}); po != nil {
				role, _ := po.str("role", true)
				c := po.content(contentKeys, true)
				po.finish(nil)
				if c != nil {
					l.Prompts = append(l.Prompts, Prompt{Role: role, Content: *c})
				}
			}
		}
	}
	if elems, ok := o.array("inputs", false); ok {
		seen := map[string]int{}
		for i, e := range elems {
			at := canon.Path{"inputs", i}
			in := p.object(e, at)
			if in == nil {
				continue
			}
			name := in.name(seen, i)
			c := in.content(contentKeys, true)
			size := in.size()
			in.finish(nil)
			if c != nil {
				l.Inputs = append(l.Inputs, File{Name: name, Content: *c, size: size})
			}
		}
	}
	if elems, ok := o.array("steps", true); ok {
		for i, e := range elems {
			if so := p.object(e, canon.Path{"steps", i}); so != nil {
				l.Steps = append(l.Steps, so.step(i))
			}
		}
	}
	if elems, ok := o.array("outputs", false); ok {
		seen := map[string]int{}
		for i, e := range elems {
			oo := p.object(e, canon.Path{"outputs", i})
			if oo == nil {
				continue
			}
			out := Output{Name: oo.name(seen, i)}
			c := oo.content(contentKeys, true)
			out.size = oo.size()
			conf, cn := oo.str("confidence", false)
			if cn != nil && conf != "high" && conf != "medium" && conf != "low" {
				p.errorf(cn, oo.at.Key("confidence"), "%q is not one of high, medium, low", conf)
			}
			out.Confidence = conf
			out.Notes, _ = oo.str("notes", false)
			oo.finish(nil)
			if c != nil {
				out.Content = *c
				l.Outputs = append(l.Outputs, out)
			}
		}
	}
	if en := o.get("environment"); en != nil {
		if eo := p.object(en, canon.Path{"environment"}); eo != nil {
			l.Environment.OS, _ = eo.str("os", false)
			l.Environment.Runtime, _ = eo.str("runtime", false)
			if tv := eo.get("tool_versions"); tv != nil {
				if to := p.object(tv, eo.at.Key("tool_versions")); to != nil {
					l.Environment.ToolVersions = map[string]string{}
					for _, k := range tv.keys {
						v, _ := to.str(k, false)
						l.Environment.ToolVersions[k] = v
					}
				}
			}
			l.Environment.Metadata = eo.json("metadata", '{')
			eo.finish(nil)
		}
	}
	l.Metadata = o.json("metadata", '{')
	o.finish(map[string]string{
		"hash": "a log cannot carry the hash of the pack it will become; ctx-fork prints a log without it",
	})
	l.Created = p.created(l)
	return l
}

func (o *object) step(i int) Step {
	s := Step{Index: i}
	if v := o.get("index"); v != nil {
		n, err := strconv.Atoi(string(v.raw))
		if v.kind != '0' || err != nil {
			o.p.errorf(v, o.at.Key("index"), "expected integer, got %s", kindName(v.kind))
		} else if n != i {
			o.p.errorf(v, o.at.Key("index"), "is %d but the step is at position %d", n, i)
		}
	}
	var tn *node
	s.Type, tn = o.str("type", true)
	if tn != nil && s.Type != "" && !contains(stepTypes, s.Type) {
		o.p.errorf(tn, o.at.Key("type"), "%q is not one of %s", s.Type, strings.Join(stepTypes, ", "))
	}
	s.Tool, _ = o.str("tool", s.Type == manifest.ToolCall)
	s.Parameters = o.json("parameters", 0)
	s.Output = o.content(outputKeys, false)
	s.Deterministic = o.boolean("deterministic")
	s.Timestamp = o.time("timestamp")
	s.Metadata = o.json("metadata", '{')
	o.finish(map[string]string{
		"content": "a step's output is \"output\"", "path": "a step's output file is \"output_path\"",
		"content_ref": "a step's output object is \"output_ref\"",
	})
	return s
}

// name reads a clean relative name, unique among its siblings.
func (o *object) name(seen map[string]int, i int) string {
	name, n := o.str("name", true)
	if n == nil || name == "" {
		return name
	}
	if err := CheckName(name); err != nil {
		o.p.errorf(n, o.at.Key("name"), "%v", err)
	} else if j, dup := seen[name]; dup {
		o.p.errorf(n, o.at.Key("name"), "%q is also the name of [%d]", name, j)
	} else {
		seen[name] = i
	}
	return name
}

// size reads an optional stated size, checked against the content later.
func (o *object) size() int64 {
	v := o.get("size")
	if v == nil {
		return -1
	}
	n, err := strconv.ParseInt(string(v.raw), 10, 64)
	if v.kind != '0' || err != nil || n < 0 {
		o.p.errorf(v, o.at.Key("size"), "expected a non-negative integer")
		return -1
	}
	return n
}

// CheckName reports whether name is a clean relative path: not empty, no
// "." or ".." element, no leading or doubled "/", no backslash, no NUL.
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("name is empty")
	case strings.ContainsRune(name, 0):
		return fmt.Errorf("name %q contains NUL", name)
	case strings.ContainsRune(name, '\\'):
		return fmt.Errorf("name %q contains a backslash; use /", name)
	case strings.HasPrefix(name, "/"):
		return fmt.Errorf("name %q is absolute; names are relative paths", name)
	case path.Clean(name) != name || name == "." || name == ".." || strings.HasPrefix(name, "../"):
		return fmt.Errorf("name %q is not a clean relative path (no \".\", \"..\", empty or trailing elements)", name)
	}
	return nil
}

func parseFullDigest(s string) (digest.Digest, error) {
	d, err := digest.Parse(s)
	if err != nil {
		return d, fmt.Errorf("%q is not a full pack hash (sha256:<64 hex>)", s)
	}
	return d, nil
}

// created picks the run's time: the log's created, else the earliest step
// timestamp, else SOURCE_DATE_EPOCH, else the epoch with a warning.
func (p *parser) created(l *Log) string {
	if l.Created != "" {
		return l.Created
	}
	var best string
	var bestT time.Time
	for _, s := range l.Steps {
		if t, err := time.Parse(time.RFC3339Nano, s.Timestamp); err == nil && (best == "" || t.Before(bestT)) {
			best, bestT = s.Timestamp, t
		}
	}
	if best != "" {
		return best
	}
	if e := p.opts.SourceDateEpoch; e != "" {
		if n, err := strconv.ParseInt(e, 10, 64); err == nil {
			return time.Unix(n, 0).UTC().Format(time.RFC3339)
		}
		p.warnings = append(p.warnings, fmt.Sprintf("ignoring SOURCE_DATE_EPOCH=%q: not an integer", e))
	}
	p.warnings = append(p.warnings, "the log has no created time and no step timestamps; using 1970-01-01T00:00:00Z (set created or SOURCE_DATE_EPOCH)")
	return "1970-01-01T00:00:00Z"
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// CheckStore completes validation against the store that will receive the
// pack: referenced objects must exist and stated sizes must match. Like
// Parse, it reports every problem and writes nothing.
func (l *Log) CheckStore(s *store.Store) error {
	var probs Problems
	check := func(c *Content, stated int64) {
		if c == nil {
			return
		}
		if c.kind == ref {
			if ok, err := s.Has(c.ref); err != nil || !ok {
				probs = append(probs, Problem{Path: c.at, Msg: fmt.Sprintf("object %s is not in the store", c.ref)})
				return
			}
		}
		if stated >= 0 {
			n, err := c.Size(s)
			if err != nil {
				probs = append(probs, Problem{Path: c.at, Msg: err.Error()})
			} else if n != stated {
				probs = append(probs, Problem{Path: c.at, Msg: fmt.Sprintf("content is %d bytes but size says %d", n, stated)})
			}
		}
	}
	check(l.SystemPrompt, -1)
	for i := range l.Prompts {
		check(&l.Prompts[i].Content, -1)
	}
	for i := range l.Inputs {
		check(&l.Inputs[i].Content, l.Inputs[i].size)
	}
	for i := range l.Steps {
		check(l.Steps[i].Output, -1)
	}
	for i := range l.Outputs {
		check(&l.Outputs[i].Content, l.Outputs[i].size)
	}
	if len(probs) > 0 {
		return probs
	}
	return nil
}
