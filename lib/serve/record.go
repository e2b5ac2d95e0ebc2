package serve

import (
	"cmp"
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
	Title   string // the session's recorded title, if any
	Threads []*Thread
	// Prompts are the texts of the pack's user prompts, in order.
	Prompts []string
	// Harness are the prompts the agent's harness wrote, in order.
	Harness []HarnessPrompt
}

// A HarnessPrompt is a prompt of role "harness".
type HarnessPrompt struct {
	Kind  string // metadata.prompts[i].harness: "compact-summary", "command", …
	Text  string
	After int // the user prompts before it
}

// sideAnswer answers an agent's side request of kind, or returns nil
// when it is none or the packs hold no answer. A "title" is the
// session's recorded title, else the first line of its first prompt. A
// "compact" is the model's answer the pack's compaction summary was made
// from (Agent.Summary): the first for a conversation that holds no
// summary yet, the second for one that holds one, and so on.
func (r *Recording) sideAnswer(kind string, c *Conv, ag *Agent) *Answer {
	switch kind {
	case "title":
		a := &Answer{ID: "ctxside", Stop: "stop"}
		for _, p := range r.Packs {
			if p.Title != "" {
				a.Text = p.Title
				return a
			}
			if len(p.Prompts) > 0 {
				line, _, _ := strings.Cut(strings.TrimSpace(p.Prompts[0]), "\n")
				a.Text = excerpt(line)
				return a
			}
		}
		a.Text = "Session"
		return a
	case "compact":
		if ag.Summary == nil {
			return nil
		}
		n := 0
		for _, it := range c.Items {
			if _, ok := ag.Summary(it.Text); ok && it.Kind == UserText {
				n++
			}
		}
		for _, p := range r.Packs {
			k := 0
			for _, h := range p.Harness {
				if h.Kind != "compact-summary" {
					continue
				}
				if k == n {
					text, _ := ag.Summary(h.Text)
					return &Answer{ID: fmt.Sprintf("ctx%scompact%d", p.Hash.Hex()[:12], n), Text: text, Stop: "end_turn"}
				}
				k++
			}
		}
	}
	return nil
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
	p.Title = meta.Get("session.title").String()
	kinds := map[int64]string{}
	meta.Get("prompts").ForEach(func(_, v gjson.Result) bool {
		if i := v.Get("index"); i.Exists() {
			kinds[i.Int()] = v.Get("harness").String()
		}
		return true
	})
	for i, pr := range m.Prompts {
		if pr.Role != "user" && pr.Role != "harness" {
			continue
		}
		text, err := promptText(s, pr)
		if err != nil {
			return nil, fmt.Errorf("prompts[%d]: %w", i, err)
		}
		if pr.Role == "harness" {
			p.Harness = append(p.Harness, HarnessPrompt{Kind: kinds[int64(i)], Text: text, After: len(p.Prompts)})
		} else {
			p.Prompts = append(p.Prompts, text)
		}
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
		md := readMeta(st.Metadata)
		switch st.Type {
		case manifest.LLMCall:
			t := thread(st.Agent)
			if len(t.Turns) == 0 && st.Agent != "" {
				t.Opening = md.agentPrompt
			}
			turn := &Turn{Thread: t, Pos: len(t.Turns), Step: st.Index, Text: st.OutputRef,
				Reasoning: st.ReasoningRef, Usage: st.Usage, Model: md.model, Signature: md.signature, Stop: md.stop, ID: md.id}
			if turn.Model == "" {
				turn.Model = p.Model
			}
			t.Turns = append(t.Turns, turn)
		case manifest.ToolCall:
			t := threads[st.Agent]
			if t == nil || len(t.Turns) == 0 {
				continue // a call no recorded turn made: nothing to answer with
			}
			turn := t.Turns[len(t.Turns)-1]
			c := &Call{Step: st.Index, ID: md.callID, Name: st.Tool,
				Input: st.Parameters, Output: st.OutputRef, Error: st.Error != nil, Custom: md.custom}
			if ns := md.namespace; ns != "" && strings.HasPrefix(c.Name, ns) {
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

// meta is what serving reads of a step's metadata.
type meta struct {
	model, signature, stop, id, callID, agentPrompt, namespace string
	custom                                                     bool
}

// readMeta reads a step's metadata in one pass over its members: a
// session's metadata is most of its manifest, and a pack of thousands
// of steps is read before ctx-serve listens.
func readMeta(b []byte) meta {
	var m meta
	var stop, finish, finishCamel, id, respID string
	gjson.ParseBytes(b).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "model":
			m.model = v.String()
		case "content":
			v.ForEach(func(_, c gjson.Result) bool {
				if c.Get("type").String() == "thinking" {
					m.signature = c.Get("signature").String()
					return false
				}
				return true
			})
		case "stop_reason":
			stop = v.String()
		case "finish_reason":
			finish = v.String()
		case "finishReason":
			finishCamel = v.String()
		case "id":
			id = v.String()
		case "response_id":
			respID = v.String()
		case "call_id":
			m.callID = v.String()
		case "namespace":
			m.namespace = v.String()
		case "agent_prompts":
			m.agentPrompt = v.Get("0.content").String()
		case "item_type", "type":
			m.custom = m.custom || v.String() == "custom_tool_call"
		}
		return true
	})
	m.stop = cmp.Or(stop, finish, finishCamel)
	m.id = cmp.Or(id, respID)
	return m
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
