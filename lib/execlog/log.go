package execlog

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
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

	prints    []fingerprint // each step's (Fingerprint)
	reused    []reusedStep  // the steps Reuse took from a prior pack
	committed *packed       // what Pack stored, for SavePrior
}

// Prompt is a prompt message: Content, or Parts when it is multimodal.
type Prompt struct {
	Role    string
	Content *Content
	Parts   []Part
}

// Part is one part of multimodal content (manifest.PartTypes).
type Part struct {
	Type      string
	MediaType string
	Content   *Content
}

// File is a named input. Seen, Lines and TotalLines say how much of the
// file the session observed (manifest.File); Content is nil for an input
// seen only by name.
type File struct {
	Name       string
	MediaType  string
	Seen       string
	Lines      [][2]int64
	TotalLines int64
	Content    *Content
}

// Output is a named artifact of the run.
type Output struct {
	Name       string
	MediaType  string
	Content    *Content
	Confidence string
	Notes      string
}

// Step is one recorded action. Output is nil when none was recorded, or
// when OutputParts holds it; Reasoning is nil when none was recorded.
type Step struct {
	Index         int
	Type          string
	Tool          string
	Agent         string
	ParentStep    *int
	Parameters    jsontext.Value
	Output        *Content
	OutputParts   []Part
	Reasoning     *Content
	Error         *manifest.StepError
	Usage         *manifest.Usage
	Deterministic bool
	Timestamp     string
	Metadata      jsontext.Value
	Observed      []Observed
}

// Observed is a file as a step left it on disk (manifest.Observed): its
// content, or that the step deleted it, or why its content was not kept.
type Observed struct {
	Name    string
	Deleted bool
	Skipped string
	Content *Content
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

	pos scanPos // where position last counted to
}

// scanPos is an offset in the log, the line breaks before it and where its
// line starts.
type scanPos struct{ off, lines, lineStart int }

func (p *parser) errorf(n *node, at canon.Path, format string, args ...any) {
	pr := Problem{Path: at, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		pr.Line, pr.Column = p.position(int(n.off))
	}
	p.probs = append(p.probs, pr)
}

// position returns the 1-based line and byte column of offset off in the
// log. Problems come mostly in document order, so it scans only from the
// last offset asked for, not from the start each time.
func (p *parser) position(off int) (line, col int) {
	if off < p.pos.off {
		p.pos = scanPos{}
	}
	seg := p.data[p.pos.off:off]
	if i := bytes.LastIndexByte(seg, '\n'); i >= 0 {
		p.pos.lines += bytes.Count(seg, []byte{'\n'})
		p.pos.lineStart = p.pos.off + i + 1
	}
	p.pos.off = off
	return p.pos.lines + 1, off - p.pos.lineStart + 1
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
		o.p.errorf(v, o.at.Key(key), "%s", errEmpty)
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
	if canon.IsCanonical(v.raw) {
		return v.raw // a log ctx printed: read, not copied
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
		o.check(v, o.at.Key(key), checkTime(s))
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

// check reports err, if any, as a problem of the member v at at.
func (o *object) check(v *node, at canon.Path, err error) {
	if err != nil {
		o.p.errorf(v, at, "%v", err)
	}
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
			l.SystemPrompt = &Content{kind: inline, raw: sp.raw, at: at, stated: -1, lines: -1}
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
				l.Prompts = append(l.Prompts, po.prompt())
			}
		}
	}
	if elems, ok := o.array("inputs", false); ok {
		ns := newNames()
		nodes := map[int]*node{}
		for i, e := range elems {
			if in := p.object(e, canon.Path{"inputs", i}); in != nil {
				f := in.input(ns, i)
				l.Inputs = append(l.Inputs, f)
				if n := e.member("name"); n != nil && n.kind == '"' {
					ns.list, ns.index, nodes[i] = append(ns.list, f.Name), append(ns.index, i), n
				}
			}
		}
		// A replay writes every input into one workspace: a name cannot be
		// both a file and the directory of another.
		if u, msg, ok := ns.dirConflict(); ok {
			p.errorf(nodes[u], canon.Path{"inputs", u, "name"}, "%s", msg)
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
		ns := newNames()
		for i, e := range elems {
			oo := p.object(e, canon.Path{"outputs", i})
			if oo == nil {
				continue
			}
			out := Output{Name: oo.name(ns, i)}
			out.MediaType = oo.mediaType()
			out.Content = oo.content(contentKeys, true)
			oo.statedSize(out.Content)
			conf, cn := oo.str("confidence", false)
			if cn != nil {
				oo.check(cn, oo.at.Key("confidence"), checkConfidence(conf))
			}
			out.Confidence = conf
			out.Notes, _ = oo.str("notes", false)
			oo.finish(nil)
			l.Outputs = append(l.Outputs, out)
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
	if n, v, ok := o.integer("index"); ok && n != int64(i) {
		o.p.errorf(v, o.at.Key("index"), "is %d but the step is at position %d", n, i)
	}
	var tn *node
	s.Type, tn = o.str("type", true)
	if tn != nil && s.Type != "" {
		o.check(tn, o.at.Key("type"), checkStepType(s.Type))
	}
	s.Tool, _ = o.str("tool", s.Type == manifest.ToolCall)
	if agent, v := o.str("agent", false); v != nil {
		if agent == "" {
			o.p.errorf(v, o.at.Key("agent"), "%s (omit it for the main agent)", errEmpty)
		}
		s.Agent = agent
	}
	if n, v, ok := o.integer("parent_step"); ok {
		if err := checkParentStep(n, i); err != nil {
			o.check(v, o.at.Key("parent_step"), err)
		} else {
			ps := int(n)
			s.ParentStep = &ps
		}
	}
	s.Parameters = o.json("parameters", 0)
	s.OutputParts = o.parts("output_parts")
	s.Output = o.content(outputKeys, false)
	if s.OutputParts != nil && s.Output != nil {
		o.p.errorf(o.n, o.at, "give only one of output_parts and %s", strings.Join(outputKeys[:], ", "))
	}
	s.Reasoning = o.content(reasoningKeys, false)
	s.Error = o.stepError()
	s.Usage = o.usage()
	s.Deterministic = o.boolean("deterministic")
	s.Timestamp = o.time("timestamp")
	s.Metadata = o.json("metadata", '{')
	s.Observed = o.observed()
	o.finish(map[string]string{
		"content": "a step's output is \"output\"", "path": "a step's output file is \"output_path\"",
		"content_ref": "a step's output object is \"output_ref\"", "parts": "a step's multimodal output is \"output_parts\"",
	})
	return s
}

// prompt reads a prompt: a role and content, or parts.
func (o *object) prompt() Prompt {
	var pr Prompt
	pr.Role, _ = o.str("role", true)
	pr.Parts = o.parts("parts")
	pr.Content = o.content(contentKeys, pr.Parts == nil && o.n.member("parts") == nil)
	if pr.Parts != nil && pr.Content != nil {
		o.p.errorf(o.n, o.at, "give only one of parts and %s", strings.Join(contentKeys[:], ", "))
	}
	o.finish(nil)
	return pr
}

// input reads an input: a name, how much of the file was seen, and its
// content unless only its name was.
func (o *object) input(names *names, i int) File {
	f := File{Name: o.name(names, i)}
	f.MediaType = o.mediaType()
	var sn *node
	f.Seen, sn = o.str("seen", false)
	linesOK := true
	if ln := o.get("lines"); ln != nil {
		f.Lines, linesOK = o.lines(ln)
	}
	f.TotalLines = -1
	if n, v, ok := o.integer("total_lines"); ok {
		if n < 1 {
			o.p.errorf(v, o.at.Key("total_lines"), "must be at least 1")
		}
		f.TotalLines = n
	}
	if err := manifest.CheckSeen(f.Seen, f.Lines, max(f.TotalLines, 0)); linesOK && err != nil {
		at, n := o.at, o.n
		if sn != nil {
			at, n = o.at.Key("seen"), sn
		}
		o.p.errorf(n, at, "%v", err)
	}
	f.TotalLines = max(f.TotalLines, 0)
	if f.Seen == manifest.SeenName {
		for _, k := range append(contentKeys[:], "size") {
			if v := o.get(k); v != nil {
				o.p.errorf(v, o.at.Key(k), "an input seen only by name has no content")
			}
		}
	} else {
		f.Content = o.content(contentKeys, true)
		o.statedSize(f.Content)
		if f.Seen == manifest.SeenPartial && f.Content != nil {
			f.Content.lines = manifest.SeenLines(f.Lines)
		}
	}
	o.finish(nil)
	return f
}

// lines reads an input's line ranges, [[from, to], …]; ok is false when
// they could not all be read (and that was reported).
func (o *object) lines(v *node) (ranges [][2]int64, ok bool) {
	at := o.at.Key("lines")
	if v.kind != '[' {
		o.p.errorf(v, at, "expected array of [from, to] line ranges, got %s", kindName(v.kind))
		return nil, false
	}
	ok = true
	ranges = [][2]int64{}
	for k, e := range v.elems {
		if e.kind != '[' || len(e.elems) != 2 {
			o.p.errorf(e, at.Index(k), "expected [from, to], two line numbers")
			ok = false
			continue
		}
		var r [2]int64
		for j, x := range e.elems {
			n, err := strconv.ParseInt(string(x.raw), 10, 64)
			if x.kind != '0' || err != nil {
				o.p.errorf(x, at.Index(k).Index(j), "expected an integer line number")
				ok = false
			}
			r[j] = n
		}
		ranges = append(ranges, r)
	}
	return ranges, ok
}

// parts reads an array of parts, nil when the member is absent.
func (o *object) parts(key string) []Part {
	elems, ok := o.array(key, false)
	if !ok {
		return nil
	}
	if len(elems) == 0 {
		o.p.errorf(o.n.member(key), o.at.Key(key), "%s", errEmpty)
	}
	parts := []Part{}
	for j, e := range elems {
		po := o.p.object(e, o.at.Key(key).Index(j))
		if po == nil {
			continue
		}
		var pt Part
		var tn *node
		pt.Type, tn = po.str("type", true)
		if tn != nil && pt.Type != "" {
			if err := manifest.CheckPartType(pt.Type); err != nil {
				o.p.errorf(tn, po.at.Key("type"), "%v", err)
			}
		}
		pt.MediaType = po.mediaType()
		pt.Content = po.content(contentKeys, true)
		po.statedSize(pt.Content)
		po.finish(nil)
		parts = append(parts, pt)
	}
	return parts
}

// observed reads a step's observed files: each a name, and content,
// deleted or skipped.
func (o *object) observed() []Observed {
	elems, ok := o.array("observed", false)
	if !ok {
		return nil
	}
	out := []Observed{}
	for j, e := range elems {
		fo := o.p.object(e, o.at.Key("observed").Index(j))
		if fo == nil {
			continue
		}
		var f Observed
		var n *node
		f.Name, n = fo.str("name", true)
		if n != nil && f.Name != "" {
			fo.check(n, fo.at.Key("name"), manifest.CheckName(f.Name))
		}
		f.Deleted = fo.boolean("deleted")
		f.Skipped, _ = fo.str("skipped", false)
		f.Content = fo.content(contentKeys, !f.Deleted && f.Skipped == "")
		if f.Content != nil && (f.Deleted || f.Skipped != "") {
			o.p.errorf(e, fo.at, "a deleted or skipped file has no content")
		}
		fo.statedSize(f.Content)
		fo.finish(nil)
		out = append(out, f)
	}
	return out
}

// mediaType reads an optional media type such as "image/png".
func (o *object) mediaType() string {
	mt, v := o.str("media_type", false)
	if v != nil {
		o.check(v, o.at.Key("media_type"), checkMediaType(mt))
	}
	return mt
}

// stepError reads a step's error: true, a message, or an object with a
// message and an exit code.
func (o *object) stepError() *manifest.StepError {
	v := o.get("error")
	if v == nil {
		return nil
	}
	at := o.at.Key("error")
	switch v.kind {
	case 't':
		return &manifest.StepError{}
	case 'f':
		o.p.errorf(v, at, "false is not an error: omit error when the step did not fail")
	case '"':
		msg := decodeString(v.raw)
		if msg == "" {
			o.p.errorf(v, at, "an empty message says nothing: use true")
		}
		return &manifest.StepError{Message: msg}
	case '{':
		eo := o.p.object(v, at)
		e := &manifest.StepError{}
		msg, mn := eo.str("message", false)
		if mn != nil && msg == "" {
			o.p.errorf(mn, at.Key("message"), "must not be empty (omit it)")
		}
		e.Message = msg
		if n, _, ok := eo.integer("exit_code"); ok {
			e.ExitCode = &n
		}
		eo.finish(nil)
		return e
	default:
		o.p.errorf(v, at, "expected true, a message string or an object, got %s", kindName(v.kind))
	}
	return nil
}

// usage reads a step's token counts.
func (o *object) usage() *manifest.Usage {
	v := o.get("usage")
	if v == nil {
		return nil
	}
	uo := o.p.object(v, o.at.Key("usage"))
	if uo == nil {
		return nil
	}
	u := &manifest.Usage{}
	for _, f := range u.Fields() {
		if n, nv, ok := uo.integer(f.Name); ok {
			if n < 0 {
				o.p.errorf(nv, uo.at.Key(f.Name), "must not be negative")
			}
			*f.Value = &n
		}
	}
	hint := "usage holds input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens, total_tokens; other counters go in the step's metadata"
	hints := map[string]string{}
	for _, k := range v.keys {
		hints[k] = hint
	}
	uo.finish(hints)
	return u
}

// integer reads an optional integer member.
func (o *object) integer(key string) (int64, *node, bool) {
	v := o.get(key)
	if v == nil {
		return 0, nil, false
	}
	n, err := strconv.ParseInt(string(v.raw), 10, 64)
	if v.kind != '0' || err != nil {
		o.p.errorf(v, o.at.Key(key), "expected integer, got %s", kindName(v.kind))
		return 0, v, false
	}
	return n, v, true
}

// name reads a clean relative name, unique among its siblings.
func (o *object) name(ns *names, i int) string {
	name, n := o.str("name", true)
	if n == nil || name == "" {
		return name
	}
	o.check(n, o.at.Key("name"), ns.check(name, i))
	return name
}

// statedSize reads an optional stated size of c, checked against the
// content by CheckStore.
func (o *object) statedSize(c *Content) {
	v := o.get("size")
	if v == nil {
		return
	}
	n, err := strconv.ParseInt(string(v.raw), 10, 64)
	if v.kind != '0' || err != nil || n < 0 {
		o.p.errorf(v, o.at.Key("size"), "expected a non-negative integer")
		return
	}
	if c != nil {
		c.stated = n
	}
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

// CheckStore completes validation against the store that will receive the
// pack: referenced objects must exist, stated sizes must match, and a
// partially seen input must hold as many lines as its ranges cover. Like
// Parse, it reports every problem and writes nothing.
func (l *Log) CheckStore(s *store.Store) error {
	var probs Problems
	for _, c := range l.contents() {
		if c.kind == ref {
			if ok, err := s.Has(c.ref); err != nil || !ok {
				probs = append(probs, Problem{Path: c.at, Msg: fmt.Sprintf("object %s is not in the store", c.ref)})
				continue
			}
		}
		if c.stated >= 0 {
			n, err := c.Size(s)
			if err != nil {
				probs = append(probs, Problem{Path: c.at, Msg: err.Error()})
			} else if n != c.stated {
				probs = append(probs, Problem{Path: c.at, Msg: fmt.Sprintf("content is %d bytes but size says %d", n, c.stated)})
			}
		}
		if c.lines >= 0 {
			n, err := c.countLines(s)
			if err != nil {
				probs = append(probs, Problem{Path: c.at, Msg: err.Error()})
			} else if n != c.lines {
				probs = append(probs, Problem{Path: c.at, Msg: fmt.Sprintf("content has %d lines but lines covers %d", n, c.lines)})
			}
		}
	}
	if len(probs) > 0 {
		return probs
	}
	return nil
}
