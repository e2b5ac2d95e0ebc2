package importer

import (
	"fmt"

	"github.com/tidwall/gjson"
)

// Claude Code session transcripts (~/.claude/projects/<dir>/<session>.jsonl):
// one JSON object per line. "user" and "assistant" lines carry an Anthropic
// message; one API message is often split over several assistant lines that
// share message.id, and tool results come back in user lines.

// ccSkipped are the line types that are not part of the conversation.
var ccSkipped = map[string]string{
	"progress":              `record type "progress" (hook and tool progress)`,
	"file-history-snapshot": `record type "file-history-snapshot" (editor undo state)`,
	"queue-operation":       `record type "queue-operation" (input queue)`,
	"system":                `record type "system" (local command and status output)`,
}

func importClaudeCode(b *builder, data []byte) error {
	var msgs []*msg
	byID := map[string]*msg{}
	merged := map[*msg]list{} // further lines merged into a model turn
	session := &distinct{}
	var summaries list
	var other []lineMember // scratch: the line's unmapped members
	err := b.jsonLines(data, func(where string, rec gjson.Result) error {
		// One pass over the line's members: long lines (tool results)
		// are scanned once, not once per member looked up.
		var typ, message, tsv gjson.Result
		other = other[:0]
		each(rec, func(k, v gjson.Result) bool {
			switch k.Str {
			case "type":
				typ = v
			case "message":
				message = v
			case "timestamp":
				tsv = v
			case "cwd":
				if v.Type == gjson.String {
					b.root(v.Str)
				}
			case "sessionId", "version", "gitBranch", "userType", "slug", "entrypoint":
				// The same on every line: once in the log's metadata
				// (version also in environment.tool_versions).
				session.add(k.Str, v)
			default:
				other = append(other, lineMember{k.Str, v})
			}
			return true
		})
		switch typ.String() {
		case "user", "assistant":
		case "summary":
			summaries = append(summaries, fields(other).rest().raw())
			b.mapRecord()
			return nil
		default:
			reason, ok := ccSkipped[typ.String()]
			if !ok {
				reason = fmt.Sprintf("record type %q (not a conversation record)", typ.String())
			}
			b.seen(timestamp(tsv))
			b.skip(reason)
			return nil
		}
		if !message.IsObject() {
			return b.errorf(at(where, "message"), "expected an object, got %s", kind(message))
		}
		m, err := b.readMsg(message, anthropicTable, at(where, "message"), typ.String())
		if err != nil {
			return err
		}
		ts := timestamp(tsv)
		m.ts = ts
		line := fields(other).rest()
		b.mapRecord()
		if m.role != "assistant" {
			m.meta = join(line, m.meta)
			msgs = append(msgs, m)
			return nil
		}
		if model := message.Get("model").String(); model != "<synthetic>" {
			b.setModel(model)
		}
		// The message-level members (id, model, usage, stop_reason) are
		// the same on every line of a message, the last the most complete.
		msgMeta := m.meta
		m.meta = nil
		for _, c := range m.calls {
			c.ts = ts
			if !m.hasText && len(m.reasoning) == 0 {
				c.meta = join(c.meta, line)
			}
		}
		id := message.Get("id").String()
		prev := byID[id]
		if prev == nil {
			if m.hasText || len(m.reasoning) > 0 || len(m.calls) == 0 {
				m.meta = line
			}
			msgs = append(msgs, m)
			if id != "" {
				byID[id] = m
			}
			prev = m
		} else {
			if m.hasText {
				prev.addText(m.text)
			}
			prev.reasoning = append(prev.reasoning, m.reasoning...)
			prev.calls = append(prev.calls, m.calls...)
			if m.hasText || len(m.reasoning) > 0 || len(m.calls) == 0 {
				if ts != "" {
					line = join(obj{{"timestamp", quote(ts)}}, line)
				}
				merged[prev] = append(merged[prev], line.raw())
			}
		}
		for _, mm := range msgMeta {
			if mm.k == "content" {
				prev.meta.set("content", append(listOf(prev.meta.get("content")), listOf(mm.v)...).raw())
			} else {
				prev.meta.set(mm.k, mm.v)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if v := session.get("version"); v.Type == gjson.String {
		b.tool("claude-code", v.Str)
	}
	b.meta.set("session", session.raw())
	b.meta.set("summaries", summaries.raw())
	for _, m := range msgs {
		m.meta.set("merged_records", merged[m].raw())
		b.add(m)
	}
	if len(b.roots) > 0 {
		b.workspace = claudeCodeWorkspace(data, b.roots[0])
	}
	return nil
}

// distinct collects the values a member takes over many records, in order
// of first appearance.
type distinct struct {
	keys []string
	vals map[string][]gjson.Result
}

func (d *distinct) add(k string, v gjson.Result) {
	if !informative(v) {
		return
	}
	if d.vals == nil {
		d.vals = map[string][]gjson.Result{}
	}
	have, ok := d.vals[k]
	if !ok {
		d.keys = append(d.keys, k)
	}
	for _, h := range have {
		if h.Raw == v.Raw {
			return
		}
	}
	d.vals[k] = append(have, v)
}

func (d *distinct) get(k string) gjson.Result {
	if vs := d.vals[k]; len(vs) > 0 {
		return vs[0]
	}
	return gjson.Result{}
}

// raw is an object with each member's value, or the list of its values
// when it took several.
func (d *distinct) raw() []byte {
	var o obj
	for _, k := range d.keys {
		vs := d.vals[k]
		if len(vs) == 1 {
			o.set(k, raw(vs[0]))
			continue
		}
		var l list
		for _, v := range vs {
			l = append(l, raw(v))
		}
		o.set(k, l.raw())
	}
	return o.raw()
}
