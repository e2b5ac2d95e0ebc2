package importer

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): one
// {timestamp, type, payload} envelope per line. response_item payloads are
// OpenAI Responses API items; event_msg payloads repeat them for the UI.
// Older rollouts have no envelope: a session header, then bare items.

func importCodex(b *builder, data []byte) error {
	items := &itemReader{b: b}
	var contexts list
	execs := map[string]gjson.Result{} // exec_command_end events by call id
	var execOrder []string
	execTS := map[string]string{}
	lastInfo := ""
	err := b.jsonLines(data, func(where string, rec gjson.Result) error {
		ts := timestamp(rec.Get("timestamp"))
		typ := rec.Get("type").String()
		payload := rec.Get("payload")
		payloadAt := at(where, "payload")
		if !payload.Exists() {
			switch {
			case rec.Get("record_type").Exists():
				rt := rec.Get("record_type").String()
				b.skipKind("record_type/"+rt, rec, fmt.Sprintf("record_type %q", rt))
				return nil
			case isItem(typ, rec):
				typ, payload, payloadAt = "response_item", rec, where
			case rec.Get("id").Exists() && rec.Get("timestamp").Exists():
				typ, payload = "session_meta", rec
			}
		}
		switch typ {
		case "session_meta":
			if !payload.IsObject() {
				return b.errorf(payloadAt, "expected an object, got %s", kind(payload))
			}
			if cwd := payload.Get("cwd"); cwd.Type == gjson.String {
				b.root(cwd.Str)
			}
			b.tool("codex", payload.Get("cli_version").String())
			if s := payload.Get("instructions"); s.Type == gjson.String && s.Str != "" {
				b.systemPrompt(s.Str, nil)
			}
			b.seen(timestamp(payload.Get("timestamp")))
			b.seen(ts)
			b.meta.set("session", rest(payload, "cli_version", "instructions", "timestamp").raw())
			b.mapRecord()
		case "turn_context":
			if !payload.IsObject() {
				return b.errorf(payloadAt, "expected an object, got %s", kind(payload))
			}
			if cwd := payload.Get("cwd"); cwd.Type == gjson.String {
				b.root(cwd.Str)
			}
			b.setModel(payload.Get("model").String())
			b.param("reasoning_effort", raw(payload.Get("effort")))
			b.param("reasoning_summary", raw(payload.Get("summary")))
			ctx := rest(payload, "model", "effort", "summary").raw()
			if n := len(contexts); ctx != nil && (n == 0 || string(contexts[n-1]) != string(ctx)) {
				contexts = append(contexts, ctx)
			}
			b.mapRecord()
		case "response_item":
			if err := items.add(payload, payloadAt, ts); err != nil {
				return err
			}
			b.mapRecord()
		case "event_msg":
			switch et := payload.Get("type").String(); et {
			case "token_count":
				// The only record of token usage: the last request's
				// counts belong to the model turn it answered.
				info := payload.Get("info")
				if !informative(info) {
					if rl := payload.Get("rate_limits"); informative(rl) {
						b.appendMeta("rate_limits", join(obj{{"timestamp", quote(ts)}}, obj{{"rate_limits", raw(rl)}}).raw())
						b.mapRecord()
						return nil
					}
					b.skip(b.reason("event_msg/token_count empty"))
					return nil
				}
				if info.Raw == lastInfo {
					b.skip(b.reason("event_msg/token_count repeated"))
					return nil
				}
				lastInfo = info.Raw
				items.tokenCount(payload, ts)
				b.mapRecord()
			case "exec_command_end":
				id := payload.Get("call_id").String()
				if _, ok := execs[id]; !ok {
					execOrder = append(execOrder, id)
				}
				execs[id] = payload
				execTS[id] = ts
				b.mapRecord()
			case "turn_aborted":
				// The user interrupted the turn (or it timed out).
				ab := join(obj{{"timestamp", quote(ts)}}, rest(payload, "type"))
				if t := items.lastTurn(); t != nil {
					t.meta.set("turn_aborted", ab.raw())
				} else {
					b.appendMeta("turns_aborted", ab.raw())
				}
				items.flush()
				b.mapRecord()
			case "task_started", "task_complete", "turn_started", "turn_complete", "error", "stream_error", "warning", "context_compacted", "background_event", "entered_review_mode", "exited_review_mode":
				// The turn's lifecycle and what went wrong: no
				// response item says it.
				b.appendMeta("events", join(obj{{"timestamp", quote(ts)}, {"type", quote(et)}}, rest(payload, "type")).raw())
				b.mapRecord()
			default:
				b.skipKind("event_msg/"+et, payload, fmt.Sprintf("event_msg %q (an event type this importer does not map)", et))
			}
		default:
			b.skipKind(typ, rec, fmt.Sprintf("record type %q", typ))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if b.mapped == 0 && b.records > 0 {
		return b.errorf("", "not %s: no line is a session_meta, turn_context or response_item record", Describe(Codex))
	}
	b.meta.set("turn_contexts", contexts.raw())
	msgs := items.done()
	answered := map[string]bool{}
	for _, m := range msgs {
		for _, r := range m.results {
			answered[r.id] = true
			codexExit(r, execs[r.id])
			if ts := execTS[r.id]; ts != "" && execs[r.id].Exists() {
				r.meta.set("exec_command_end_timestamp", quote(ts))
			}
		}
	}
	// A command whose output item is missing still has its event.
	for _, id := range execOrder {
		if answered[id] || id == "" {
			continue
		}
		e := execs[id]
		r := &result{id: id, ts: execTS[id]}
		r.setOutput(e.Get("aggregated_output"))
		codexExit(r, e)
		r.meta.set("output_from", quote("exec_command_end"))
		msgs = append(msgs, &msg{role: "tool", results: []*result{r}})
	}
	for _, m := range msgs {
		b.add(m)
	}
	if len(b.roots) > 0 {
		b.workspace = codexWorkspace(data, b.roots[0])
	}
	return nil
}

// tokenCount gives a token_count event's counts to the model turn they
// were counted for: the one the rollout is in, or the last one before
// any later user message.
func (r *itemReader) tokenCount(payload gjson.Result, ts string) {
	info := payload.Get("info")
	counts := join(obj{{"timestamp", quote(ts)}}, rest(info, "last_token_usage"))
	counts.set("rate_limits", raw(payload.Get("rate_limits")))
	t := r.lastTurn()
	switch {
	case t == nil:
		r.b.appendMeta("token_counts", join(obj{{"usage", raw(info.Get("last_token_usage"))}}, counts).raw())
	case t.meta.get("usage") == nil:
		t.meta.set("usage", raw(info.Get("last_token_usage")))
		t.meta.set("token_count", counts.raw())
	default:
		more := join(obj{{"usage", raw(info.Get("last_token_usage"))}}, counts)
		t.meta.set("more_token_counts", append(listOf(t.meta.get("more_token_counts")), more.raw()).raw())
	}
}

// lastTurn returns the model turn being read, or the last one read since
// the last user message.
func (r *itemReader) lastTurn() *msg {
	if r.cur != nil {
		return r.cur
	}
	for i := len(r.out) - 1; i >= 0; i-- {
		switch r.out[i].role {
		case "assistant":
			return r.out[i]
		case "tool":
			continue
		}
		return nil
	}
	return nil
}

// codexExit marks a command's result failed when it exited non-zero: as
// its exec_command_end event says, or as its output records it (the JSON
// {"output", "metadata": {"exit_code"}} of older rollouts, or the
// "Exit code: N" first line of newer ones).
func codexExit(r *result, exec gjson.Result) {
	code := exec.Get("exit_code")
	if exec.Exists() {
		r.meta.set("exec_command_end", rest(exec, "type", "call_id", "aggregated_output", "formatted_output", "exit_code").raw())
	}
	if code.Type != gjson.Number && r.hasOut {
		text := r.text()
		if strings.HasPrefix(text, "{") && gjson.Valid(text) {
			code = gjson.Get(text, "metadata.exit_code")
		} else if rest, ok := strings.CutPrefix(text, "Exit code: "); ok {
			n, _, _ := strings.Cut(rest, "\n")
			if isDigits(strings.TrimPrefix(n, "-")) {
				code = gjson.Parse(n)
			}
		}
	}
	switch {
	case code.Type != gjson.Number:
	case code.Raw != "0":
		r.isError = true
		r.failure.exitCode = raw(code)
	default:
		r.meta.set("exit_code", raw(code))
	}
}

// isItem reports whether a bare record is a Responses API item.
func isItem(typ string, rec gjson.Result) bool {
	if _, ok := itemCalls[typ]; ok {
		return true
	}
	return typ == "message" || typ == "reasoning" || strings.HasSuffix(typ, "_output")
}
