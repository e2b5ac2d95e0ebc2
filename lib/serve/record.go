package serve

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// A Recording is what packs hold of their model turns, arranged for
// answering requests: per pack, a thread per agent (the main agent's, "",
// and each subagent's), each the agent's llm_call steps in order with
// the tool calls each made. Content stays in the store until a request
// needs it.
type Recording struct {
	store *store.Store
	Packs []*Pack
}

// A Pack is one served pack.
type Pack struct {
	Hash    digest.Digest
	Model   string
	CWD     string // the session's recorded working directory, if any
	Threads []*Thread
	// Prompts are the texts of the pack's user prompts, in order.
	Prompts []string
}

// A Thread is one agent's conversation: its turns in order.
type Thread struct {
	Pack  *Pack
	Agent string // "" for the main agent
	// Opening is the first user text the thread starts from: the main
	// agent's first prompt, a subagent's prompt.
	Opening string
	Turns   []*Turn
}

// A Turn is one recorded model turn: the answer to one request.
type Turn struct {
	Thread    *Thread
	Pos       int // its place in Thread.Turns
	Step      int // the llm_call step's index
	Model     string
	Text      digest.Digest // zero when the turn said nothing
	Reasoning digest.Digest
	Signature string // the thinking block's signature (Anthropic)
	Usage     *manifest.Usage
	Stop      string // the recorded stop reason, if any
	ID        string // the recorded response or message id, if any
	Calls     []*Call
}

// A Call is one tool call a turn made, and what came of it.
type Call struct {
	Step   int
	ID     string
	Name   string
	Input  []byte // the step's parameters, as recorded (JSON)
	Output digest.Digest
	Error  bool
	// Custom says the call's input is free text (an OpenAI Responses
	// custom tool call, Codex's apply_patch): Input is a JSON string.
	Custom bool
	// Namespace is the namespace of a Responses function call (Codex's
	// MCP tools: "mcp__calc__"), which Name begins with.
	Namespace string
}

// Load arranges the packs ms, read from s, for serving.
func Load(s *store.Store, ms []*manifest.Manifest) (*Recording, error) {
	r := &Recording{store: s}
	for _, m := range ms {
		p, err := loadPack(s, m)
		if err != nil {
			return nil, fmt.Errorf("reading pack %s: %w", m.Hash, err)
		}
		r.Packs = append(r.Packs, p)
	}
	return r, nil
}

func loadPack(s *store.Store, m *manifest.Manifest) (*Pack, error) {
	p := &Pack{Hash: m.Hash, Model: m.Model.Identifier}
	meta := gjson.ParseBytes(m.Metadata)
	p.CWD = meta.Get("session.cwd").String()
	for i, pr := range m.Prompts {
		if pr.Role != "user" {
			continue
		}
		text, err := promptText(s, pr)
		if err != nil {
			return nil, fmt.Errorf("prompts[%d]: %w", i, err)
		}
		p.Prompts = append(p.Prompts, text)
	}
	threads := map[string]*Thread{}
	thread := func(agent string) *Thread {
		t := threads[agent]
		if t == nil {
			t = &Thread{Pack: p, Agent: agent}
			threads[agent] = t
			p.Threads = append(p.Threads, t)
		}
		return t
	}
	if len(p.Prompts) > 0 {
		thread("").Opening = p.Prompts[0]
	}
	for _, st := range m.Steps {
		if st.Encoded != nil {
			return nil, fmt.Errorf("steps[%d]: not decoded", st.Index)
		}
		md := gjson.ParseBytes(st.Metadata)
		switch st.Type {
		case manifest.LLMCall:
			t := thread(st.Agent)
			if len(t.Turns) == 0 && st.Agent != "" {
				t.Opening = md.Get("agent_prompts.0.content").String()
			}
			turn := &Turn{Thread: t, Pos: len(t.Turns), Step: st.Index, Text: st.OutputRef,
				Reasoning: st.ReasoningRef, Usage: st.Usage, Model: md.Get("model").String()}
			if turn.Model == "" {
				turn.Model = p.Model
			}
			md.Get("content").ForEach(func(_, c gjson.Result) bool {
				if c.Get("type").String() == "thinking" && turn.Signature == "" {
					turn.Signature = c.Get("signature").String()
				}
				return true
			})
			turn.Stop = firstString(md, "stop_reason", "finish_reason", "finishReason")
			turn.ID = firstString(md, "id", "response_id")
			t.Turns = append(t.Turns, turn)
		case manifest.ToolCall:
			t := threads[st.Agent]
			if t == nil || len(t.Turns) == 0 {
				continue // a call no recorded turn made: nothing to answer with
			}
			turn := t.Turns[len(t.Turns)-1]
			c := &Call{Step: st.Index, ID: md.Get("call_id").String(), Name: st.Tool,
				Input: st.Parameters, Output: st.OutputRef, Error: st.Error != nil}
			c.Custom = md.Get("item_type").String() == "custom_tool_call" || md.Get("type").String() == "custom_tool_call"
			if ns := md.Get("namespace").String(); ns != "" && strings.HasPrefix(c.Name, ns) {
				c.Namespace = ns
			}
			if len(c.Input) == 0 {
				c.Input = []byte("{}")
			}
			turn.Calls = append(turn.Calls, c)
		}
	}
	return p, nil
}

func firstString(r gjson.Result, keys ...string) string {
	for _, k := range keys {
		if v := r.Get(k); v.Type == gjson.String {
			return v.Str
		}
	}
	return ""
}

func promptText(s *store.Store, pr manifest.Prompt) (string, error) {
	if !pr.ContentRef.IsZero() {
		b, err := s.Get(pr.ContentRef)
		return string(b), err
	}
	var sb strings.Builder
	for _, part := range pr.Parts {
		if part.Type != manifest.PartText {
			continue
		}
		b, err := s.Get(part.ContentRef)
		if err != nil {
			return "", err
		}
		sb.Write(b)
	}
	return sb.String(), nil
}

// text reads an object as text; the zero digest is "".
func (r *Recording) text(d digest.Digest) (string, error) {
	if d.IsZero() {
		return "", nil
	}
	b, err := r.store.Get(d)
	return string(b), err
}
