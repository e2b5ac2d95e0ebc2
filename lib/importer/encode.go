package importer

import (
	"encoding/json"
	"sort"
)

// encoder writes the execution log straight into one buffer: raw values
// from the input are copied once, not re-validated and re-copied as
// encoding/json would. Member order does not matter (canonicalisation
// sorts), only that it is deterministic.
type encoder struct {
	b     []byte
	comma bool // the next member or element needs a comma before it
}

func (e *encoder) sep() {
	if e.comma {
		e.b = append(e.b, ',')
	}
	e.comma = true
}

func (e *encoder) key(k string) {
	e.sep()
	e.b = appendQuote(e.b, k)
	e.b = append(e.b, ':')
	e.comma = false
}

func (e *encoder) open(c byte) {
	e.b = append(e.b, c)
	e.comma = false
}

func (e *encoder) close(c byte) {
	e.b = append(e.b, c)
	e.comma = true
}

func (e *encoder) str(k, s string) {
	e.key(k)
	e.b = appendQuote(e.b, s)
	e.comma = true
}

// optStr writes a string member unless it is empty.
func (e *encoder) optStr(k, s string) {
	if s != "" {
		e.str(k, s)
	}
}

func (e *encoder) raw(k string, v json.RawMessage) {
	if len(v) == 0 {
		return
	}
	e.key(k)
	e.b = append(e.b, v...)
	e.comma = true
}

func (e *encoder) obj(k string, o obj) {
	if len(o) == 0 {
		return
	}
	e.key(k)
	e.open('{')
	for _, m := range o {
		e.raw(m.k, m.v)
	}
	e.close('}')
}

// encode writes the log as (not yet canonical) JSON.
func (l *execLog) encode(meta obj, stepMeta []obj) []byte {
	n := 1024
	for _, p := range l.Prompts {
		n += len(p.Content) + 32
	}
	for i, s := range l.Steps {
		n += len(s.Parameters) + 128
		if s.Output != nil {
			n += len(*s.Output) + 16
		}
		n += len(s.outLit)
		for _, m := range stepMeta[i] {
			n += len(m.k) + len(m.v) + 4
		}
	}
	for _, o := range l.Outputs {
		n += len(o.Content) + len(o.Name) + 32
	}
	e := &encoder{b: make([]byte, 0, n+n/8)}
	e.open('{')
	e.optStr("created", l.Created)
	e.key("model")
	e.open('{')
	e.str("identifier", l.Model.Identifier)
	e.raw("parameters", l.Model.Parameters)
	e.close('}')
	e.optStr("system_prompt", l.SystemPrompt)
	if len(l.Prompts) > 0 {
		e.key("prompts")
		e.open('[')
		for _, p := range l.Prompts {
			e.sep()
			e.open('{')
			e.str("role", p.Role)
			if p.Parts != nil {
				e.raw("parts", p.Parts)
			} else {
				e.str("content", p.Content)
			}
			e.close('}')
		}
		e.close(']')
	}
	e.key("steps")
	e.open('[')
	for i, s := range l.Steps {
		e.sep()
		e.open('{')
		e.raw("index", jsonInt(s.Index))
		e.str("type", s.Type)
		e.optStr("tool", s.Tool)
		e.raw("parameters", s.Parameters)
		if s.outLit != "" {
			e.raw("output", json.RawMessage(s.outLit))
		} else if s.Output != nil {
			e.str("output", *s.Output)
		}
		e.raw("output_parts", s.OutputParts)
		e.raw("deterministic", jsonBool(s.Deterministic))
		e.optStr("timestamp", s.Timestamp)
		e.raw("error", s.Error)
		e.raw("usage", s.Usage)
		if s.Reasoning != nil {
			e.str("reasoning", *s.Reasoning)
		}
		e.optStr("agent", s.Agent)
		if s.ParentStep != nil {
			e.raw("parent_step", jsonInt(*s.ParentStep))
		}
		e.obj("metadata", stepMeta[i])
		e.close('}')
	}
	e.close(']')
	if len(l.Outputs) > 0 {
		e.key("outputs")
		e.open('[')
		for _, o := range l.Outputs {
			e.sep()
			e.open('{')
			e.str("name", o.Name)
			e.str("content", o.Content)
			e.optStr("notes", o.Notes)
			e.close('}')
		}
		e.close(']')
	}
	if env := l.Environment; env != nil {
		e.key("environment")
		e.open('{')
		e.optStr("os", env.OS)
		e.optStr("runtime", env.Runtime)
		if len(env.ToolVersions) > 0 {
			names := make([]string, 0, len(env.ToolVersions))
			for name := range env.ToolVersions {
				names = append(names, name)
			}
			sort.Strings(names)
			e.key("tool_versions")
			e.open('{')
			for _, name := range names {
				e.str(name, env.ToolVersions[name])
			}
			e.close('}')
		}
		e.close('}')
	}
	e.obj("metadata", meta)
	e.close('}')
	return e.b
}
