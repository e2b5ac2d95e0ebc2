package execlog

import (
	"encoding/base64"
	"fmt"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Inline is a pack in log form with every content inlined: what ctx-show
// --resolve and ctx-fork print. Packing it gives back the same manifest
// (the same pack, when Parent is the manifest's own parent).
type Inline struct {
	Created      string               `json:"created"`
	Parent       digest.Digest        `json:"parent,omitzero"`
	Model        manifest.Model       `json:"model"`
	SystemPrompt *InlineContent       `json:"system_prompt,omitzero"`
	Prompts      []InlinePrompt       `json:"prompts"`
	Inputs       []InlineFile         `json:"inputs"`
	Steps        []InlineStep         `json:"steps"`
	Outputs      []InlineOutput       `json:"outputs"`
	Environment  manifest.Environment `json:"environment"`
	Metadata     jsontext.Value       `json:"metadata,omitzero"`
}

// InlineContent is content as text, or as base64 when it is not UTF-8.
type InlineContent struct {
	Content       *string `json:"content,omitzero"`
	ContentBase64 *string `json:"content_base64,omitzero"`
}

// InlinePrompt is a prompt with its content.
type InlinePrompt struct {
	Role string `json:"role"`
	InlineContent
}

// InlineFile is an input with its content.
type InlineFile struct {
	Name string `json:"name"`
	InlineContent
}

// InlineOutput is an output with its content.
type InlineOutput struct {
	Name string `json:"name"`
	InlineContent
	Confidence string `json:"confidence,omitzero"`
	Notes      string `json:"notes,omitzero"`
}

// InlineStep is a step with its output.
type InlineStep struct {
	Index         int            `json:"index"`
	Type          string         `json:"type"`
	Tool          string         `json:"tool,omitzero"`
	Parameters    jsontext.Value `json:"parameters,omitzero"`
	Output        *string        `json:"output,omitzero"`
	OutputBase64  *string        `json:"output_base64,omitzero"`
	Deterministic bool           `json:"deterministic"`
	Timestamp     string         `json:"timestamp,omitzero"`
	Metadata      jsontext.Value `json:"metadata,omitzero"`
}

// FromManifest reads every object m references (verifying each) and
// returns the pack in log form, with m's own parent.
func FromManifest(s *store.Store, m *manifest.Manifest) (*Inline, error) {
	get := func(d digest.Digest) (InlineContent, error) {
		b, err := s.Get(d)
		if err != nil {
			return InlineContent{}, err
		}
		str := string(b)
		if utf8.Valid(b) {
			return InlineContent{Content: &str}, nil
		}
		enc := base64.StdEncoding.EncodeToString(b)
		return InlineContent{ContentBase64: &enc}, nil
	}
	l := &Inline{
		Created: m.Created, Parent: m.Parent, Model: m.Model,
		Prompts: make([]InlinePrompt, len(m.Prompts)), Inputs: make([]InlineFile, len(m.Inputs)),
		Steps: make([]InlineStep, len(m.Steps)), Outputs: make([]InlineOutput, len(m.Outputs)),
		Environment: m.Environment, Metadata: m.Metadata,
	}
	var err error
	if !m.SystemPrompt.IsZero() {
		c, err := get(m.SystemPrompt)
		if err != nil {
			return nil, err
		}
		l.SystemPrompt = &c
	}
	for i, p := range m.Prompts {
		l.Prompts[i].Role = p.Role
		if l.Prompts[i].InlineContent, err = get(p.ContentRef); err != nil {
			return nil, err
		}
	}
	for i, f := range m.Inputs {
		l.Inputs[i].Name = f.Name
		if l.Inputs[i].InlineContent, err = get(f.ContentRef); err != nil {
			return nil, err
		}
	}
	for i, st := range m.Steps {
		l.Steps[i] = InlineStep{
			Index: st.Index, Type: st.Type, Tool: st.Tool, Parameters: st.Parameters,
			Deterministic: st.Deterministic, Timestamp: st.Timestamp, Metadata: st.Metadata,
		}
		if !st.OutputRef.IsZero() {
			c, err := get(st.OutputRef)
			if err != nil {
				return nil, err
			}
			l.Steps[i].Output, l.Steps[i].OutputBase64 = c.Content, c.ContentBase64
		}
	}
	for i, o := range m.Outputs {
		l.Outputs[i] = InlineOutput{Name: o.Name, Confidence: o.Confidence, Notes: o.Notes}
		if l.Outputs[i].InlineContent, err = get(o.ContentRef); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// JSON returns the log's canonical JSON.
func (l *Inline) JSON() ([]byte, error) {
	b, err := json.Marshal(l, json.Deterministic(true))
	if err != nil {
		return nil, fmt.Errorf("encoding log: %w", err)
	}
	return canon.Canonicalize(b)
}
