package execlog

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/internal/halves"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// A log reaches Pack by one of two ways: printed (JSON) and parsed
// (Parse), or, when a program built it in memory (an importer), directly,
// through Canonical and Check. Both ways give the same pack: Canonical
// does to the log what printing does to it, Check what Parse does to the
// printed log, with the rules below, which Parse applies too.

// Canonical puts a log built in memory in the form printing it (JSON) and
// parsing that gives: its JSON values (model and step parameters, the
// metadata) canonical, empty ones left out, and its strings valid UTF-8,
// each invalid byte replaced by U+FFFD as JSON writes it. It reports, with
// the error JSON would return, a value canonical JSON cannot carry: a
// string literal (Quoted) that is not valid JSON text, such as a lone
// UTF-16 surrogate escape, or a JSON value that is malformed or has
// duplicate member names or numbers beyond what canonical JSON holds.
func (l *Log) Canonical() error { return l.canonical(true) }

// canonical checks what JSON must print, and with fix puts it in printed
// form; without, it changes nothing (JSON uses it to say what it could
// not print). The error is the first in the order JSON prints the log.
func (l *Log) canonical(fix bool) error {
	c := &canonicalizer{fix: fix}
	c.str(&l.Created)
	c.str(&l.Model.Identifier)
	c.value(&l.Model.Parameters, func() canon.Path { return canon.Path{"model", "parameters"} })
	c.content(l.SystemPrompt, func() canon.Path { return canon.Path{"system_prompt"} })
	for i := range l.Prompts {
		p := &l.Prompts[i]
		c.str(&p.Role)
		c.content(p.Content, func() canon.Path { return canon.Path{"prompts", i, "content"} })
		c.parts(p.Parts, func() canon.Path { return canon.Path{"prompts", i, "parts"} })
	}
	for i := range l.Inputs {
		f := &l.Inputs[i]
		c.str(&f.Name)
		c.str(&f.MediaType)
		c.str(&f.Seen)
		c.content(f.Content, func() canon.Path { return canon.Path{"inputs", i, "content"} })
	}
	// The steps are most of a long session's log: two halves at once
	// where there are two CPUs, the first half's error first.
	second := &canonicalizer{fix: fix}
	halves.Do(len(l.Steps), func(from, to int) {
		if from == 0 {
			c.steps(l, from, to)
		} else {
			second.steps(l, from, to)
		}
	})
	if c.err == nil {
		c.err = second.err
	}
	for i := range l.Outputs {
		o := &l.Outputs[i]
		c.str(&o.Name)
		c.str(&o.MediaType)
		c.str(&o.Confidence)
		c.str(&o.Notes)
		c.content(o.Content, func() canon.Path { return canon.Path{"outputs", i, "content"} })
	}
	env := &l.Environment
	c.str(&env.OS)
	c.str(&env.Runtime)
	if fix && !validMap(env.ToolVersions) {
		tv := make(map[string]string, len(env.ToolVersions))
		for _, k := range slices.Sorted(maps.Keys(env.ToolVersions)) {
			pk := printed(k)
			if _, dup := tv[pk]; dup && c.err == nil {
				c.err = jsonError(canon.Path{"environment", "tool_versions"}, fmt.Errorf("duplicate object member name %q", pk))
			}
			tv[pk] = printed(env.ToolVersions[k])
		}
		env.ToolVersions = tv
	}
	c.value(&env.Metadata, func() canon.Path { return canon.Path{"environment", "metadata"} })
	c.value(&l.Metadata, func() canon.Path { return canon.Path{"metadata"} })
	return c.err
}

// A canonicalizer is canonical's work on part of a log: err is the first
// error it met, after which it checks and changes nothing more.
type canonicalizer struct {
	fix bool
	err error
}

// steps does the steps from to to of l, but those Reuse took as packed.
func (c *canonicalizer) steps(l *Log, from, to int) {
	for i := from; i < to; i++ {
		if l.encoded(i) != nil {
			continue
		}
		s := &l.Steps[i]
		c.str(&s.Type)
		c.str(&s.Tool)
		c.str(&s.Agent)
		c.str(&s.Timestamp)
		if s.Error != nil && c.fix && !utf8.ValidString(s.Error.Message) {
			e := *s.Error // the builder's, maybe shared: not changed in place
			e.Message = printed(e.Message)
			s.Error = &e
		}
		// In the order JSON prints them, which says what comes first.
		c.value(&s.Parameters, func() canon.Path { return canon.Path{"steps", i, "parameters"} })
		c.content(s.Output, func() canon.Path { return canon.Path{"steps", i, "output"} })
		c.parts(s.OutputParts, func() canon.Path { return canon.Path{"steps", i, "output_parts"} })
		c.content(s.Reasoning, func() canon.Path { return canon.Path{"steps", i, "reasoning"} })
		c.value(&s.Metadata, func() canon.Path { return canon.Path{"steps", i, "metadata"} })
		for j := range s.Observed {
			c.str(&s.Observed[j].Name)
			c.str(&s.Observed[j].Skipped)
			c.content(s.Observed[j].Content, func() canon.Path { return canon.Path{"steps", i, "observed", j, "content"} })
		}
	}
}

func (c *canonicalizer) value(v *jsontext.Value, at func() canon.Path) {
	if c.err != nil || *v == nil {
		return
	}
	if len(*v) == 0 {
		if c.fix {
			*v = nil
		}
		return
	}
	if canon.IsCanonical(*v) {
		return // most are: a read, not a copy
	}
	b, err := canon.Canonicalize(*v)
	if err != nil {
		c.err = jsonError(at(), err)
		return
	}
	if c.fix {
		*v = b
	}
}

func (c *canonicalizer) str(s *string) {
	if c.fix && !utf8.ValidString(*s) {
		*s = printed(*s)
	}
}

func (c *canonicalizer) content(ct *Content, at func() canon.Path) {
	if c.err != nil || ct == nil || ct.kind != inline || ct.checked {
		return
	}
	if err := checkLiteral(ct.raw); err != nil {
		c.err = jsonError(at(), err)
	}
}

func (c *canonicalizer) parts(ps []Part, at func() canon.Path) {
	for j := range ps {
		c.str(&ps[j].Type)
		c.str(&ps[j].MediaType)
		c.content(ps[j].Content, func() canon.Path { return at().Index(j).Key("content") })
	}
}

// jsonError is the error JSON returns for a value at at that canonical
// JSON cannot carry.
func jsonError(at canon.Path, err error) error {
	msg := err.Error()
	var ce *canon.Error
	if errors.As(err, &ce) {
		at, msg = append(at, ce.Path...), ce.Msg
	}
	return fmt.Errorf("encoding log: %w", &canon.Error{Path: at, Offset: -1, Msg: msg})
}

// checkLiteral reports whether lit is a JSON string literal canonical JSON
// can carry, in the words of lib/canon.
func checkLiteral(lit []byte) error {
	if validLiteral(lit) {
		return nil
	}
	err := canonicalLiteral(lit, func([]byte) error { return nil })
	if err != nil {
		if cerr := canon.Check(lit); cerr != nil {
			return cerr
		}
	}
	return err
}

// validLiteral reports, in one pass, whether lit is a JSON string literal
// canonical JSON can carry: valid UTF-8, no control character, escapes
// JSON has, UTF-16 surrogates in pairs. checkLiteral says what is wrong
// with one that is not.
func validLiteral(lit []byte) bool {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return false
	}
	b := lit[1 : len(lit)-1]
	for i := 0; i < len(b); {
		for i < len(b) && plainByte[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '\\':
			if i+1 >= len(b) {
				return false
			}
			if b[i+1] != 'u' {
				if !strings.ContainsRune(`"\\/bfnrt`, rune(b[i+1])) {
					return false
				}
				i += 2
				continue
			}
			r, ok := hexRune(b[i+2:])
			if !ok {
				return false
			}
			i += 6
			switch {
			case 0xDC00 <= r && r <= 0xDFFF:
				return false // a low surrogate alone
			case 0xD800 <= r && r <= 0xDBFF:
				if i+1 >= len(b) || b[i] != '\\' || b[i+1] != 'u' {
					return false
				}
				lo, ok := hexRune(b[i+2:])
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return false
				}
				i += 6
			}
		case c < utf8.RuneSelf:
			return false // '"' or a control character
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				return false
			}
			i += n
		}
	}
	return true
}

// plainByte marks the ASCII bytes a JSON string holds as they are.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// hexRune reads the four hex digits at the start of b.
func hexRune(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// printed returns s as JSON prints it: each byte that is not part of
// valid UTF-8 replaced by U+FFFD (jsontext.AppendQuote).
func printed(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	q, _ := jsontext.AppendQuote(nil, s)
	u, _ := jsontext.AppendUnquote(nil, q)
	return string(u)
}

func validMap(m map[string]string) bool {
	for k, v := range m {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return false
		}
	}
	return true
}

// Check validates a log built in memory, once Canonical has put it in
// printed form, as Parse validates a log's JSON, and completes it as Parse
// does: created, when unset, is the earliest step timestamp, else
// opts.SourceDateEpoch, else the epoch with a warning (Warnings). Problems
// name fields by path (there are no lines). Content in memory names no
// file: opts.Dir is not used.
func (l *Log) Check(opts Options) error {
	c := &checker{}
	c.log(l)
	if len(c.probs) > 0 {
		return c.probs
	}
	p := &parser{opts: opts}
	l.Created = p.created(l)
	l.Warnings = p.warnings
	return nil
}

type checker struct{ probs Problems }

func (c *checker) errorf(at canon.Path, format string, args ...any) {
	c.probs = append(c.probs, Problem{Path: at, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) err(at canon.Path, err error) {
	if err != nil {
		c.errorf(at, "%v", err)
	}
}

func (c *checker) log(l *Log) {
	if l.Created != "" {
		c.err(canon.Path{"created"}, checkTime(l.Created))
	}
	if l.Model.Identifier == "" {
		c.errorf(canon.Path{"model", "identifier"}, "%s", errEmpty)
	}
	c.kind(canon.Path{"model", "parameters"}, l.Model.Parameters, '{')
	if sp := l.SystemPrompt; sp != nil {
		at := canon.Path{"system_prompt"}
		if sp.kind != inline && !(sp.kind == text && utf8.ValidString(sp.text)) {
			at = at.Key(member(contentKeys, sp, false))
		}
		c.content(at, sp)
	}
	for i := range l.Prompts {
		p := &l.Prompts[i]
		at := canon.Path{"prompts", i}
		if p.Role == "" {
			c.errorf(at.Key("role"), "%s", errEmpty)
		}
		c.parts(at.Key("parts"), p.Parts)
		switch {
		case p.Parts != nil && p.Content != nil:
			c.errorf(at, "give only one of parts and %s", strings.Join(contentKeys[:], ", "))
		case p.Parts == nil && p.Content == nil:
			c.errorf(at.Key(contentKeys[0]), "required field is missing (or one of %s)", strings.Join(contentKeys[1:], ", "))
		case p.Content != nil:
			c.content(at.Key(member(contentKeys, p.Content, false)), p.Content)
		}
	}
	names := newNames()
	for i := range l.Inputs {
		f := &l.Inputs[i]
		at := canon.Path{"inputs", i}
		names.add(c, at.Key("name"), f.Name, i)
		c.mediaType(at, f.MediaType)
		if f.TotalLines < 0 {
			c.errorf(at.Key("total_lines"), "must be at least 1")
		}
		if err := manifest.CheckSeen(f.Seen, f.Lines, max(f.TotalLines, 0)); err != nil {
			c.errorf(at.Key("seen"), "%v", err)
		}
		switch {
		case f.Seen == manifest.SeenName && f.Content != nil:
			c.errorf(at.Key(member(contentKeys, f.Content, false)), "an input seen only by name has no content")
		case f.Seen != manifest.SeenName && f.Content == nil:
			c.errorf(at.Key(contentKeys[0]), "required field is missing (or one of %s)", strings.Join(contentKeys[1:], ", "))
		case f.Content != nil:
			c.content(at.Key(member(contentKeys, f.Content, false)), f.Content)
			if f.Seen == manifest.SeenPartial {
				f.Content.lines = manifest.SeenLines(f.Lines)
			}
		}
	}
	if u, msg, ok := names.dirConflict(); ok {
		c.errorf(canon.Path{"inputs", u, "name"}, "%s", msg)
	}
	for i := range l.Steps {
		if l.encoded(i) != nil {
			continue // checked as it is when it was packed (Reuse)
		}
		s := &l.Steps[i]
		at := canon.Path{"steps", i}
		if s.Index != i {
			c.errorf(at.Key("index"), "is %d but the step is at position %d", s.Index, i)
		}
		if s.Type == "" {
			c.errorf(at.Key("type"), "%s", errEmpty)
		} else {
			c.err(at.Key("type"), checkStepType(s.Type))
		}
		if s.Tool == "" && s.Type == manifest.ToolCall {
			// JSON leaves an empty tool out.
			c.errorf(at.Key("tool"), "required field is missing")
		}
		if s.ParentStep != nil {
			c.err(at.Key("parent_step"), checkParentStep(int64(*s.ParentStep), i))
		}
		c.kind(at.Key("parameters"), s.Parameters, 0)
		c.parts(at.Key("output_parts"), s.OutputParts)
		if s.OutputParts != nil && s.Output != nil {
			c.errorf(at, "give only one of output_parts and %s", strings.Join(outputKeys[:], ", "))
		} else if s.Output != nil {
			c.content(at.Key(member(outputKeys, s.Output, false)), s.Output)
		}
		if s.Reasoning != nil {
			c.content(at.Key(member(reasoningKeys, s.Reasoning, false)), s.Reasoning)
		}
		if u := s.Usage; u != nil {
			for _, f := range u.Fields() {
				if *f.Value != nil && **f.Value < 0 {
					c.errorf(at.Key("usage").Key(f.Name), "must not be negative")
				}
			}
		}
		if s.Timestamp != "" {
			c.err(at.Key("timestamp"), checkTime(s.Timestamp))
		}
		c.kind(at.Key("metadata"), s.Metadata, '{')
		for j, o := range s.Observed {
			oat := at.Key("observed").Index(j)
			c.err(oat.Key("name"), manifest.CheckName(o.Name))
			switch {
			case o.Content == nil && !o.Deleted && o.Skipped == "":
				c.errorf(oat, "give one of %s, deleted or skipped", strings.Join(contentKeys[:], ", "))
			case o.Content != nil && (o.Deleted || o.Skipped != ""):
				c.errorf(oat, "a deleted or skipped file has no content")
			case o.Content != nil:
				c.content(oat.Key(member(contentKeys, o.Content, false)), o.Content)
			}
		}
	}
	outs := newNames()
	for i := range l.Outputs {
		o := &l.Outputs[i]
		at := canon.Path{"outputs", i}
		outs.add(c, at.Key("name"), o.Name, i)
		c.mediaType(at, o.MediaType)
		if o.Content == nil {
			c.errorf(at.Key(contentKeys[0]), "required field is missing (or one of %s)", strings.Join(contentKeys[1:], ", "))
		} else {
			c.content(at.Key(member(contentKeys, o.Content, false)), o.Content)
		}
		if o.Confidence != "" {
			c.err(at.Key("confidence"), checkConfidence(o.Confidence))
		}
	}
	c.kind(canon.Path{"environment", "metadata"}, l.Environment.Metadata, '{')
	c.kind(canon.Path{"metadata"}, l.Metadata, '{')
}

// kind checks that a JSON value, when given, is of kind want (0: any).
func (c *checker) kind(at canon.Path, v jsontext.Value, want jsontext.Kind) {
	if len(v) > 0 && want != 0 && v.Kind() != want {
		c.errorf(at, "expected %s, got %s", kindName(want), kindName(v.Kind()))
	}
}

func (c *checker) mediaType(at canon.Path, mt string) {
	if mt != "" {
		c.err(at.Key("media_type"), checkMediaType(mt))
	}
}

func (c *checker) parts(at canon.Path, ps []Part) {
	if ps == nil {
		return
	}
	if len(ps) == 0 {
		c.errorf(at, "%s", errEmpty)
	}
	for j, p := range ps {
		pat := at.Index(j)
		if p.Type == "" {
			c.errorf(pat.Key("type"), "%s", errEmpty)
		} else {
			c.err(pat.Key("type"), manifest.CheckPartType(p.Type))
		}
		c.mediaType(pat, p.MediaType)
		if p.Content == nil {
			c.errorf(pat.Key(contentKeys[0]), "required field is missing (or one of %s)", strings.Join(contentKeys[1:], ", "))
			continue
		}
		c.content(pat.Key(member(contentKeys, p.Content, p.Type != manifest.PartText)), p.Content)
	}
}

// content records where c is, for messages, and checks what Parse checks
// of content in that form.
func (c *checker) content(at canon.Path, ct *Content) {
	ct.at = at
	if ct.kind == base64Text {
		c.err(at, checkBase64(ct.raw))
	}
}

// member returns the member of keys JSON writes c under.
func member(keys keySet, c *Content, binary bool) string {
	switch c.kind {
	case base64Text:
		return keys[1]
	case file:
		return keys[2]
	case ref:
		if c.from == nil {
			return keys[3]
		}
		if !binary && c.isText {
			return keys[0]
		}
		return keys[1]
	case text:
		if binary || !utf8.ValidString(c.text) {
			return keys[1]
		}
	case data:
		if binary || !utf8.Valid(c.data) {
			return keys[1]
		}
	}
	return keys[0]
}

// The rules Parse and Check share.

const errEmpty = "must not be empty"

func checkTime(s string) error {
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return fmt.Errorf("%q is not an RFC 3339 time (like 2026-02-10T09:00:00Z)", s)
	}
	return nil
}

func checkMediaType(mt string) error {
	if _, _, err := mime.ParseMediaType(mt); err != nil || !strings.Contains(mt, "/") {
		return fmt.Errorf("%q is not a media type (like image/png)", mt)
	}
	return nil
}

func checkConfidence(conf string) error {
	if conf != "high" && conf != "medium" && conf != "low" {
		return fmt.Errorf("%q is not one of high, medium, low", conf)
	}
	return nil
}

func checkStepType(t string) error {
	if !slices.Contains(stepTypes, t) {
		return fmt.Errorf("%q is not one of %s", t, strings.Join(stepTypes, ", "))
	}
	return nil
}

func checkParentStep(n int64, i int) error {
	if n < 0 || n >= int64(i) {
		return fmt.Errorf("%d is not the index of an earlier step", n)
	}
	return nil
}

func checkBase64(quoted []byte) error {
	if _, err := io.Copy(io.Discard, base64Reader(quoted)); err != nil {
		return fmt.Errorf("not valid standard base64: %v", err)
	}
	return nil
}

// names checks the names of inputs or outputs: clean, relative and
// unique among their siblings.
type names struct {
	seen  map[string]int
	list  []string
	index []int
}

func newNames() *names { return &names{seen: map[string]int{}} }

// check returns what is wrong with the name of element i, nil if nothing
// is; a name without fault is remembered.
func (ns *names) check(name string, i int) error {
	if err := manifest.CheckName(name); err != nil {
		return err
	}
	if j, dup := ns.seen[name]; dup {
		return fmt.Errorf("%q is also the name of [%d]", name, j)
	}
	ns.seen[name] = i
	return nil
}

func (ns *names) add(c *checker, at canon.Path, name string, i int) {
	if name == "" {
		c.errorf(at, "%s", errEmpty)
		return
	}
	c.err(at, ns.check(name, i))
	ns.list, ns.index = append(ns.list, name), append(ns.index, i)
}

// dirConflict finds a name that needs another to be a directory: a
// replay writes every input into one workspace. u is the element whose
// name is at fault.
func (ns *names) dirConflict() (u int, msg string, ok bool) {
	fi, ui, ok := manifest.DirConflict(ns.list)
	if !ok {
		return 0, "", false
	}
	return ns.index[ui], fmt.Sprintf("%q needs %q to be a directory, but inputs[%d] is that file", ns.list[ui], ns.list[fi], ns.index[fi]), true
}
