package execlog

import (
	"encoding/base64"
	"errors"
	"fmt"
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
// A pack can name one object many times; it is read once and shared.
// What the log would hold in all is bounded by MaxResolved, checked from
// the objects' sizes before anything is read: beyond it, ErrTooLarge.
func FromManifest(s *store.Store, m *manifest.Manifest) (*Log, error) {
	sizes := map[digest.Digest]int64{}
	var total int64
	for sl := range m.Slots() {
		if sl.Ref.IsZero() {
			continue
		}
		n, ok := sizes[*sl.Ref]
		if !ok {
			var err error
			if n, err = s.Size(*sl.Ref); err != nil {
				return nil, err
			}
			sizes[*sl.Ref] = n
		}
		if total += n; total > MaxResolved {
			return nil, fmt.Errorf("pack %s resolves to more than %d bytes of content (%s names %s, %d bytes): %w",
				m.Hash, MaxResolved, sl.Path, sl.Ref, n, ErrTooLarge)
		}
	}
	l := fromSkeleton(m)
	read := map[digest.Digest][]byte{}
	for sl := range m.Slots() {
		if sl.Ref.IsZero() {
			continue
		}
		b, ok := read[*sl.Ref]
		if !ok {
			var err error
			if b, err = s.Get(*sl.Ref); err != nil {
				return nil, err
			}
			read[*sl.Ref] = b
		}
		*l.slot(sl) = Bytes(b)
	}
	return l, nil
}

// MaxResolved bounds the content FromManifest puts in one log (counted
// once per reference, as the log holds it): 256 MiB. A pack can name one
// small object thousands of times; its log form is built in memory.
var MaxResolved int64 = 256 << 20

// ErrTooLarge reports a pack whose log form would exceed MaxResolved.
var ErrTooLarge = errors.New("too large to resolve in memory; read its objects with ctx-show --blob")

// JSON returns the log's canonical JSON. Content held in memory is
// written as text when it is UTF-8 (content, output, reasoning) and as
// base64 otherwise (content_base64, …), as are parts that are not text
// parts; content from a log keeps its form (a file stays "path", an object
// "content_ref").
func (l *Log) JSON() ([]byte, error) {
	w := &writer{}
	w.open('{')
	w.str("created", l.Created)
	if !l.Parent.IsZero() {
		w.str("parent", l.Parent.String())
	}
	w.key("model")
	w.open('{')
	w.str("identifier", l.Model.Identifier)
	w.raw("parameters", l.Model.Parameters)
	w.close('}')
	if l.SystemPrompt != nil {
		w.key("system_prompt")
		w.open('{')
		w.content(contentKeys, l.SystemPrompt)
		w.close('}')
	}
	w.key("prompts")
	w.open('[')
	for _, p := range l.Prompts {
		w.elem()
		w.open('{')
		w.str("role", p.Role)
		w.content(contentKeys, p.Content)
		w.parts("parts", p.Parts)
		w.close('}')
	}
	w.close(']')
	w.key("inputs")
	w.open('[')
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
	w.close(']')
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
		if e := s.Error; e != nil {
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
		w.close('}')
	}
	w.close(']')
	w.key("outputs")
	w.open('[')
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
	w.close(']')
	env := l.Environment
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
	w.raw("metadata", l.Metadata)
	w.close('}')
	b, err := canon.Canonicalize(w.b)
	if err != nil {
		return nil, fmt.Errorf("encoding log: %w", err)
	}
	return b, nil
}

// writer appends JSON; canonicalization orders the members afterwards.
type writer struct {
	b     []byte
	comma bool
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
		w.raw(keys[0], c.raw)
	case base64Text:
		w.raw(keys[1], c.raw)
	case file:
		w.str(keys[2], c.file)
	case ref:
		w.str(keys[3], c.ref.String())
	case data:
		if !binary && utf8.Valid(c.data) {
			w.str(keys[0], string(c.data))
		} else {
			w.str(keys[1], base64.StdEncoding.EncodeToString(c.data))
		}
	}
	if c.stated >= 0 {
		w.num("size", c.stated)
	}
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
