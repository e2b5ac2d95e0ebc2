// Package copilot is what ctx knows of GitHub Copilot CLI: its session
// events' format (importer.Format), read into an execution log.
package copilot

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/importer"
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

// Name is the format's name, as given to ctx-pack --from.
const Name = "copilot-cli"

// Format is Copilot CLI sessions.
var Format = importer.Format{Name: Name, Noun: "session", Import: importCopilot, FileTools: fileTools, Match: match}

// match tells a session by its first event: a data object, a type in
// one of Copilot CLI's namespaces, an id or a timestamp.
func match(rec gjson.Result) bool {
	return rec.Get("data").IsObject() && copilotNamespace(rec.Get("type").String()) && (rec.Get("id").Exists() || rec.Get("timestamp").Exists())
}

// copilotNamespace reports whether an event type is one of Copilot CLI's
// ("session.start", "user.message", …).
func copilotNamespace(typ string) bool {
	ns, _, ok := strings.Cut(typ, ".")
	return ok && (ns == "session" || ns == "user" || ns == "assistant" || ns == "tool" || ns == "subagent")
}

func importCopilot(b *importer.Builder, data []byte) error {
	c := &copilotImport{b: b, pending: map[string][]string{}}
	err := b.JSONLines(data, func(where string, rec gjson.Result) error {
		return c.event(where, rec)
	})
	if err != nil {
		return err
	}
	if b.Mapped == 0 {
		return b.Errorf("", "the input holds no Copilot CLI session event")
	}
	b.AgentFiles()
	return nil
}

type copilotImport struct {
	b       *importer.Builder
	pending map[string][]string // reasoning not yet given to a message, by agent
}

// agent returns the agent of an event's data: "" for the main agent,
// else the id of the call that started the subagent.
func copilotAgent(d gjson.Result) string { return d.Get("parentToolCallId").String() }

func (c *copilotImport) event(where string, rec gjson.Result) error {
	b := c.b
	typ := rec.Get("type").String()
	d := rec.Get("data")
	ts := importer.Timestamp(rec.Get("timestamp"))
	if typ == "" || !rec.Get("data").Exists() {
		b.Skip("a line that is no session event")
		return nil
	}
	switch {
	case strings.HasSuffix(typ, "_delta") || typ == "assistant.message_start" || typ == "tool.execution_partial_result" || typ == "tool.execution_progress":
		b.Skip("streaming event (the whole message or result repeats it)")
		return nil
	}
	b.MapRecord()
	switch typ {
	case "session.start":
		b.Seen(ts)
		if cwd := d.Get("context.cwd").String(); cwd != "" {
			b.Root(cwd)
		}
		b.Tool("copilot", d.Get("copilotVersion").String())
		b.Meta.Set("session", importer.Raw(d))
	case "system.message":
		// The system prompt (and later ones) the CLI sent.
		var meta importer.Obj
		meta.Set("system_message", importer.Rest(d, "content").Raw())
		b.SystemPrompt(d.Get("content").String(), meta)
	case "session.model_change":
		if b.AgentModel == "" {
			b.AgentModel = d.Get("newModel").String() // the model asked for, if none answered
		}
		c.appendEvent(rec)
	case "user.message":
		m := &importer.Msg{Role: "user", TS: ts}
		m.AddText(d.Get("content").String())
		m.Meta = importer.Rest(d, "content", "attachments")
		if kind := copilotHarness(d); kind != "" {
			// Text the CLI sent by itself: the text is what it sent.
			m.Role = importer.HarnessRole
			if t := d.Get("transformedContent").String(); t != "" {
				m.Text = t
			}
			m.Meta = importer.Rest(d, "content", "attachments", "transformedContent")
			m.Meta.SetString("harness", kind)
		}
		var parts []execlog.Part
		var other importer.List
		for _, a := range importer.Elems(d.Get("attachments")) {
			if a.Get("type").String() == "blob" && a.Get("data").Type == gjson.String {
				p := execlog.Part{Type: importer.PartType(a.Get("mimeType").String()), MediaType: a.Get("mimeType").String(),
					Content: execlog.Base64(a.Get("data").Str)}
				if b.ValidBase64(p, a.Get("data").Str, where) {
					parts = append(parts, p)
					continue
				}
			}
			other = append(other, importer.Raw(a))
		}
		m.Meta.Set("attachments", other.Raw())
		if len(parts) > 0 {
			m.Parts = append([]execlog.Part{{Type: manifest.PartText, Content: execlog.Text(m.Text)}}, parts...)
		}
		if a := copilotAgent(d); a != "" {
			c.agentPrompt(a, m)
			return nil
		}
		b.Add(m)
	case "assistant.reasoning":
		a := copilotAgent(d)
		c.pending[a] = append(c.pending[a], d.Get("content").String())
	case "assistant.message":
		a := copilotAgent(d)
		m := &importer.Msg{Role: "assistant", TS: ts}
		if t := d.Get("content").String(); t != "" {
			m.AddText(t)
		}
		m.Reasoning = c.pending[a]
		delete(c.pending, a)
		if r := d.Get("reasoningText"); r.Type == gjson.String && r.Str != "" {
			m.Reasoning = append(m.Reasoning, r.Str)
		}
		if v := d.Get("model"); v.Type == gjson.String {
			m.Params = importer.Obj{{K: "model", V: importer.Raw(v)}}.Raw()
		}
		m.Meta = importer.Rest(d, "content", "reasoningText", "toolRequests", "model", "parentToolCallId")
		for _, tr := range importer.Elems(d.Get("toolRequests")) {
			m.Calls = append(m.Calls, &importer.Call{ID: tr.Get("toolCallId").String(), Name: tr.Get("name").String(),
				Args: importer.Args(tr.Get("arguments")), Meta: importer.Rest(tr, "toolCallId", "name", "arguments")})
		}
		first := len(b.Steps)
		b.Add(m)
		c.assign(first, a)
		if n, ok := copilotCount(d.Get("outputTokens")); ok && first < len(b.Steps) && b.Steps[first].Type == importer.LLMCall {
			// The turn's usage until an assistant.usage gives all of it
			// (none follows some turns: autopilot's).
			b.Steps[first].Usage = &manifest.Usage{OutputTokens: &n}
		}
	case "assistant.usage":
		c.usage(d, copilotAgent(d))
	case "tool.execution_start":
		id := d.Get("toolCallId").String()
		s := b.Calls[id]
		if s == nil {
			first := len(b.Steps)
			s = b.Call(&importer.Call{ID: id, Name: d.Get("toolName").String(), Args: importer.Args(d.Get("arguments")), TS: ts}, "")
			c.assign(first, copilotAgent(d))
		}
		s.Meta.Set("execution_start", importer.Rest(d, "toolCallId", "toolName", "parentToolCallId").Raw())
	case "tool.execution_complete":
		r := &importer.Result{ID: d.Get("toolCallId").String(), TS: ts}
		res := d.Get("result")
		if cont := res.Get("content"); cont.Exists() {
			r.SetOutput(cont)
		}
		var parts []execlog.Part
		for _, p := range importer.Elems(res.Get("contents")) {
			if p.Get("type").String() == "image" || p.Get("type").String() == "audio" {
				part := execlog.Part{Type: p.Get("type").String(), MediaType: p.Get("mimeType").String(), Content: execlog.Base64(p.Get("data").String())}
				if b.ValidBase64(part, p.Get("data").String(), where) {
					parts = append(parts, part)
				}
			}
		}
		if len(parts) > 0 {
			r.Parts = append([]execlog.Part{{Type: manifest.PartText, Content: execlog.Text(r.Text())}}, parts...)
		}
		if d.Get("success").Type == gjson.False {
			r.IsError = true
			r.Failure.Msg = d.Get("error.message").String()
			if !r.HasOut && r.Failure.Msg != "" {
				r.Output, r.HasOut = r.Failure.Msg, true
			}
		}
		if r.IsError {
			r.Failure.ExitCode = copilotExitCode(r.Text())
		}
		r.Meta = importer.Rest(d, "toolCallId", "result.content", "result.contents", "success", "parentToolCallId")
		b.Result(r)
	default:
		if typ == "abort" {
			b.Warn("%s: the user aborted a turn (kept in metadata.events)", where)
		}
		c.appendEvent(rec)
	}
	return nil
}

func (c *copilotImport) appendEvent(rec gjson.Result) {
	c.b.AppendMeta("events", importer.Raw(rec))
}

// assign makes the steps from first on a subagent's, started by the call
// whose id is its name.
func (c *copilotImport) assign(first int, agent string) {
	if agent == "" {
		return
	}
	parent, ok := c.b.Calls[agent]
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
func (c *copilotImport) agentPrompt(agent string, m *importer.Msg) {
	o := importer.Obj{}
	o.SetString("agent", agent)
	o.SetString("content", m.Text)
	o = importer.Join(o, m.Meta)
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
	var left importer.Obj
	found := false
	importer.Each(d, func(k, v gjson.Result) bool {
		if dst, ok := names[k.Str]; ok {
			if n, ok := copilotCount(v); ok {
				*dst, found = &n, true
				return true
			}
		}
		if k.Str != "parentToolCallId" {
			left.Set(k.Str, importer.Raw(v))
		}
		return true
	})
	for i := len(b.Steps) - 1; i >= 0; i-- {
		s := b.Steps[i]
		if s.Type != importer.LLMCall || s.Agent != agent {
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
	b.AppendMeta("events", importer.Obj{{K: "type", V: importer.Quote("assistant.usage")}, {K: "data", V: importer.Raw(d)}}.Raw())
}

// copilotCount reads a token count: a JSON integer that fits an int64.
func copilotCount(v gjson.Result) (int64, bool) {
	if v.Type != gjson.Number || !importer.IsDigits(v.Raw) {
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
	if !ok || !importer.IsDigits(rest) {
		return nil
	}
	return []byte(rest)
}

// fileTools are the tools that write files (importer.Format.FileTools).
var fileTools = map[string]importer.FileTool{
	"create":      {Path: "path", Content: "file_text"},
	"str_replace": {Path: "path", Old: "old_str", New: "new_str"},
	"edit":        {Path: "path", Old: "old_str", New: "new_str"},
}
