package execlog

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// skeleton returns the manifest the log packs to with every object
// reference still zero: the one mapping of the log's fields to the
// manifest's. Content goes where l.slot says.
func (l *Log) skeleton() *manifest.Manifest {
	m := &manifest.Manifest{
		Version:     manifest.Version,
		Created:     l.Created,
		Parent:      l.Parent,
		Model:       l.Model,
		Prompts:     make([]manifest.Prompt, len(l.Prompts)),
		Inputs:      make([]manifest.File, len(l.Inputs)),
		Steps:       make([]manifest.Step, len(l.Steps)),
		Outputs:     make([]manifest.Output, len(l.Outputs)),
		Environment: l.Environment,
		Metadata:    l.Metadata,
	}
	parts := func(ps []Part) []manifest.Part {
		if ps == nil {
			return nil
		}
		out := make([]manifest.Part, len(ps))
		for j, p := range ps {
			out[j] = manifest.Part{Type: p.Type, MediaType: p.MediaType}
		}
		return out
	}
	for i, p := range l.Prompts {
		m.Prompts[i] = manifest.Prompt{Role: p.Role, Parts: parts(p.Parts)}
	}
	for i, f := range l.Inputs {
		m.Inputs[i] = manifest.File{Name: f.Name, MediaType: f.MediaType, Seen: f.Seen, Lines: f.Lines, TotalLines: f.TotalLines}
	}
	for i, s := range l.Steps {
		m.Steps[i] = manifest.Step{
			Index: s.Index, Type: s.Type, Tool: s.Tool, Agent: s.Agent, ParentStep: s.ParentStep,
			Parameters: s.Parameters, OutputParts: parts(s.OutputParts), Error: s.Error, Usage: s.Usage,
			Deterministic: s.Deterministic, Timestamp: s.Timestamp, Metadata: s.Metadata,
			Encoded: l.encoded(i),
		}
		if s.Observed != nil {
			m.Steps[i].Observed = make([]manifest.Observed, len(s.Observed))
			for j, o := range s.Observed {
				m.Steps[i].Observed[j] = manifest.Observed{Name: o.Name, Deleted: o.Deleted, Skipped: o.Skipped}
			}
		}
	}
	for i, o := range l.Outputs {
		m.Outputs[i] = manifest.Output{Name: o.Name, MediaType: o.MediaType, Confidence: o.Confidence, Notes: o.Notes}
	}
	return m
}

// fromSkeleton returns the log of m without content: the inverse of
// skeleton.
func fromSkeleton(m *manifest.Manifest) *Log {
	l := &Log{
		Created: m.Created, Parent: m.Parent, Model: m.Model,
		Prompts: make([]Prompt, len(m.Prompts)), Inputs: make([]File, len(m.Inputs)),
		Steps: make([]Step, len(m.Steps)), Outputs: make([]Output, len(m.Outputs)),
		Environment: m.Environment, Metadata: m.Metadata,
	}
	parts := func(ps []manifest.Part) []Part {
		if ps == nil {
			return nil
		}
		out := make([]Part, len(ps))
		for j, p := range ps {
			out[j] = Part{Type: p.Type, MediaType: p.MediaType}
		}
		return out
	}
	for i, p := range m.Prompts {
		l.Prompts[i] = Prompt{Role: p.Role, Parts: parts(p.Parts)}
	}
	for i, f := range m.Inputs {
		l.Inputs[i] = File{Name: f.Name, MediaType: f.MediaType, Seen: f.Seen, Lines: f.Lines, TotalLines: f.TotalLines}
	}
	for i, s := range m.Steps {
		l.Steps[i] = Step{
			Index: s.Index, Type: s.Type, Tool: s.Tool, Agent: s.Agent, ParentStep: s.ParentStep,
			Parameters: s.Parameters, OutputParts: parts(s.OutputParts), Error: s.Error, Usage: s.Usage,
			Deterministic: s.Deterministic, Timestamp: s.Timestamp, Metadata: s.Metadata,
		}
		if s.Observed != nil {
			l.Steps[i].Observed = make([]Observed, len(s.Observed))
			for j, o := range s.Observed {
				l.Steps[i].Observed[j] = Observed{Name: o.Name, Deleted: o.Deleted, Skipped: o.Skipped}
			}
		}
	}
	for i, o := range m.Outputs {
		l.Outputs[i] = Output{Name: o.Name, MediaType: o.MediaType, Confidence: o.Confidence, Notes: o.Notes}
	}
	return l
}

// slot returns where the log keeps the content of a manifest slot.
func (l *Log) slot(sl manifest.Slot) **Content {
	switch sl.Field {
	case manifest.FieldSystemPrompt:
		return &l.SystemPrompt
	case manifest.FieldPrompt:
		return &l.Prompts[sl.Index].Content
	case manifest.FieldPromptPart:
		return &l.Prompts[sl.Index].Parts[sl.Part].Content
	case manifest.FieldInput:
		return &l.Inputs[sl.Index].Content
	case manifest.FieldStepOutput:
		return &l.Steps[sl.Index].Output
	case manifest.FieldStepOutputPart:
		return &l.Steps[sl.Index].OutputParts[sl.Part].Content
	case manifest.FieldStepReasoning:
		return &l.Steps[sl.Index].Reasoning
	case manifest.FieldOutput:
		return &l.Outputs[sl.Index].Content
	case manifest.FieldStepObserved:
		return &l.Steps[sl.Index].Observed[sl.Part].Content
	}
	panic(fmt.Sprintf("execlog: unknown manifest field %d", sl.Field))
}

// contents returns every content of the log, in manifest order.
func (l *Log) contents() []*Content {
	var out []*Content
	for sl := range l.skeleton().Slots() {
		if c := *l.slot(sl); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// FromManifest reads every object m references (verifying each) and
// returns the pack in log form, with m's own parent: what ctx-show
// --resolve and ctx-fork print. Packing it gives back m.
//
// Objects up to inlineInMemory bytes are held in memory; larger ones are
// read once here, to verify them and learn whether they are text, and
// once more, streamed, when the log is written: memory stays bounded by
// the smaller objects, whatever the size of the larger ones. An object
// the pack names many times is read once and shared, so that one object
// named by 1,000 inputs costs its size, not 1,000 times it.
func FromManifest(s *store.Store, m *manifest.Manifest) (*Log, error) {
	l := fromSkeleton(m)
	shared := map[digest.Digest]*Content{}
	for sl := range m.Slots() {
		if sl.Ref.IsZero() {
			continue
		}
		d := *sl.Ref
		if c, ok := shared[d]; ok {
			cp := *c // its own Content, the same bytes
			*l.slot(sl) = &cp
			continue
		}
		size, err := s.Size(d)
		if err != nil {
			return nil, err
		}
		var c *Content
		if size <= inlineInMemory {
			b, err := s.Get(d)
			if err != nil {
				return nil, err
			}
			c = Bytes(b)
		} else {
			text, err := scanObject(s, d)
			if err != nil {
				return nil, err
			}
			c = Ref(d)
			c.from, c.isText = s, text
		}
		shared[d] = c
		*l.slot(sl) = c
	}
	return l, nil
}

// inlineInMemory is the largest object FromManifest holds in memory.
const inlineInMemory = 1 << 20

// JSON returns the log's canonical JSON. Empty prompts, inputs and
// outputs and an empty environment are left out. A system prompt given as
// a string (a log's string, Text) stays a string; read from a pack
// (FromManifest) it is an object, {"content"} or {"content_base64"}, as
// ctx-fork has always printed it. Content held in memory is
// written as text when it is UTF-8 (content, output, reasoning) and as
// base64 otherwise (content_base64, …), as are parts that are not text
// parts; content from a log keeps its form (a file stays "path", an object
// "content_ref"), except objects FromManifest resolved, which are inlined.
func (l *Log) JSON() ([]byte, error) {
	var b bytes.Buffer
	if err := l.WriteJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteJSON writes what JSON returns to out, streaming the objects
// FromManifest left in the store rather than holding them in memory.
// Everything else is checked before the first byte is written; an object
// that changes while it is streamed fails at its end, with a
// *store.CorruptError, leaving the output cut short.
func (l *Log) WriteJSON(out io.Writer) error {
	if l.reused != nil {
		return errors.New("execlog: a log that reused packed steps is not printed")
	}
	w := &writer{b: make([]byte, 0, l.sizeHint())}
	w.open('{')
	w.optStr("created", l.Created)
	if !l.Parent.IsZero() {
		w.str("parent", l.Parent.String())
	}
	w.key("model")
	w.open('{')
	w.str("identifier", l.Model.Identifier)
	w.raw("parameters", l.Model.Parameters)
	w.close('}')
	switch sp := l.SystemPrompt; {
	case sp == nil:
	case sp.kind == inline:
		w.raw("system_prompt", sp.raw)
	case sp.kind == text && utf8.ValidString(sp.text):
		w.str("system_prompt", sp.text)
	default:
		w.key("system_prompt")
		w.open('{')
		w.content(contentKeys, sp)
		w.close('}')
	}
	w.list("prompts", len(l.Prompts))
	for _, p := range l.Prompts {
		w.elem()
		w.open('{')
		w.str("role", p.Role)
		w.content(contentKeys, p.Content)
		w.parts("parts", p.Parts)
		w.close('}')
	}
	w.end(len(l.Prompts))
	w.list("inputs", len(l.Inputs))
	for _, f := range l.Inputs {
		w.elem()
		w.open('{')
		w.str("name", f.Name)
		w.optStr("media_type", f.MediaType)
		w.optStr("seen", f.Seen)
		if f.Lines != nil {
			w.key("lines")
			w.open('[')
			for _, r := range f.Lines {
				w.elem()
				w.b = fmt.Appendf(w.b, "[%d,%d]", r[0], r[1])
			}
			w.close(']')
		}
		if f.TotalLines != 0 {
			w.num("total_lines", f.TotalLines)
		}
		w.content(contentKeys, f.Content)
		w.close('}')
	}
	w.end(len(l.Inputs))
	w.key("steps")
	w.open('[')
	for _, s := range l.Steps {
		w.elem()
		w.open('{')
		w.num("index", int64(s.Index))
		w.str("type", s.Type)
		w.optStr("tool", s.Tool)
		w.optStr("agent", s.Agent)
		if s.ParentStep != nil {
			w.num("parent_step", int64(*s.ParentStep))
		}
		w.raw("parameters", s.Parameters)
		w.content(outputKeys, s.Output)
		w.parts("output_parts", s.OutputParts)
		w.content(reasoningKeys, s.Reasoning)
		if e := s.Error; e != nil && e.Message == "" && e.ExitCode == nil {
			w.raw("error", jsontext.Value("true")) // all that is known: it failed
		} else if e != nil {
			w.key("error")
			w.open('{')
			w.optStr("message", e.Message)
			if e.ExitCode != nil {
				w.num("exit_code", *e.ExitCode)
			}
			w.close('}')
		}
		if u := s.Usage; u != nil {
			w.key("usage")
			w.open('{')
			for _, f := range u.Fields() {
				if *f.Value != nil {
					w.num(f.Name, **f.Value)
				}
			}
			w.close('}')
		}
		w.raw("deterministic", strconv.AppendBool(nil, s.Deterministic))
		w.optStr("timestamp", s.Timestamp)
		w.raw("metadata", s.Metadata)
		w.observed(s.Observed)
		w.close('}')
	}
	w.close(']')
	w.list("outputs", len(l.Outputs))
	for _, o := range l.Outputs {
		w.elem()
		w.open('{')
		w.str("name", o.Name)
		w.optStr("media_type", o.MediaType)
		w.content(contentKeys, o.Content)
		w.optStr("confidence", o.Confidence)
		w.optStr("notes", o.Notes)
		w.close('}')
	}
	w.end(len(l.Outputs))
	if env := l.Environment; env.OS != "" || env.Runtime != "" || env.ToolVersions != nil || env.Metadata != nil {
		w.key("environment")
		w.open('{')
		w.optStr("os", env.OS)
		w.optStr("runtime", env.Runtime)
		if env.ToolVersions != nil {
			w.key("tool_versions")
			w.open('{')
			for _, k := range slices.Sorted(maps.Keys(env.ToolVersions)) {
				w.str(k, env.ToolVersions[k])
			}
			w.close('}')
		}
		w.raw("metadata", env.Metadata)
		w.close('}')
	}
	w.raw("metadata", l.Metadata)
	w.close('}')
	b, err := canon.Canonicalize(w.b)
	if w.err != nil || err != nil {
		// Say which value, as Canonical does: a position in JSON that
		// was never printed would help no one.
		if cerr := l.canonical(false); cerr != nil {
			return cerr
		}
		return fmt.Errorf("encoding log: %w", cmp.Or(w.err, err))
	}
	if len(w.streamed) == 0 {
		_, err = out.Write(b)
		return err
	}
	return w.stream(out, b)
}

// sizeHint estimates the size of the log's JSON, with room for
// canonicalization to work in place.
func (l *Log) sizeHint() int {
	n := 1024 + len(l.Metadata) + len(l.Model.Parameters) + l.SystemPrompt.sizeHint()
	for _, p := range l.Prompts {
		n += p.Content.sizeHint() + partsHint(p.Parts) + 32
	}
	for _, f := range l.Inputs {
		n += f.Content.sizeHint() + len(f.Name) + 64
	}
	for _, s := range l.Steps {
		n += len(s.Parameters) + len(s.Metadata) + s.Output.sizeHint() + s.Reasoning.sizeHint() + partsHint(s.OutputParts) + 128
	}
	for _, o := range l.Outputs {
		n += o.Content.sizeHint() + len(o.Name) + len(o.Notes) + 64
	}
	return n + n/8
}

func partsHint(ps []Part) int {
	n := 0
	for _, p := range ps {
		n += p.Content.sizeHint() + 64
	}
	return n
}

// writer appends JSON; canonicalization orders the members afterwards.
// Objects to stream are written as placeholder strings (see stream.go).
// It is hand-written rather than json.Marshal of tagged structs because a
// member's name depends on the form of its content (content, output,
// reasoning, their _base64, path and _ref forms) and because a log's own
// string tokens and an importer's JSON string literals (Quoted) are copied
// as they are, never decoded and re-encoded: tool outputs are most of an
// import's bytes (BenchmarkClaudeCode50MB, docs/performance.md).
type writer struct {
	b     []byte
	comma bool

	streamed []streamed
	nonce    string
	err      error // a large string literal that is not valid JSON text (inMemory)
}

func (w *writer) elem() {
	if w.comma {
		w.b = append(w.b, ',')
	}
	w.comma = true
}

func (w *writer) key(k string) {
	w.elem()
	w.b, _ = jsontext.AppendQuote(w.b, k)
	w.b = append(w.b, ':')
	w.comma = false
}

func (w *writer) open(c byte) {
	w.b = append(w.b, c)
	w.comma = false
}

func (w *writer) close(c byte) {
	w.b = append(w.b, c)
	w.comma = true
}

// list opens the array member k when it has n > 0 elements; end closes it.
func (w *writer) list(k string, n int) {
	if n > 0 {
		w.key(k)
		w.open('[')
	}
}

func (w *writer) end(n int) {
	if n > 0 {
		w.close(']')
	}
}

func (w *writer) str(k, s string) {
	w.key(k)
	w.b, _ = jsontext.AppendQuote(w.b, s)
	w.comma = true
}

func (w *writer) optStr(k, s string) {
	if s != "" {
		w.str(k, s)
	}
}

func (w *writer) num(k string, n int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, n, 10)
	w.comma = true
}

func (w *writer) raw(k string, v jsontext.Value) {
	if len(v) == 0 {
		return
	}
	w.key(k)
	w.b = append(w.b, v...)
	w.comma = true
}

// content writes c under the member of keys its form needs: bytes in
// memory as text when they are UTF-8, else (or when binary) as base64.
func (w *writer) content(keys keySet, c *Content) { w.contentAs(keys, c, false) }

func (w *writer) contentAs(keys keySet, c *Content, binary bool) {
	if c == nil {
		return
	}
	switch c.kind {
	case inline:
		if len(c.raw) > streamAbove {
			w.inMemory(keys[0], c)
			break
		}
		w.raw(keys[0], c.raw)
	case base64Text:
		w.raw(keys[1], c.raw)
	case file:
		w.str(keys[2], c.file)
	case ref:
		if c.from == nil {
			w.str(keys[3], c.ref.String())
			break
		}
		if !binary && c.isText {
			w.placeholder(keys[0], c, true)
		} else {
			w.placeholder(keys[1], c, false)
		}
	case text:
		if !binary && len(c.text) > streamAbove && utf8.ValidString(c.text) {
			w.inMemory(keys[0], c)
		} else if !binary && utf8.ValidString(c.text) {
			w.str(keys[0], c.text)
		} else {
			w.str(keys[1], base64.StdEncoding.EncodeToString([]byte(c.text)))
		}
	case data:
		if !binary && len(c.data) > streamAbove && utf8.Valid(c.data) {
			w.inMemory(keys[0], c)
		} else if !binary && utf8.Valid(c.data) {
			w.str(keys[0], string(c.data))
		} else {
			w.str(keys[1], base64.StdEncoding.EncodeToString(c.data))
		}
	}
	if c.stated >= 0 {
		w.num("size", c.stated)
	}
}

// observed writes a step's observed files.
func (w *writer) observed(os []Observed) {
	if os == nil {
		return
	}
	w.key("observed")
	w.open('[')
	for _, o := range os {
		w.elem()
		w.open('{')
		w.str("name", o.Name)
		if o.Deleted {
			w.raw("deleted", jsontext.Value("true"))
		}
		w.optStr("skipped", o.Skipped)
		if o.Content != nil {
			w.content(contentKeys, o.Content)
		}
		w.close('}')
	}
	w.close(']')
}

func (w *writer) parts(k string, ps []Part) {
	if ps == nil {
		return
	}
	w.key(k)
	w.open('[')
	for _, p := range ps {
		w.elem()
		w.open('{')
		w.str("type", p.Type)
		w.optStr("media_type", p.MediaType)
		w.contentAs(contentKeys, p.Content, p.Type != manifest.PartText)
		w.close('}')
	}
	w.close(']')
}
