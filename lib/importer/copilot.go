package importer

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// GitHub Copilot CLI sessions (~/.copilot/session-state/<id>/events.jsonl):
// one session event per line, {type, id, timestamp, parentId, data},
// typed as github/copilot-sdk's generated session-events declare them.
//
// system.message is the system prompt (a later, different one a prompt
// of role system). user.message is a prompt (its attachments' blobs are
// parts; the text the CLI sent instead, transformedContent, is kept in
// its metadata); one the CLI wrote itself (autopilot's continuation:
// empty content, only transformedContent) is a prompt of role harness,
// its text transformedContent, its kind in metadata. assistant.message
// is a model turn: content its output, reasoningText (or the
// assistant.reasoning events before it) its reasoning, toolRequests its
// calls, outputTokens its usage; the assistant.usage after it its whole
// usage (inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens,
// reasoningTokens; cost, duration and the rest in metadata.usage) and
// its model the run's. tool.execution_complete is a call's result
// (success false fails it, with error.message), its image contents
// parts. Messages and calls of a subagent carry parentToolCallId: they
// are the steps of the agent named by that call's id, started by it.
// The session's other events (session.*, subagent.*, abort, hook.*,
// permission.*, …) are kept in order in metadata.events; streaming
// deltas, which the whole message repeats, are skipped.

func importCopilot(b *Builder, data []byte) error {
	c := &copilotImport{b: b, pending: map[string][]string{}}
	err := b.jsonLines(data, func(where string, rec gjson.Result) error {
		return c.event(where, rec)
	})
	if err != nil {
		return err
	}
	if b.mapped == 0 {
		return b.Errorf("", "the input holds no Copilot CLI session event")
	}
	b.agentFiles()
	return nil
}

type copilotImport struct {
	b       *Builder
	pending map[string][]string // reasoning not yet given to a message, by agent
}

// agent returns the agent of an event's data: "" for the main agent,
// else the id of the call that started the subagent.
func copilotAgent(d gjson.Result) string { return d.Get("parentToolCallId").String() }

func (c *copilotImport) event(where string, rec gjson.Result) error {
	b := c.b
	typ := rec.Get("type").String()
	d := rec.Get("data")
	ts := timestamp(rec.Get("timestamp"))
	if typ == "" || !rec.Get("data").Exists() {
		b.skip("a line that is no session event")
		return nil
	}
	switch {
	case strings.HasSuffix(typ, "_delta") || typ == "assistant.message_start" || typ == "tool.execution_partial_result" || typ == "tool.execution_progress":
		b.skip("streaming event (the whole message or result repeats it)")
		return nil
	}
	b.MapRecord()
	switch typ {
	case "session.start":
		b.seen(ts)
		if cwd := d.Get("context.cwd").String(); cwd != "" {
			b.root(cwd)
		}
		b.Tool("copilot", d.Get("copilotVersion").String())
		b.Meta.Set("session", raw(d))
	case "system.message":
		// The system prompt (and later ones) the CLI sent.
		var meta Obj
		meta.Set("system_message", rest(d, "content").Raw())
		b.systemPrompt(d.Get("content").String(), meta)
	case "session.model_change":
		if b.agentModel == "" {
			b.agentModel = d.Get("newModel").String() // the model asked for, if none answered
		}
		c.appendEvent(rec)
	case "user.message":
		m := &msg{role: "user", ts: ts}
		m.addText(d.Get("content").String())
		m.meta = rest(d, "content", "attachments")
		if kind := copilotHarness(d); kind != "" {
			// Text the CLI sent by itself: the text is what it sent.
			m.role = HarnessRole
			if t := d.Get("transformedContent").String(); t != "" {
				m.text = t
			}
			m.meta = rest(d, "content", "attachments", "transformedContent")
			m.meta.SetString("harness", kind)
		}
		var parts []execlog.Part
		var other List
		for _, a := range elems(d.Get("attachments")) {
			if a.Get("type").String() == "blob" && a.Get("data").Type == gjson.String {
				p := execlog.Part{Type: geminiPartType(a.Get("mimeType").String()), MediaType: a.Get("mimeType").String(),
					Content: execlog.Base64(a.Get("data").Str)}
				if b.validBase64(p, a.Get("data").Str, where) {
					parts = append(parts, p)
					continue
				}
			}
			other = append(other, raw(a))
		}
		m.meta.Set("attachments", other.Raw())
		if len(parts) > 0 {
			m.parts = append([]execlog.Part{{Type: manifest.PartText, Content: execlog.Text(m.text)}}, parts...)
		}
		if a := copilotAgent(d); a != "" {
			c.agentPrompt(a, m)
			return nil
		}
		b.add(m)
	case "assistant.reasoning":
		a := copilotAgent(d)
		c.pending[a] = append(c.pending[a], d.Get("content").String())
	case "assistant.message":
		a := copilotAgent(d)
		m := &msg{role: "assistant", ts: ts}
		if t := d.Get("content").String(); t != "" {
			m.addText(t)
		}
		m.reasoning = c.pending[a]
		delete(c.pending, a)
		if r := d.Get("reasoningText"); r.Type == gjson.String && r.Str != "" {
			m.reasoning = append(m.reasoning, r.Str)
		}
		if v := d.Get("model"); v.Type == gjson.String {
			m.params = Obj{{"model", raw(v)}}.Raw()
		}
		m.meta = rest(d, "content", "reasoningText", "toolRequests", "model", "parentToolCallId")
		for _, tr := range elems(d.Get("toolRequests")) {
			m.calls = append(m.calls, &Call{id: tr.Get("toolCallId").String(), Name: tr.Get("name").String(),
				Args: args(tr.Get("arguments")), meta: rest(tr, "toolCallId", "name", "arguments")})
		}
		first := len(b.Steps)
		b.add(m)
		c.assign(first, a)
		if n, ok := copilotCount(d.Get("outputTokens")); ok && first < len(b.Steps) && b.Steps[first].Type == LLMCall {
			// The turn's usage until an assistant.usage gives all of it
			// (none follows some turns: autopilot's).
			b.Steps[first].Usage = &manifest.Usage{OutputTokens: &n}
		}
	case "assistant.usage":
		c.usage(d, copilotAgent(d))
	case "tool.execution_start":
		id := d.Get("toolCallId").String()
		s := b.calls[id]
		if s == nil {
			first := len(b.Steps)
			s = b.Call(&Call{id: id, Name: d.Get("toolName").String(), Args: args(d.Get("arguments")), ts: ts}, "")
			c.assign(first, copilotAgent(d))
		}
		s.Meta.Set("execution_start", rest(d, "toolCallId", "toolName", "parentToolCallId").Raw())
	case "tool.execution_complete":
		r := &result{id: d.Get("toolCallId").String(), ts: ts}
		res := d.Get("result")
		if cont := res.Get("content"); cont.Exists() {
			r.setOutput(cont)
		}
		var parts []execlog.Part
		for _, p := range elems(res.Get("contents")) {
			if p.Get("type").String() == "image" || p.Get("type").String() == "audio" {
				part := execlog.Part{Type: p.Get("type").String(), MediaType: p.Get("mimeType").String(), Content: execlog.Base64(p.Get("data").String())}
				if b.validBase64(part, p.Get("data").String(), where) {
					parts = append(parts, part)
				}
			}
		}
		if len(parts) > 0 {
			r.parts = append([]execlog.Part{{Type: manifest.PartText, Content: execlog.Text(r.text())}}, parts...)
		}
		if d.Get("success").Type == gjson.False {
			r.isError = true
			r.failure.Msg = d.Get("error.message").String()
			if !r.hasOut && r.failure.Msg != "" {
				r.output, r.hasOut = r.failure.Msg, true
			}
		}
		if r.isError {
			r.failure.ExitCode = copilotExitCode(r.text())
		}
		r.meta = rest(d, "toolCallId", "result.content", "result.contents", "success", "parentToolCallId")
		b.result(r)
	default:
		if typ == "abort" {
			b.Warn("%s: the user aborted a turn (kept in metadata.events)", where)
		}
		c.appendEvent(rec)
	}
	return nil
}

func (c *copilotImport) appendEvent(rec gjson.Result) {
	c.b.AppendMeta("events", raw(rec))
}

// assign makes the steps from first on a subagent's, started by the call
// whose id is its name.
func (c *copilotImport) assign(first int, agent string) {
	if agent == "" {
		return
	}
	parent, ok := c.b.calls[agent]
	for _, s := range c.b.Steps[first:] {
		s.Agent = agent
		if ok && parent.Index < s.Index {
			p := parent.Index
			s.ParentStep = &p
		}
	}
}

// agentPrompt keeps a subagent's prompt with its first step's metadata,
// as for Claude Code: it is no prompt of the run.
func (c *copilotImport) agentPrompt(agent string, m *msg) {
	o := Obj{}
	o.SetString("agent", agent)
	o.SetString("content", m.text)
	o = join(o, m.meta)
	c.b.AppendMeta("agent_prompts", o.Raw())
}

// usage gives an assistant.usage event's counts to the agent's latest
// model turn that has none.
func (c *copilotImport) usage(d gjson.Result, agent string) {
	b := c.b
	b.SetModel(d.Get("model").String())
	u := &manifest.Usage{}
	names := map[string]**int64{"inputTokens": &u.InputTokens, "outputTokens": &u.OutputTokens,
		"cacheReadTokens": &u.CacheReadTokens, "cacheWriteTokens": &u.CacheCreationTokens, "reasoningTokens": &u.ReasoningTokens}
	var left Obj
	found := false
	each(d, func(k, v gjson.Result) bool {
		if dst, ok := names[k.Str]; ok {
			if n, ok := copilotCount(v); ok {
				*dst, found = &n, true
				return true
			}
		}
		if k.Str != "parentToolCallId" {
			left.Set(k.Str, raw(v))
		}
		return true
	})
	for i := len(b.Steps) - 1; i >= 0; i-- {
		s := b.Steps[i]
		if s.Type != LLMCall || s.Agent != agent {
			continue
		}
		if s.Meta.Get("usage") != nil {
			break // it has its assistant.usage
		}
		if found {
			s.Usage = u // the whole of what its outputTokens said
		}
		s.Meta.Set("usage", left.Raw())
		return
	}
	b.Warn("an assistant.usage event follows no model turn without usage; kept in metadata.events")
	b.AppendMeta("events", Obj{{"type", Quote("assistant.usage")}, {"data", raw(d)}}.Raw())
}

// copilotCount reads a token count: a JSON integer that fits an int64.
func copilotCount(v gjson.Result) (int64, bool) {
	if v.Type != gjson.Number || !isDigits(v.Raw) {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	return n, err == nil
}

// copilotHarness returns the kind of a user.message the CLI wrote, not
// the user: one whose displayed content is empty and whose text sent to
// the model (transformedContent) is not — autopilot's continuation,
// which newer versions also mark isAutopilotContinuation. Its source,
// when it names one, is its kind. "" for a message the user typed.
func copilotHarness(d gjson.Result) string {
	t := d.Get("transformedContent")
	if d.Get("isAutopilotContinuation").Type != gjson.True && (d.Get("content").String() != "" || t.Type != gjson.String || t.Str == "") {
		return ""
	}
	if src := d.Get("source").String(); src != "" {
		return src
	}
	return "autopilot-continuation"
}

// copilotExitCode reads the exit code the bash tool appends to its
// output: "<exited with exit code N>".
func copilotExitCode(out string) []byte {
	const mark = "<exited with exit code "
	i := strings.LastIndex(out, mark)
	if i < 0 {
		return nil
	}
	rest, ok := strings.CutSuffix(strings.TrimRight(out[i+len(mark):], "\n"), ">")
	if !ok || !isDigits(rest) {
		return nil
	}
	return []byte(rest)
}

// copilotFileTools are the tools that write files (Format.FileTools).
var copilotFileTools = map[string]FileTool{
	"create":      {Path: "path", Content: "file_text"},
	"str_replace": {Path: "path", Old: "old_str", New: "new_str"},
	"edit":        {Path: "path", Old: "old_str", New: "new_str"},
}
