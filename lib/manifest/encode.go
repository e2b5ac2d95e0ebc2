package manifest

import (
	"encoding/hex"
	"slices"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
)

// encodeCanonical writes m as marshal does, canonical JSON, without
// building it first and canonicalizing it after: members are written in
// canonical order, strings as canon.AppendString writes them, raw values
// (parameters, metadata) as they are when canon.IsCanonical says they are
// in canonical form already, which is how a parsed log and a loaded
// manifest hold them. It reports false for anything it would not write
// as marshal does — text that is not UTF-8, an integer beyond 2^53, a raw
// value not in canonical form, a zero digest where one is required — and
// marshal, which stays the definition, then gives the answer, bytes or
// error. FuzzEncodeCanonical holds the two to the same bytes. Re-packing a
// 3,555-step session, this was a sixth of its CPU time.
//
// A step given Encoded is written as those bytes, which are not copied:
// the document comes in parts, the encoded steps' among them (one part
// for steps adjacent in the same memory, as a prior manifest's are).
// With spans, it also returns where each step's JSON lies in the
// document.
func encodeCanonical(m *Manifest, spans bool) ([][]byte, []Span, bool) {
	n := 1024 + len(m.Metadata) + len(m.Model.Parameters) + len(m.Environment.Metadata)
	for i := range m.Steps {
		if s := &m.Steps[i]; s.Encoded == nil {
			n += 256 + len(s.Parameters) + len(s.Metadata)
		}
	}
	n += 256 * (len(m.Prompts) + len(m.Inputs) + len(m.Outputs))
	e := encoder{Writer: canon.Writer{B: make([]byte, 0, n)}}
	if spans {
		e.spans = make([]Span, 0, len(m.Steps))
	}
	e.manifest(m)
	e.flush()
	return e.doc, e.spans, e.Err() == nil
}

// A Span is where a value lies in a document's bytes: b[Start:End].
type Span struct{ Start, End int64 }

type encoder struct {
	canon.Writer          // B: written since the last part
	doc          [][]byte // the parts written
	off          int64    // the bytes of parts
	spans        []Span   // each step's, when asked for
}

// flush ends the current part. What is written next goes on in the same
// memory, after it.
func (e *encoder) flush() {
	if len(e.B) > 0 {
		e.doc = append(e.doc, e.B)
		e.off += int64(len(e.B))
		e.B = e.B[len(e.B):]
	}
}

// splice writes enc, a step's encoded bytes, as a part of its own, or as
// the end of the last part when enc follows it in memory after a comma,
// the comma being all that was written since.
func (e *encoder) splice(enc []byte) {
	if n := len(e.doc); n > 0 && len(e.B) == 1 && e.B[0] == ',' {
		p := e.doc[n-1]
		if next := len(p) + 1; len(enc) > 0 && cap(p) >= next+len(enc) && &enc[0] == &p[:next+1][next] && p[:next][len(p)] == ',' {
			e.doc[n-1] = p[:next+len(enc)]
			e.off += int64(1 + len(enc))
			e.B = e.B[:0]
			return
		}
	}
	e.flush()
	e.doc = append(e.doc, enc)
	e.off += int64(len(enc))
}

// at is the document's length so far.
func (e *encoder) at() int64 { return e.off + int64(len(e.B)) }

func (e *encoder) str(k, s string) {
	e.Key(k)
	e.String(s)
}

func (e *encoder) optStr(k, s string) {
	if s != "" {
		e.str(k, s)
	}
}

func (e *encoder) num(k string, n int64) {
	e.Key(k)
	e.Int(n)
}

func (e *encoder) boolean(k string, v bool) {
	e.Key(k)
	e.Bool(v)
}

// digest writes a digest that must be set.
func (e *encoder) digest(k string, d digest.Digest) {
	if d.IsZero() {
		e.Fail("a required digest is missing")
	}
	e.Key(k)
	e.B = append(e.B, `"`+digest.Algorithm+`:`...)
	e.B = hex.AppendEncode(e.B, d[:])
	e.B = append(e.B, '"')
	e.Literal() // written just now
}

func (e *encoder) optDigest(k string, d digest.Digest) {
	if !d.IsZero() {
		e.digest(k, d)
	}
}

// raw writes a JSON value given (omitzero: nil is left out).
func (e *encoder) raw(k string, v jsontext.Value) {
	if v == nil {
		return
	}
	e.Key(k)
	e.Raw(v)
}

func (e *encoder) manifest(m *Manifest) {
	e.Open('{')
	e.str("created", m.Created)
	e.environment(&m.Environment)
	e.optDigest("hash", m.Hash)
	e.array("inputs", len(m.Inputs), func(i int) { e.file(&m.Inputs[i]) })
	e.raw("metadata", m.Metadata)
	e.Key("model")
	e.Open('{')
	e.str("identifier", m.Model.Identifier)
	e.raw("parameters", m.Model.Parameters)
	e.Close('}')
	e.array("outputs", len(m.Outputs), func(i int) { e.output(&m.Outputs[i]) })
	e.optDigest("parent", m.Parent)
	e.array("prompts", len(m.Prompts), func(i int) {
		p := &m.Prompts[i]
		e.Open('{')
		e.optDigest("content_ref", p.ContentRef)
		e.parts("parts", p.Parts)
		e.str("role", p.Role)
		e.Close('}')
	})
	e.array("steps", len(m.Steps), func(i int) {
		start := e.at()
		if s := &m.Steps[i]; s.Encoded != nil {
			e.splice(s.Encoded)
			e.Literal() // in a part of its own
		} else {
			e.step(s)
		}
		if e.spans != nil {
			e.spans = append(e.spans, Span{start, e.at()})
		}
	})
	e.optDigest("system_prompt", m.SystemPrompt)
	e.str("version", m.Version)
	e.Close('}')
}

// array writes the member k, an array of n elements, each written by
// elem.
func (e *encoder) array(k string, n int, elem func(i int)) {
	e.Key(k)
	e.Open('[')
	for i := range n {
		e.Elem()
		elem(i)
	}
	e.Close(']')
}

func (e *encoder) environment(env *Environment) {
	e.Key("environment")
	e.Open('{')
	e.raw("metadata", env.Metadata)
	e.optStr("os", env.OS)
	e.optStr("runtime", env.Runtime)
	if env.ToolVersions != nil {
		e.Key("tool_versions")
		e.Open('{')
		keys := make([]string, 0, len(env.ToolVersions))
		for k := range env.ToolVersions {
			if !ascii(k) {
				e.Fail("a tool name is not ASCII") // canonical order is UTF-16's: marshal knows it
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			e.Name(k)
			e.String(env.ToolVersions[k])
		}
		e.Close('}')
	}
	e.Close('}')
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (e *encoder) file(f *File) {
	e.Open('{')
	e.optDigest("content_ref", f.ContentRef)
	if f.Lines != nil {
		e.Key("lines")
		e.Open('[')
		for _, r := range f.Lines {
			e.Elem()
			e.Open('[')
			e.Elem()
			e.Int(r[0])
			e.Elem()
			e.Int(r[1])
			e.Close(']')
		}
		e.Close(']')
	}
	e.optStr("media_type", f.MediaType)
	e.str("name", f.Name)
	e.optStr("seen", f.Seen)
	if f.Seen != SeenName {
		e.num("size", f.Size)
	}
	if f.TotalLines != 0 {
		e.num("total_lines", f.TotalLines)
	}
	e.Close('}')
}

func (e *encoder) output(o *Output) {
	e.Open('{')
	e.optStr("confidence", o.Confidence)
	e.digest("content_ref", o.ContentRef)
	e.optStr("media_type", o.MediaType)
	e.str("name", o.Name)
	e.optStr("notes", o.Notes)
	e.num("size", o.Size)
	e.Close('}')
}

func (e *encoder) parts(k string, ps []Part) {
	if ps == nil {
		return
	}
	e.array(k, len(ps), func(i int) {
		p := &ps[i]
		e.Open('{')
		e.digest("content_ref", p.ContentRef)
		e.optStr("media_type", p.MediaType)
		e.num("size", p.Size)
		e.str("type", p.Type)
		e.Close('}')
	})
}

func (e *encoder) step(s *Step) {
	e.Open('{')
	e.optStr("agent", s.Agent)
	e.boolean("deterministic", s.Deterministic)
	if s.Error != nil {
		e.Key("error")
		e.Open('{')
		if s.Error.ExitCode != nil {
			e.num("exit_code", *s.Error.ExitCode)
		}
		e.optStr("message", s.Error.Message)
		e.Close('}')
	}
	e.num("index", int64(s.Index))
	e.raw("metadata", s.Metadata)
	if s.Observed != nil {
		e.array("observed", len(s.Observed), func(i int) {
			o := &s.Observed[i]
			e.Open('{')
			e.optDigest("content_ref", o.ContentRef)
			if o.Deleted {
				e.boolean("deleted", true)
			}
			e.str("name", o.Name)
			if o.Size != 0 {
				e.num("size", o.Size)
			}
			e.optStr("skipped", o.Skipped)
			e.Close('}')
		})
	}
	e.parts("output_parts", s.OutputParts)
	e.optDigest("output_ref", s.OutputRef)
	e.raw("parameters", s.Parameters)
	if s.ParentStep != nil {
		e.num("parent_step", int64(*s.ParentStep))
	}
	e.optDigest("reasoning_ref", s.ReasoningRef)
	e.optStr("timestamp", s.Timestamp)
	e.optStr("tool", s.Tool)
	e.str("type", s.Type)
	if s.Usage != nil && !s.Usage.IsZero() { // marshal's omitzero
		e.Key("usage")
		e.Open('{')
		for _, f := range s.Usage.Fields() { // in canonical order
			if *f.Value != nil {
				e.num(f.Name, **f.Value)
			}
		}
		e.Close('}')
	}
	e.Close('}')
}
