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
	err := b.jsonLines(data, func(where string, rec gjson.Result) error {
		ts := timestamp(rec.Get("timestamp"))
		typ := rec.Get("type").String()
		payload := rec.Get("payload")
		payloadAt := at(where, "payload")
		if !payload.Exists() {
			switch {
			case rec.Get("record_type").Exists():
				b.skip(fmt.Sprintf("record_type %q", rec.Get("record_type").String()))
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
			b.meta.set("session", rest(payload, "cwd", "cli_version", "instructions", "timestamp").raw())
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
			ctx := rest(payload, "cwd", "model", "effort", "summary").raw()
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
			b.skip(fmt.Sprintf("event_msg %q (repeats response items for display)", payload.Get("type").String()))
		default:
			b.skip(fmt.Sprintf("record type %q", typ))
		}
		return nil
	})
	if err != nil {
		return err
	}
	b.meta.set("turn_contexts", contexts.raw())
	for _, m := range items.done() {
		b.add(m)
	}
	if len(b.roots) > 0 {
		b.workspace = codexWorkspace(data, b.roots[0])
	}
	return nil
}

// isItem reports whether a bare record is a Responses API item.
func isItem(typ string, rec gjson.Result) bool {
	if _, ok := itemCalls[typ]; ok {
		return true
	}
	return typ == "message" || typ == "reasoning" || strings.HasSuffix(typ, "_output")
}
