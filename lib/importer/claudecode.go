package importer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// Claude Code session transcripts (~/.claude/projects/<dir>/<session>.jsonl):
// one JSON object per line. "user" and "assistant" lines carry an Anthropic
// message; one API message is often split over several assistant lines that
// share message.id, and tool results come back in user lines.

func importClaudeCode(b *builder, data []byte) error {
	var msgs []*msg
	byID := map[string]*msg{}
	merged := map[*msg]list{} // further lines merged into a model turn
	session := &distinct{}
	var summaries list
	var other []lineMember // scratch: the line's unmapped members
	sc := newSidechains()
	var hs harness
	src := map[*msg]ccSource{} // where the prompts of other records than user records came from
	var absorbed []lineMember  // the text of queued prompts a turn took in, by line
	var boundaries []*ccBoundary
	subIDs := ccRecordIDs(b.opts.Subagents)
	progressSeen := map[string]bool{}
	var typ, message, tsv gjson.Result
	var ln ccLine
	var mk ccMarks
	// scan reads a record's members in one pass: long lines (tool
	// results) are scanned once, not once per member looked up.
	scan := func(rec gjson.Result) {
		typ, message, tsv = gjson.Result{}, gjson.Result{}, gjson.Result{}
		ln, mk = ccLine{}, ccMarks{}
		other = other[:0]
		each(rec, func(k, v gjson.Result) bool {
			switch k.Str {
			case "isSidechain":
				ln.sidechain = v.Type == gjson.True
			case "agentId":
				ln.agentID = v.String()
			case "uuid":
				ln.uuid = v.String()
			case "parentUuid":
				ln.parent = v.String()
			case "toolUseResult":
				ln.resultAgent = v.Get("agentId").String()
			case "isMeta":
				mk.meta = v.Type == gjson.True
			case "isCompactSummary":
				mk.compact = v.Type == gjson.True
			case "origin":
				mk.origin = v.Get("kind").String()
			}
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
				session.add(k.Str, v)
			case "sessionId", "version", "gitBranch", "userType", "slug", "entrypoint":
				// The same on every line: once in the log's metadata
				// (version also in environment.tool_versions).
				session.add(k.Str, v)
			default:
				other = append(other, lineMember{k.Str, v})
			}
			return true
		})
	}
	line := func(where string, rec gjson.Result) error {
		scan(rec)
		switch typ.String() {
		case "user", "assistant":
		case "progress":
			data := fields(other).get("data")
			nested := data.Get("message")
			if pt := data.Get("type").String(); pt != "agent_progress" || !nested.Get("message").IsObject() || !ccMessageType(nested) {
				kind := "progress"
				if pt != "" {
					kind += "/" + pt
				}
				b.seen(timestamp(tsv))
				b.skipKind(kind, data, fmt.Sprintf("record type \"progress\" (%s: a data.type this importer does not know)", pt))
				return nil
			}
			// A subagent's own message, written into the session's
			// transcript as it ran (2.1.x): read as the subagent's record.
			envelope := fields(other).rest("data")
			envelope = join(envelope, rest(data, "message", "type", "prompt"))
			outerTS := timestamp(tsv)
			agent, task := data.Get("agentId").String(), fields(other).get("parentToolUseID").String()
			if agent != "" && task != "" {
				// Its Task call, even when the Task's result is missing.
				sc.byAgent[agent] = task
			}
			scan(nested)
			where = at(where, "data.message")
			if ln.uuid != "" && progressSeen[ln.uuid] || ccCopied(subIDs, ln.uuid, message) {
				b.seen(outerTS)
				b.skip(b.reason("progress/agent_progress copy"))
				return nil
			}
			if ln.uuid != "" {
				progressSeen[ln.uuid] = true
			}
			ln.sidechain, ln.agentID = true, agent
			other = append(other, lineMember{"progress", gjson.Parse(string(envelope.raw()))})
			if !tsv.Exists() {
				tsv = gjson.Parse(string(quote(outerTS)))
			}
		case "summary":
			summaries = append(summaries, fields(other).rest().raw())
			b.mapRecord()
			return nil
		case "attachment", "system":
			ts := timestamp(tsv)
			if typ.String() == "system" && fields(other).get("subtype").String() == "compact_boundary" {
				// Kept with the compaction summary that follows it.
				bd := fields(other).rest()
				if ts != "" {
					bd = join(obj{{"timestamp", quote(ts)}}, bd)
				}
				boundaries = append(boundaries, &ccBoundary{uuid: ln.uuid, meta: bd})
				b.seen(ts)
				b.mapRecord()
				return nil
			}
			m, content, skipped, err := b.ccAside(where, typ.String(), fields(other), ts)
			if err != nil {
				return err
			}
			if m == nil {
				b.seen(ts)
				b.skipKind(skipped, rec, fmt.Sprintf("record type %q (%s: a subtype this importer does not know)", typ.String(), strings.TrimPrefix(skipped, typ.String()+"/")))
				return nil
			}
			b.mapRecord()
			if m.role != harnessRole {
				// A queued prompt: its origin says who sent it.
				att := fields(other).get("attachment")
				if mk.origin == "" {
					mk.origin = att.Get("origin.kind").String()
				}
				if mk.origin == "" && att.Get("commandMode").String() == "task-notification" {
					mk.origin = "task-notification"
				}
				mk.uuid = ln.uuid
				if hm := hs.classify(b, where, m, content, mk); hm != nil {
					msgs = append(msgs, hm)
					sc.line(hm, ln)
				}
				src[m] = ccSource{kind: "queued", where: where}
			} else {
				src[m] = ccSource{kind: "local", where: where}
			}
			msgs = append(msgs, m)
			sc.line(m, ln)
			return nil
		case "queue-operation":
			f := fields(other)
			if c := f.get("content"); f.get("operation").String() == "remove" && f.get("reason").String() == "absorbed_mid_turn" && c.Type == gjson.String && c.Str != "" {
				absorbed = append(absorbed, lineMember{where, c})
			}
			b.seen(timestamp(tsv))
			b.skip(b.reason("queue-operation"))
			return nil
		default:
			b.seen(timestamp(tsv))
			b.skipKind(typ.String(), rec, fmt.Sprintf("record type %q (not a conversation record)", typ.String()))
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
			line = withoutPartCopies(line, m)
			m.meta = join(line, m.meta)
			if mk.compact && len(boundaries) > 0 {
				if bd := boundaries[len(boundaries)-1]; !bd.joined && (bd.uuid == "" || bd.uuid == ln.parent) {
					m.meta.set("compact_boundary", bd.meta.raw())
					bd.joined = true
				}
			}
			mk.uuid = ln.uuid
			if hm := hs.classify(b, where, m, message.Get("content"), mk); hm != nil {
				msgs = append(msgs, hm)
				sc.line(hm, ln)
			}
			src[m] = ccSource{kind: "user", where: where, queued: string(line.get("promptSource")) == `"queued"`}
			msgs = append(msgs, m)
			sc.line(m, ln)
			return nil
		}
		model := message.Get("model").String()
		if model == ccSynthetic && len(m.calls) == 0 && len(m.results) == 0 {
			// No model wrote it: the harness's notice (an API error, a
			// rate limit), a prompt of the harness, never a model turn.
			m.role = harnessRole
			m.ts = ts
			m.meta = join(line, m.meta)
			m.meta.setString("harness", ccSyntheticKind(fields(other)))
			b.seen(ts)
			msgs = append(msgs, m)
			sc.line(m, ln)
			return nil
		}
		if model != ccSynthetic {
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
		sc.line(m, ln)
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
			prev.results = append(prev.results, m.results...)
			joinOwnResults(prev)
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
	}
	if err := b.jsonLines(data, line); err != nil {
		return err
	}
	// The transcripts of the session's subagents, after the session's
	// own: their records are read as if the session held them, then put
	// in their place in time (interleave).
	fileOf := map[*msg]int{} // the subagent transcript a message came from, from 1
	transcripts := [][]byte{data}
	for i, sub := range b.opts.Subagents {
		b.linePrefix = sub.Name + ": "
		n := len(msgs)
		if err := b.jsonLines(sub.Data, line); err != nil {
			return err
		}
		for _, m := range msgs[n:] {
			fileOf[m] = i + 1
		}
		transcripts = append(transcripts, sub.Data)
	}
	b.linePrefix = ""
	hs.report(b)
	msgs = ccOnce(b, msgs, src, sc.of)
	for _, bd := range boundaries {
		if !bd.joined {
			unmap(b, b.reason("system/compact_boundary alone"))
		}
	}
	ccAbsorbed(b, absorbed, src)
	if b.mapped == 0 && b.records > 0 {
		return b.errorf("", "not %s: no line is a user, assistant or summary record", Describe(ClaudeCode))
	}
	if v := session.get("version"); v.Type == gjson.String {
		b.tool("claude-code", v.Str)
	}
	b.meta.set("session", session.raw())
	b.meta.set("summaries", summaries.raw())
	sc.resolve()
	msgs = interleave(msgs, fileOf, sc)
	for _, m := range msgs {
		m.meta.set("merged_records", merged[m].raw())
		sc.add(b, m)
	}
	// Prompts of subagents that made no step after them.
	for _, key := range sc.firstKey {
		for _, p := range sc.pending[key] {
			b.appendMeta("subagent_prompts", join(obj{{"agent", quote(sc.names[key])}}, objOf(p)).raw())
		}
	}
	if len(b.roots) > 0 {
		b.workspace = claudeCodeWorkspace(interleaveLines(transcripts), b.roots[0])
	}
	return nil
}

// A ccLine is what a transcript line says about the agent that wrote it.
type ccLine struct {
	sidechain    bool
	agentID      string // newer versions name the subagent
	uuid, parent string
	resultAgent  string // toolUseResult.agentId: the agent a Task result came from
}

// sidechains sorts a transcript's subagent records ("isSidechain": true)
// from the main agent's. A subagent is started by a Task tool call; its
// records either name it (agentId) or chain to its first record by
// parentUuid. Its first user message is the Task's prompt, not the
// user's. Subagent steps name their agent and the step of the Task call.
type sidechains struct {
	agentOf  map[string]string // line uuid -> agent key
	of       map[*msg]string   // subagent messages -> agent key
	prompts  map[string]string // agent key -> its first prompt
	names    map[string]string // agent key -> agent name
	tasks    []*call           // Task calls of the main agent, in order
	byAgent  map[string]string // agentId -> the id of the Task call it answered
	parents  map[string]*call  // agent key -> its Task call
	pending  map[string]list   // agent key -> prompts not yet given to a step
	firstKey []string
}

func newSidechains() *sidechains {
	return &sidechains{
		agentOf: map[string]string{}, of: map[*msg]string{}, prompts: map[string]string{},
		names: map[string]string{}, byAgent: map[string]string{}, parents: map[string]*call{},
		pending: map[string]list{},
	}
}

// isTask reports whether a call starts a subagent.
func isTask(c *call) bool { return c.name == "Task" || c.name == "Agent" }

// line notes one transcript line's message m.
func (sc *sidechains) line(m *msg, ln ccLine) {
	if ln.resultAgent != "" {
		for _, r := range m.results {
			sc.byAgent[ln.resultAgent] = r.id
		}
	}
	if !ln.sidechain {
		for _, c := range m.calls {
			if isTask(c) {
				sc.tasks = append(sc.tasks, c)
			}
		}
		return
	}
	key := ln.agentID
	if key == "" {
		key = sc.agentOf[ln.parent]
	}
	if key == "" {
		key = "uuid:" + ln.uuid // the root of a chain of records
	}
	if ln.uuid != "" {
		sc.agentOf[ln.uuid] = key
	}
	if _, ok := sc.names[key]; !ok {
		sc.names[key] = ln.agentID
		sc.firstKey = append(sc.firstKey, key)
	}
	sc.of[m] = key
	if m.role == "user" && m.hasText && sc.prompts[key] == "" {
		sc.prompts[key] = m.text
	}
}

// resolve finds each subagent's Task call and name.
func (sc *sidechains) resolve() {
	byID := map[string]*call{}
	for _, c := range sc.tasks {
		byID[c.id] = c
	}
	used := map[*call]bool{}
	for _, key := range sc.firstKey {
		var parent *call
		if id, ok := sc.byAgent[sc.names[key]]; ok && sc.names[key] != "" {
			parent = byID[id]
		}
		if parent == nil {
			// The Task call whose prompt the subagent was given.
			for _, c := range sc.tasks {
				if !used[c] && gjson.GetBytes(c.args, "prompt").String() == sc.prompts[key] {
					parent = c
					break
				}
			}
		}
		if parent != nil {
			used[parent] = true
			sc.parents[key] = parent
		}
		if sc.names[key] == "" {
			// Older transcripts do not name subagents: the Task call's
			// id does, or else the subagent's first record.
			if parent != nil && parent.id != "" {
				sc.names[key] = parent.id
			} else {
				sc.names[key] = strings.TrimPrefix(key, "uuid:")
			}
		}
	}
}

// add adds m to the log; a subagent's steps name their agent and parent.
func (sc *sidechains) add(b *builder, m *msg) {
	key, side := sc.of[m]
	if !side {
		b.add(m)
		return
	}
	if m.role != "assistant" && m.hasText && len(m.results) == 0 {
		// The subagent's prompt: its Task call's input, not the user's.
		p := join(obj{{"content", quote(m.text)}}, m.meta)
		if m.role == harnessRole {
			p = join(obj{{"role", quote(harnessRole)}}, p)
		}
		if m.ts != "" {
			p.setDefault("timestamp", quote(m.ts))
		}
		sc.pending[key] = append(sc.pending[key], p.raw())
		return
	}
	n, last := len(b.steps), b.last
	b.add(m)
	b.last = last // the run's answer is the main agent's
	for _, s := range b.steps[n:] {
		s.Agent = sc.names[key]
		if p := sc.parents[key]; p != nil && p.step != nil && p.step.Index < s.Index {
			parent := p.step.Index
			s.ParentStep = &parent
		}
		if pend := sc.pending[key]; len(pend) > 0 {
			s.meta.set("agent_prompts", pend.raw())
			delete(sc.pending, key)
		}
	}
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
		if h.Raw == v.Raw || h.Type == gjson.String && v.Type == gjson.String && h.Str == v.Str {
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

// withoutPartCopies leaves out of a user line's toolUseResult the base64
// of every image and document in it, saying so: binary content is a
// part, never metadata. Most are copies of the tool result's parts (the
// Read tool of an image, an MCP tool's content repeated): the note names
// the part. One the tool result's content lacks is added to its parts.
func withoutPartCopies(line obj, m *msg) obj {
	tur := line.get("toolUseResult")
	if tur == nil || len(m.results) != 1 || !bytes.Contains(tur, []byte(`"base64"`)) && !bytes.Contains(tur, []byte(`"data"`)) {
		return line
	}
	r := m.results[0]
	at := func(b64 string, p execlog.Part) int {
		for i, have := range r.parts {
			if t, ok := have.Content.Base64Text(); ok && t == b64 {
				return i
			}
		}
		if r.parts == nil {
			if text := r.text(); r.hasOut && text != "" {
				r.parts = []execlog.Part{{Type: manifest.PartText, Content: execlog.Text(text)}}
			}
		}
		r.parts = append(r.parts, p)
		return len(r.parts) - 1
	}
	if out, changed := stripMedia(gjson.ParseBytes(tur), at, 0); changed {
		line.set("toolUseResult", out)
	}
	return line
}

// stripMedia returns v with the base64 of each image or document in it
// (an Anthropic or MCP content block, or a member "base64" beside a media
// type: the Read tool's file) replaced by a note naming the part it is
// (at: the index of the part holding it, added if there is none).
func stripMedia(v gjson.Result, at func(b64 string, p execlog.Part) int, depth int) (json.RawMessage, bool) {
	switch {
	case depth > 8:
	case v.IsObject():
		f := fieldsOf(v)
		typ := f.get("type").String()
		part, b64, _, ok := mediaPart(f, typ, func(s string) string { return s })
		if !ok || b64 == "" {
			if b := f.get("base64"); b.Type == gjson.String && b.Str != "" {
				mt := f.first("type", "mimeType", "media_type").String()
				if mt == "" || !strings.Contains(mt, "/") {
					mt = "application/octet-stream"
				}
				kind := "file"
				if strings.HasPrefix(mt, "image/") {
					kind = "image"
				}
				part, b64, ok = execlog.Part{Type: kind, MediaType: mt, Content: execlog.Base64(b.Str)}, b.Str, true
			}
		}
		if _, err := base64.StdEncoding.DecodeString(b64); ok && b64 != "" && err == nil {
			note := fmt.Sprintf("the same as the step's output_parts[%d]", at(b64, part))
			return omit(v, b64, note), true
		}
		var o obj
		changed := false
		for _, m := range f {
			nv, ch := stripMedia(m.v, at, depth+1)
			changed = changed || ch
			o = append(o, member{m.k, nv})
		}
		if changed {
			return o.raw(), true
		}
	case v.IsArray():
		var l list
		changed := false
		each(v, func(_, e gjson.Result) bool {
			nv, ch := stripMedia(e, at, depth+1)
			changed = changed || ch
			l = append(l, nv)
			return true
		})
		if changed {
			return l.raw(), true
		}
	}
	return raw(v), false
}

// omit returns the object v with each member whose value is the string
// b64, at any depth, replaced by a member of its name and "_omitted"
// holding note.
func omit(v gjson.Result, b64, note string) json.RawMessage {
	if !v.IsObject() {
		return raw(v)
	}
	var o obj
	each(v, func(k, m gjson.Result) bool {
		switch {
		case m.Type == gjson.String && m.Str == b64:
			o = append(o, member{k.Str + "_omitted", quote(note)})
		case m.IsObject():
			o = append(o, member{k.Str, omit(m, b64, note)})
		default:
			o = append(o, member{k.Str, raw(m)})
		}
		return true
	})
	return o.raw()
}

// ccMessageType reports whether a progress record's data.message is a
// user or assistant record.
func ccMessageType(nested gjson.Result) bool {
	t := nested.Get("type").String()
	return t == "user" || t == "assistant"
}

// ccRecordIDs returns the ids the records of a session's subagent
// transcripts hold: their uuids, and the ids of their tool calls and
// results. The progress records that copy them are not read again.
func ccRecordIDs(files []File) map[string]bool {
	if len(files) == 0 {
		return nil
	}
	ids := map[string]bool{}
	for _, f := range files {
		for l := range bytes.SplitSeq(f.Data, []byte("\n")) {
			if !gjson.ValidBytes(l) {
				continue
			}
			r := gjson.ParseBytes(l)
			if u := r.Get("uuid").String(); u != "" {
				ids[u] = true
			}
			each(r.Get("message.content"), func(_, c gjson.Result) bool {
				if id := c.Get("id").String(); id != "" && c.Get("type").String() == "tool_use" {
					ids[id] = true
				}
				if id := c.Get("tool_use_id").String(); id != "" {
					ids["result:"+id] = true
				}
				return true
			})
		}
	}
	return ids
}

// ccCopied reports whether a subagent's record read from a progress
// record (its uuid, its message) is also in the subagent's transcript:
// the same uuid, or tool calls and results all of which it has.
func ccCopied(ids map[string]bool, uuid string, message gjson.Result) bool {
	if len(ids) == 0 {
		return false
	}
	if uuid != "" && ids[uuid] {
		return true
	}
	n, have := 0, 0
	each(message.Get("content"), func(_, c gjson.Result) bool {
		switch c.Get("type").String() {
		case "tool_use":
			n++
			if ids[c.Get("id").String()] {
				have++
			}
		case "tool_result":
			n++
			if ids["result:"+c.Get("tool_use_id").String()] {
				have++
			}
		}
		return true
	})
	return n > 0 && have == n
}

// ccSynthetic is the model Claude Code names in an assistant record it
// wrote itself: no model answered.
const ccSynthetic = "<synthetic>"

// ccSyntheticKind is the harness kind of a <synthetic> assistant record
// (its members but the message, in f): "api-error" for the notice of a
// failed API call (isApiErrorMessage, or an error named), else
// "synthetic" (the "No response requested." of an interrupted turn).
func ccSyntheticKind(f fields) string {
	if f.get("isApiErrorMessage").Type == gjson.True || informative(f.get("error")) || informative(f.get("apiErrorStatus")) {
		return "api-error"
	}
	return "synthetic"
}
