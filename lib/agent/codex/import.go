package codex

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/importer"
)

// Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): one
// {timestamp, type, payload} envelope per line. response_item payloads are
// OpenAI Responses API items; event_msg payloads repeat them for the UI.
// Older rollouts have no envelope: a session header, then bare items.

// How the format maps (lib/importer's package documentation says what
// every format shares). response_item payloads are Responses API items;
// event_msg lines mostly repeat them and are skipped, except token_count
// (each request's last_token_usage is its model turn's usage, unless a
// token_usage_record line, 0.16x and later, gave that turn its response's
// usage and id), exec_command_end (a command's exit code and streams),
// mcp_tool_call_end (an MCP tool's error, which its output item does not
// say), 0.16x's item_completed of a CommandExecution or McpToolCall (the
// same, kept with the call's result) and turn_aborted (a user interrupt,
// kept with the turn it ended); the turn lifecycle and failure events
// (task_started, task_complete with the turn's duration, error,
// stream_error, warning, context_compacted, …) repeat no item and are
// kept, in order, in metadata.events. A user_message event whose text no
// user message item holds is a user prompt of its own, an agent_message no
// assistant message holds a model turn. An event type the importer does
// not know is skipped with that reason. A call's failure and exit code are
// also read from what Codex wrote to the model (fail.go): the {"output",
// "metadata": {"exit_code"}} JSON of older rollouts, the header above
// "Output:" ("Exit code: N", unified exec's "Process exited with code N"),
// sandbox refusals, the texts Codex answers instead of running a call, a
// declined command. Codex's own context items (AGENTS.md,
// <environment_context>, <permissions instructions>, <user_shell_command>,
// <turn_aborted>, …; prompts.go) are harness prompts of their kind, told
// by the markers Codex tells them by, and a compacted record's summary is
// a harness prompt of kind "compact-summary". Each llm_call names in
// metadata.model the model of the turn_context before it.

// codexState is what a Codex import has gathered from the lines it has
// read: everything a later line, or the end of the import, reads. With
// the builder, it is what a checkpoint saves (importer.ReadLines).
type codexState struct {
	items     *importer.ItemReader
	hs        importer.Harness // tells Codex's own context items (codexContextItem)
	contexts  []importer.Obj   // the turn contexts, as places in the rollout until the end
	lastCtx   string
	execs     map[string]gjson.Result // exec_command_end events by call id
	execOrder []string
	execTS    map[string]string
	lastInfo  string
	said      []userEvent
	ws        *codexWorkspaceReader // the workspace read with the lines
}

// codexImport reads a Codex rollout's lines into its codexState.
type codexImport struct {
	codexState
}

func importCodex(b *importer.Builder, data []byte) error {
	x := &codexImport{codexState{
		items: importer.NewItemReader(b), hs: importer.Harness{Marked: true},
		execs: map[string]gjson.Result{}, execTS: map[string]string{},
	}}
	// The lines a checkpoint covers are read no more (importer.ReadLines); the
	// workspace is read with the lines once the working directory is
	// known.
	err := importer.ReadLines(b, data, func(where string, rec gjson.Result) error { return x.line(b, where, rec) }, importer.Resume[codexState]{
		State: &x.codexState,
		Restore: func(s *codexState) bool {
			if s.items == nil {
				return false
			}
			x.codexState = *s
			x.items.Resume(b)
			return true
		},
		Workspace: func(from, to int) {
			switch {
			case len(b.Roots) == 0:
				x.ws = nil
			case x.ws == nil:
				x.ws = newCodexWorkspaceReader(b.Roots[0])
				x.ws.read(data[:to])
			default:
				x.ws.read(data[from:to])
			}
		},
	})
	if err != nil {
		return err
	}
	if b.Mapped == 0 && b.Records > 0 {
		return b.Errorf("", "not %s: no line is a session_meta, turn_context or response_item record", b.Format().Describe())
	}
	var contexts importer.List
	for _, c := range x.contexts {
		contexts = append(contexts, c.Raw())
	}
	b.Meta.Set("turn_contexts", contexts.Raw())
	msgs, err := codexUserEvents(b, x.items.Done(), x.said)
	if err != nil {
		return err
	}
	answered := map[string]bool{}
	for _, m := range msgs {
		for _, r := range m.Results {
			answered[r.ID] = true
			codexExit(r, x.execs[r.ID])
			if ts := x.execTS[r.ID]; ts != "" && x.execs[r.ID].Exists() {
				r.Meta.Set(endKey(x.execs[r.ID])+"_timestamp", importer.Quote(ts))
			}
		}
	}
	// A command whose output item is missing still has its event.
	for _, id := range x.execOrder {
		if answered[id] || id == "" {
			continue
		}
		e := x.execs[id]
		r := &importer.Result{ID: id, TS: x.execTS[id]}
		switch res := e.Get("result"); {
		case e.Get("type").String() == "McpToolCall":
			// 0.16x: the CallToolResult itself.
			r.Output, r.HasOut = importer.OutputText(res.Get("content")), res.Exists()
		case res.Exists():
			// An MCP result: {"Ok": CallToolResult} or {"Err": text}.
			if ok := res.Get("Ok"); ok.Exists() {
				r.Output, r.HasOut = importer.OutputText(ok.Get("content")), true
			} else {
				r.SetOutput(res.Get("Err"))
			}
		default:
			r.SetOutput(e.Get("aggregated_output"))
		}
		codexExit(r, e)
		r.Meta.Set("output_from", importer.Quote(endKey(e)))
		msgs = append(msgs, &importer.Msg{Role: "tool", Results: []*importer.Result{r}})
	}
	importer.TakeUsages(msgs)
	for _, m := range msgs {
		b.Add(m)
	}
	if x.ws != nil {
		b.Workspace = x.ws.w
	}
	return nil
}

// line reads one rollout line: session and turn metadata, a response
// item, an event, or a line kept aside or skipped.
func (x *codexImport) line(b *importer.Builder, where string, rec gjson.Result) error {
	ts := importer.Timestamp(rec.Get("timestamp"))
	typ := rec.Get("type").String()
	payload := rec.Get("payload")
	payloadAt := importer.At(where, "payload")
	if !payload.Exists() {
		switch {
		case rec.Get("record_type").Exists():
			// Older rollouts' state lines ({"record_type": "state"}):
			// the CLI's own bookkeeping, no message, call or usage.
			rt := rec.Get("record_type").String()
			b.SkipKind("record_type/"+rt, rec, fmt.Sprintf("record_type %q (a kind of rollout line this importer does not know)", rt))
			return nil
		case importer.IsItem(typ, rec):
			typ, payload, payloadAt = "response_item", rec, where
		case rec.Get("id").Exists() && rec.Get("timestamp").Exists():
			typ, payload = "session_meta", rec
		}
	}
	switch typ {
	case "session_meta":
		return x.sessionMeta(b, payload, payloadAt, ts)
	case "turn_context":
		return x.turnContext(b, payload, payloadAt)
	case "response_item":
		n := len(x.items.Messages())
		if err := x.items.Add(payload, payloadAt, ts); err != nil {
			return err
		}
		if msgs := x.items.Messages(); len(msgs) > n {
			// The item ended with a message of its own, not the
			// model's: one of Codex's context items is a harness
			// prompt (and may hold one to come before it).
			if before := codexContextItem(b, &x.hs, msgs[len(msgs)-1], payload.Get("content"), payloadAt); before != nil {
				x.items.Insert(len(msgs)-1, before)
			}
		}
		b.MapRecord()
	case "inter_agent_communication":
		// A message another agent (a parent, a peer) sent this one:
		// what it says reaches the model, and no other line holds it.
		if x.harnessText(b, payload, ts, "content", "agent-message", "inter_agent_communication without content") != nil {
			b.MapRecord()
		}
	case "world_state":
		// The context Codex builds its developer and context items
		// from (0.16x and later), which it diffs on resume: its
		// hashes of instructions and the tools' descriptions are in no
		// other line, so it is kept, in order.
		b.AppendMeta("world_states", importer.Join(importer.Obj{{K: "timestamp", V: importer.Quote(ts)}}, importer.Rest(payload)).Raw())
		b.MapRecord()
	case "token_usage_record":
		// One response's usage, with its id (0.16x and later).
		usageRecord(b, x.items, payload, ts)
		b.MapRecord()
	case "inter_agent_communication_metadata":
		// The thread's bookkeeping as Codex restores it; what reached
		// the model is in the response items.
		b.Skip(b.Reason(typ))
	case "compacted":
		// The history was compacted: message is the summary the
		// model sees from then on, in place of what came before
		// (replacement_history, in newer versions, is that new
		// history: the user's earlier messages and the summary again,
		// which the log already holds; only its length is kept).
		m := x.harnessText(b, payload, ts, "message", "compact-summary", "compacted without a message", "replacement_history")
		if m == nil {
			return nil
		}
		if h := payload.Get("replacement_history"); h.IsArray() {
			m.Meta.Set("replacement_history_items", importer.JSONInt(len(h.Array())))
		}
		b.MapRecord()
	case "event_msg":
		x.event(b, where, payload, ts)
	default:
		b.SkipKind(typ, rec, fmt.Sprintf("record type %q (a kind of rollout line this importer does not know)", typ))
	}
	return nil
}

// sessionMeta reads a session_meta payload: the working directory,
// the CLI version, the system prompt and the session's metadata.
func (x *codexImport) sessionMeta(b *importer.Builder, payload gjson.Result, payloadAt, ts string) error {
	if !payload.IsObject() {
		return b.Errorf(payloadAt, "expected an object, got %s", importer.Kind(payload))
	}
	if cwd := payload.Get("cwd"); cwd.Type == gjson.String {
		b.Root(cwd.Str)
	}
	b.Tool("codex", payload.Get("cli_version").String())
	// The system prompt: instructions, or (0.5x and later)
	// base_instructions.text.
	mapped := []string{"cli_version", "instructions", "timestamp"}
	if s := payload.Get("instructions"); s.Type == gjson.String && s.Str != "" {
		b.SystemPrompt(s.Str, nil)
	} else if s := importer.First(payload, "base_instructions.text", "base_instructions"); s.Type == gjson.String && s.Str != "" {
		b.SystemPrompt(s.Str, nil)
		mapped = append(mapped, "base_instructions")
	}
	b.Seen(importer.Timestamp(payload.Get("timestamp")))
	b.Seen(ts)
	b.Meta.Set("session", importer.Rest(payload, mapped...).Raw())
	b.MapRecord()
	return nil
}

// turnContext reads a turn_context payload: the working directory,
// the model and parameters, and the context when it changed.
func (x *codexImport) turnContext(b *importer.Builder, payload gjson.Result, payloadAt string) error {
	if !payload.IsObject() {
		return b.Errorf(payloadAt, "expected an object, got %s", importer.Kind(payload))
	}
	if cwd := payload.Get("cwd"); cwd.Type == gjson.String {
		b.Root(cwd.Str)
	}
	// A session may move to another model (/model): each turn
	// after this record names the one it went to.
	model := payload.Get("model").String()
	b.SetModel(model)
	if model != "" && model != x.items.Model() {
		x.items.Flush()
		x.items.SetModel(model)
	}
	b.Param("reasoning_effort", importer.Raw(payload.Get("effort")))
	b.Param("reasoning_summary", importer.Raw(payload.Get("summary")))
	ctx := importer.Rest(payload, "model", "effort", "summary")
	if r := ctx.Raw(); r != nil && string(r) != x.lastCtx {
		x.contexts, x.lastCtx = append(x.contexts, ctx), string(r)
	}
	b.MapRecord()
	return nil
}

// event reads an event_msg payload: usage, a call's end, an aborted
// turn, a lifecycle event, the prompt or answer as shown, or a skip.
func (x *codexImport) event(b *importer.Builder, where string, payload gjson.Result, ts string) {
	switch et := payload.Get("type").String(); et {
	case "token_count":
		// The only record of token usage: the last request's
		// counts belong to the model turn it answered.
		info := payload.Get("info")
		if !importer.Informative(info) {
			if rl := payload.Get("rate_limits"); importer.Informative(rl) {
				b.AppendMeta("rate_limits", importer.Join(importer.Obj{{K: "timestamp", V: importer.Quote(ts)}}, importer.Obj{{K: "rate_limits", V: importer.Raw(rl)}}).Raw())
				b.MapRecord()
				return
			}
			b.Skip(b.Reason("event_msg/token_count empty"))
			return
		}
		if info.Raw == x.lastInfo {
			b.Skip(b.Reason("event_msg/token_count repeated"))
			return
		}
		x.lastInfo = info.Raw
		tokenCount(b, x.items, payload, ts)
		b.MapRecord()
	case "exec_command_end", "mcp_tool_call_end":
		// A command's exit code and streams; an MCP tool's result,
		// whose error (Err, or isError) no output item says.
		id := payload.Get("call_id").String()
		if _, ok := x.execs[id]; !ok {
			x.execOrder = append(x.execOrder, id)
		}
		x.execs[id] = payload
		x.execTS[id] = ts
		b.MapRecord()
	case "turn_aborted":
		// The user interrupted the turn (or it timed out).
		ab := importer.Join(importer.Obj{{K: "timestamp", V: importer.Quote(ts)}}, importer.Rest(payload, "type"))
		if t := lastTurn(x.items); t != nil {
			t.Meta.Set("turn_aborted", ab.Raw())
		} else {
			b.AppendMeta("turns_aborted", ab.Raw())
		}
		x.items.Flush()
		b.MapRecord()
	case "task_started", "task_complete", "turn_started", "turn_complete", "error", "stream_error", "warning",
		"context_compacted", "background_event", "entered_review_mode", "exited_review_mode",
		"thread_rolled_back", "thread_goal_updated", "sub_agent_activity", "item_completed",
		"guardian_assessment", "guardian_warning", "model_reroute", "undo_completed", "thread_settings_applied":
		if it := payload.Get("item"); et == "item_completed" && (it.Get("type").String() == "CommandExecution" || it.Get("type").String() == "McpToolCall") {
			// 0.16x's end of a command or an MCP call, in place
			// of exec_command_end and mcp_tool_call_end: its exit
			// code, status or MCP error (which the output item
			// does not say) are the call's.
			id := it.Get("id").String()
			if _, ok := x.execs[id]; !ok {
				x.execOrder = append(x.execOrder, id)
			}
			x.execs[id], x.execTS[id] = it, ts
			b.MapRecord()
			return
		}
		// The turn's lifecycle, what went wrong, the turns the
		// user rolled back, goals, a subagent's activity, the
		// items Codex completes with no response item (a plan),
		// the thread's settings as applied: no response item says
		// it.
		b.AppendMeta("events", importer.Join(importer.Obj{{K: "timestamp", V: importer.Quote(ts)}, {K: "type", V: importer.Quote(et)}}, importer.Rest(payload, "type")).Raw())
		b.MapRecord()
	case "user_message", "agent_message":
		// The prompt or the answer as the UI shows it, beside the
		// response item that holds it; checked at the end that
		// one does.
		pos := len(x.items.Messages())
		if x.items.Turn() != nil {
			pos++ // after the turn being read, which it follows
		}
		x.said = append(x.said, userEvent{at: pos, ts: ts, where: where, model: x.items.Model(), payload: payload})
	default:
		b.SkipKind("event_msg/"+et, payload, fmt.Sprintf("event_msg %q (an event type this importer does not map)", et))
	}
}

// harnessText adds the harness message (metadata.harness: kind) whose
// text is the payload's member key, its other members but drop kept
// with it, after the model turn being read; it skips a payload without
// that text, saying missing, and returns nil then.
func (x *codexImport) harnessText(b *importer.Builder, payload gjson.Result, ts, key, kind, missing string, drop ...string) *importer.Msg {
	x.items.Flush()
	text := payload.Get(key)
	if text.Type != gjson.String {
		b.Skip(b.Reason(missing))
		return nil
	}
	m := &importer.Msg{Role: importer.HarnessRole, TS: ts, Meta: importer.Rest(payload, append([]string{key}, drop...)...)}
	m.AddText(text.Str)
	m.Meta.SetString("harness", kind)
	x.items.Append(m)
	return m
}

// tokenCount gives a token_count event's counts to the model turn they
// were counted for: the one the rollout is in, or the last one before
// any later user message. A turn whose usage its token_usage_record gave
// keeps the event's other counts (the session's totals, the rate limits)
// when its last_token_usage is that usage.
func tokenCount(b *importer.Builder, r *importer.ItemReader, payload gjson.Result, ts string) {
	info := payload.Get("info")
	counts := importer.Join(importer.Obj{{K: "timestamp", V: importer.Quote(ts)}}, importer.Rest(info, "last_token_usage"))
	counts.Set("rate_limits", importer.Raw(payload.Get("rate_limits")))
	t := lastTurn(r)
	switch {
	case t == nil:
		b.AppendMeta("token_counts", importer.Join(importer.Obj{{K: "usage", V: importer.Raw(info.Get("last_token_usage"))}}, counts).Raw())
	case t.Meta.Get("usage") == nil:
		t.Meta.Set("usage", importer.Raw(info.Get("last_token_usage")))
		t.SetLater("token_count", counts)
	case t.Meta.Get("response_id") != nil && !t.HasLater("token_count") && importer.SameJSON(t.Meta.Get("usage"), importer.Raw(info.Get("last_token_usage"))):
		t.SetLater("token_count", counts)
	default:
		more := importer.Join(importer.Obj{{K: "usage", V: importer.Raw(info.Get("last_token_usage"))}}, counts)
		t.AppendLater("more_token_counts", more)
	}
}

// usageRecord gives a token_usage_record's usage, the usage of one
// response, to the model turn that response was (the one being read, or
// the last one since the last user message), with the response's id in
// its metadata (response_id) and the record's other members (the turn's
// and the thread's totals, the ids of the thread and turn) as
// token_usage_record. Codex writes it when the response is complete: the
// turn ends there, and items after it are another response's. A record
// with no turn of its own is kept in the log's metadata.
func usageRecord(b *importer.Builder, r *importer.ItemReader, payload gjson.Result, ts string) {
	id, usage := importer.Raw(payload.Get("response_id")), importer.Raw(payload.Get("usage"))
	more := importer.Join(importer.Obj{{K: "timestamp", V: importer.Quote(ts)}}, importer.Rest(payload, "response_id", "usage"))
	t := lastTurn(r)
	switch {
	case t == nil:
		b.AppendMeta("token_usage_records", importer.Join(importer.Obj{{K: "response_id", V: id}, {K: "usage", V: usage}}, more).Raw())
	case t.Meta.Get("response_id") != nil:
		t.AppendLater("more_token_usage_records", importer.Join(importer.Obj{{K: "response_id", V: id}, {K: "usage", V: usage}}, more))
	default:
		if u := t.Meta.Get("usage"); u != nil && !importer.SameJSON(u, usage) {
			// A token_count came first with other counts: kept.
			more.Set("token_count_usage", u)
		}
		t.Meta.Set("response_id", id)
		t.Meta.Set("usage", usage)
		t.SetLater("token_usage_record", more)
	}
	r.Flush()
}

// lastTurn returns the model turn r is reading, or the last one it read
// since the last user message.
func lastTurn(r *importer.ItemReader) *importer.Msg {
	if t := r.Turn(); t != nil {
		return t
	}
	out := r.Messages()
	for i := len(out) - 1; i >= 0; i-- {
		switch out[i].Role {
		case "assistant":
			return out[i]
		case "tool":
			continue
		}
		return nil
	}
	return nil
}

// codexExit marks a call's result failed as Codex says it failed
// (fail.go): its exec_command_end event's exit code or status, the
// success flag of an older rollout's output object, or the text of the
// output.
func codexExit(r *importer.Result, exec gjson.Result) {
	if t := exec.Get("type").String(); t == "mcp_tool_call_end" || t == "McpToolCall" {
		mcpEnd(r, exec)
		return
	}
	code := exec.Get("exit_code")
	if exec.Exists() {
		r.Meta.Set(endKey(exec), importer.Rest(exec, "type", "call_id", "id", "aggregated_output", "formatted_output", "exit_code").Raw())
	}
	failed, msg := false, ""
	switch st := exec.Get("status").String(); {
	case st == "declined":
		// Not run: the -1 Codex writes is no exit code.
		failed, msg, code = true, "declined", gjson.Result{}
	case code.Type == gjson.Number:
		failed = code.Raw != "0"
	case st == "failed":
		failed, msg = true, "failed"
	}
	// -1 is what Codex writes for a command that failed without
	// running (an execution error, a refusal): the text then says why.
	unran := code.Raw == "-1"
	if r.HasOut && (failed && msg != "" || unran || code.Type != gjson.Number) {
		// Read, not made the output: a literal stays the literal of the
		// transcript (packed by its place, lib/importer/resume.go).
		text := r.Output
		if lit := r.Literal(); lit != "" {
			text = failureText(lit)
		}
		if o := gjson.Parse(text); strings.HasPrefix(text, "{") && o.Get("content").Type == gjson.String && o.Get("success").IsBool() {
			// Before 0.2x a failed output was {"content", "success": false}.
			r.SetText(o.Get("content").Str)
			r.Meta.Set("success", importer.Raw(o.Get("success")))
			failed = !o.Get("success").Bool()
			text = r.Output
		}
		if f, c, m := codexFailure(text); f {
			failed = true
			if unran && m != "" {
				code = gjson.Result{}
			}
			if !code.Exists() {
				code = c
			}
			if m != "" {
				msg = m
			}
		} else if !failed {
			code = c // a success's exit code
		}
	}
	switch {
	case failed:
		r.IsError = true
		r.Failure.Msg = msg
		if code.Type == gjson.Number {
			r.Failure.ExitCode = importer.Raw(code)
		}
	case code.Type == gjson.Number:
		r.Meta.Set("exit_code", importer.Raw(code))
	}
}

// mcpEnd marks an MCP tool call's result failed as its mcp_tool_call_end
// event says (an Err, or a result with isError), or its McpToolCall item
// (0.16x: a result with isError, an error, the status "failed"); else as
// its text says. The event's other members (the server and tool, the
// duration) are kept with the result; its result, which the output
// repeats, is not.
func mcpEnd(r *importer.Result, end gjson.Result) {
	r.Meta.Set(endKey(end), importer.Rest(end, "type", "call_id", "id", "result").Raw())
	res := end.Get("result")
	errText, ok := res.Get("Err"), res.Get("Ok")
	if end.Get("type").String() == "McpToolCall" {
		ok, errText = res, gjson.Result{}
		if e := end.Get("error"); importer.Informative(e) {
			errText = importer.First(e, "message")
			if !errText.Exists() {
				errText = e
			}
		}
	}
	switch {
	case errText.Exists():
		r.IsError = true
		r.Failure.Msg, _, _ = strings.Cut(errText.String(), "\n")
	case importer.First(ok, "isError", "is_error").Type == gjson.True, end.Get("status").String() == "failed":
		r.IsError = true
	default:
		codexExit(r, gjson.Result{})
	}
}

// endKey names the record that ended a call in its result's metadata:
// exec_command_end, mcp_tool_call_end, or (0.16x) item_completed.
func endKey(end gjson.Result) string {
	switch t := end.Get("type").String(); t {
	case "CommandExecution", "McpToolCall":
		return "item_completed"
	default:
		return t
	}
}

// A userEvent is a user_message or agent_message event, where it came
// among the messages.
type userEvent struct {
	at        int // the number of messages read before it
	ts, where string
	model     string // the turn_context's, for an answer
	payload   gjson.Result
}

// codexUserEvents checks that each user_message event repeats a prompt a
// response item holds (its text within a user message's), and each
// agent_message an answer (within an assistant message's), as they do
// when Codex writes both; one that repeats none is the only record of
// what was said and becomes a user prompt (or a model turn) in its
// place, its other members in its metadata with "from": "event_msg".
func codexUserEvents(b *importer.Builder, msgs []*importer.Msg, said []userEvent) ([]*importer.Msg, error) {
	var out []*importer.Msg
	next := 0
	// Most events repeat an item's text exactly: looked up first.
	texts := map[[2]string]bool{}
	for _, m := range msgs {
		if m.HasText {
			texts[[2]string{m.Role, m.Text}] = true
		}
	}
	for _, e := range said {
		text := e.payload.Get("message")
		et := e.payload.Get("type").String()
		role := "user"
		if et == "agent_message" {
			role = "assistant"
		}
		known := text.Type != gjson.String || text.Str == "" || texts[[2]string{role, text.Str}]
		for _, m := range msgs {
			if known {
				break
			}
			known = (m.Role == role || role == "user" && m.Role == importer.HarnessRole) && m.HasText && strings.Contains(m.Text, text.Str)
		}
		if known {
			b.Skip(b.Reason("event_msg/" + et + " copy"))
			continue
		}
		pos := min(e.at, len(msgs))
		out = append(out, msgs[next:pos]...)
		next = pos
		// Its images (data: URLs) are parts of the prompt, as a
		// message's input_image would be.
		content := importer.List{importer.Join(importer.Obj{{K: "type", V: importer.Quote("input_text")}}, importer.Obj{{K: "text", V: importer.Raw(text)}}).Raw()}
		importer.Each(e.payload.Get("images"), func(_, u gjson.Result) bool {
			content = append(content, importer.Join(importer.Obj{{K: "type", V: importer.Quote("input_image")}}, importer.Obj{{K: "image_url", V: importer.Raw(u)}}).Raw())
			return true
		})
		m := &importer.Msg{Role: role, TS: e.ts, Meta: importer.Join(importer.Obj{{K: "from", V: importer.Quote("event_msg")}}, importer.Rest(e.payload, "type", "message", "images"))}
		if role == "assistant" && e.model != "" {
			m.Meta.SetString("model", e.model)
		}
		if err := b.ReadParts(m, gjson.ParseBytes(content.Raw()), importer.At(e.where, "payload")); err != nil {
			return nil, err
		}
		out = append(out, m)
		b.MapRecord()
	}
	if out == nil {
		return msgs, nil
	}
	return append(out, msgs[next:]...), nil
}
