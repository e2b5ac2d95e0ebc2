package claudecode

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// Claude Code session transcripts (~/.claude/projects/<dir>/<session>.jsonl):
// one JSON object per line. "user" and "assistant" lines carry an Anthropic
// message; one API message is often split over several assistant lines that
// share message.id, and tool results come back in user lines.

// How the format maps (lib/importer's package documentation says what
// every format shares). Lines sharing message.id are one model turn;
// tool results come back in user lines (toolUseResult goes into the step's
// metadata.result). Subagent records (isSidechain) are the steps of the
// subagent a Task call started: their agent is its agentId (older
// transcripts: the Task call's id) and their parent_step the Task step,
// found by agentId or by the Task's prompt (newer versions write them to
// <session>/subagents/agent-<id>.jsonl, which Subagents reads
// and Options.Subagents takes after the session's own lines, then merged
// among them by timestamp (interleave.go: never before the Task call, the
// session's first on equal times; the workspace follows the same order);
// a line of one is named "<file>: line N"; version 2.1.3x writes the
// subagent's records into the session's transcript as well, as progress
// records of data.type agent_progress, read as the subagent's records
// unless its transcript has them: same uuid, or only tool calls and
// results it has); the subagent's prompt is kept
// with its first step (metadata.agent_prompts), not made a user prompt.
// User records Claude Code writes itself (prompts.go) are prompts with
// role "harness", their text byte for byte, and their kind in
// metadata.prompts[i].harness: "compact-summary" (isCompactSummary),
// origin.kind when it is not "human" (2.1 and later: "task-notification",
// "auto-continuation", "peer", …), the kind of the tag all their text
// blocks open with (<task-notification>: "task-notification";
// <command-name>, <command-message>, <command-args>, <command-contents>:
// "command"; <local-command-stdout>, <local-command-stderr>:
// "command-output"; <local-command-caveat>: "command-caveat";
// <bash-input>: "shell-input"; <bash-stdout>, <bash-stderr>:
// "shell-output"; <system-reminder>: "system-reminder"), "interrupt"
// for a record whose whole text is "[Request interrupted by user]" (or
// "… for tool use"), written when the user stops a turn, else "meta"
// (isMeta). An assistant record of model "<synthetic>" (no model wrote
// it) is a harness prompt too: "api-error" (isApiErrorMessage, error,
// apiErrorStatus: a failed API call, a rate limit), else "synthetic".
// Every image and document in a tool result is a part of the step's
// output; the copies in toolUseResult name the part instead of holding
// the base64 (and one only there is added to the parts). A kind told by
// the text alone, without isMeta, is a warning
// listing the lines: a person could type the same text. A record whose
// leading text blocks are the harness's and the rest not is split into
// the harness's prompt (with the record's uuid) and the user's; a tag
// after the user's text leaves the prompt the user's, with a warning.
// Tool results are never prompts (a <system-reminder> in a tool's output
// stays in it); a subagent's harness records join its agent_prompts with
// "role": "harness". Two other records hold the only copy of what they
// say and are prompts too: a "system" record of subtype "local_command"
// (a local command and its output shown to the user, not sent to the
// model) is a harness prompt of its tag's kind, "type": "system" in its
// metadata; an "attachment" record of attachment.type "file" (a file
// read again after a compaction) is a harness prompt of kind "file", its
// rendered text blocks as sent, "type": "attachment" in its metadata; an
// "attachment" record of attachment.type "queued_command"
// (a prompt sent while the agent worked that the running turn took in,
// for which no user record is written) is the user's prompt, or the
// harness's when its origin.kind or commandMode says so
// ("task-notification", "peer"), in its place in the file, its other
// members in metadata.prompts[i].attachment. A copy is kept once: a
// local_command record with a user record's text and time, and a queued
// prompt whose text the next user prompt has (the prompt queued until
// the turn ended), are counted as skipped, with a warning when that user
// record does not say "promptSource": "queued". Skipped and counted:
// queue-operation records (the input queue: what reached the model is a
// user record or a queued_command attachment; a removal "absorbed_mid_turn"
// whose text no attachment holds is a warning), other attachments
// (reminders, hook output, file changes) and queued_commands of another
// commandMode, and the other system records by subtype (turn_duration,
// stop_hook_summary, api_error: status). A compact_boundary record is
// kept in the metadata of the compaction summary after it (the record
// whose parentUuid is its uuid) as compact_boundary: its compactMetadata
// (trigger, tokens before) is in no other record.

// ccState is what a Claude Code import has gathered from the lines it
// has read: everything a later line, or the end of the import, reads.
// With the builder, it is what a checkpoint saves (importer.ReadLines).
type ccState struct {
	msgs         []*importer.Msg
	byID         map[string]*importer.Msg        // model turns by message.id: its further lines join it
	merged       map[*importer.Msg]importer.List // further lines merged into a model turn
	session      *distinct
	summaries    importer.List
	sc           *sidechains
	hs           importer.Harness
	src          map[*importer.Msg]ccSource // where the prompts of other records than user records came from
	absorbed     []importer.LineMember      // the text of queued prompts a turn took in, by line
	boundaries   []*ccBoundary
	progressSeen map[string]bool
	rq           ccRequests // the requests sent, beside the conversation (requests.go)
	// The workspace read with the lines; nil: it is read in full at the
	// end.
	ws *ccWorkspace
}

// ccImport reads a Claude Code transcript's lines into its ccState.
type ccImport struct {
	ccState
	subIDs map[string]bool // the records the subagents' own transcripts hold (ccRecordIDs)

	// The line being read (scan): its type, message and timestamp, what
	// it says about its agent and its marks, and its other members.
	typ, message, tsv gjson.Result
	ln                ccLine
	mk                importer.HarnessMarks
	other             []importer.LineMember
}

func newCCImport(b *importer.Builder) *ccImport {
	return &ccImport{
		ccState: ccState{
			byID: map[string]*importer.Msg{}, merged: map[*importer.Msg]importer.List{}, session: &distinct{},
			sc: newSidechains(), src: map[*importer.Msg]ccSource{}, progressSeen: map[string]bool{},
			rq: newCCRequests(),
		},
		subIDs: ccRecordIDs(b.Options().Subagents),
	}
}

func importClaudeCode(b *importer.Builder, data []byte) error {
	c := newCCImport(b)
	read := func(where string, rec gjson.Result) error { return c.line(b, where, rec) }
	// The lines a checkpoint covers are read no more (importer.ReadLines). The
	// workspace is read with the lines when the session has no subagent
	// transcripts to put among them (interleaveLines), once the working
	// directory is known.
	err := importer.ReadLines(b, data, read, importer.Resume[ccState]{
		State:   &c.ccState,
		Restore: func(s *ccState) bool { c.ccState = *s; return true },
		Workspace: func(from, to int) {
			switch {
			case len(b.Options().Subagents) > 0 || len(b.Roots) == 0:
				c.ws = nil
			case c.ws == nil:
				c.ws = newCCWorkspace(b.Roots[0])
				c.ws.read(data[:to])
			default:
				c.ws.read(data[from:to])
			}
		},
	})
	if err != nil {
		return err
	}
	// The transcripts of the session's subagents, after the session's
	// own: their records are read as if the session held them, then put
	// in their place in time (interleave).
	fileOf := map[*importer.Msg]int{} // the subagent transcript a message came from, from 1
	transcripts := [][]byte{data}
	for i, sub := range b.Options().Subagents {
		b.LinePrefix = sub.Name + ": "
		n := len(c.msgs)
		if err := b.JSONLines(sub.Data, func(where string, rec gjson.Result) error { return c.line(b, where, rec) }); err != nil {
			return err
		}
		for _, m := range c.msgs[n:] {
			fileOf[m] = i + 1
		}
		transcripts = append(transcripts, sub.Data)
	}
	b.LinePrefix = ""
	c.hs.Report(b)
	c.msgs = ccOnce(b, c.msgs, c.src, c.sc.of)
	for _, bd := range c.boundaries {
		if !bd.joined {
			unmap(b, b.Reason("system/compact_boundary alone"))
		}
	}
	ccAbsorbed(b, c.absorbed, c.src)
	if b.Mapped == 0 && b.Records > 0 {
		return b.Errorf("", "not %s: no line is a user, assistant or summary record", b.Format().Describe())
	}
	if v := c.session.get("version"); v.Type == gjson.String {
		b.Tool("claude-code", v.Str)
	}
	b.Meta.Set("session", c.session.raw())
	b.Meta.Set("summaries", c.summaries.Raw())
	c.sc.resolve()
	c.msgs = interleave(c.msgs, fileOf, c.sc)
	if err := c.rq.done(b, c.msgs); err != nil {
		return err
	}
	for _, m := range c.msgs {
		m.Meta.Set("merged_records", c.merged[m].Raw())
		c.sc.add(b, m)
	}
	// Prompts of subagents that made no step after them.
	for _, key := range c.sc.firstKey {
		for _, p := range c.sc.pending[key] {
			b.AppendMeta("subagent_prompts", importer.Join(importer.Obj{{K: "agent", V: importer.Quote(c.sc.names[key])}}, importer.ObjOf(p)).Raw())
		}
	}
	switch {
	case c.ws != nil:
		b.Workspace = c.ws.done()
	case len(b.Roots) > 0:
		b.Workspace = claudeCodeWorkspace(interleaveLines(transcripts), b.Roots[0])
	}
	return nil
}

// scan reads a record's members in one pass: long lines (tool
// results) are scanned once, not once per member looked up.
func (c *ccImport) scan(b *importer.Builder, rec gjson.Result) {
	c.typ, c.message, c.tsv = gjson.Result{}, gjson.Result{}, gjson.Result{}
	c.ln, c.mk = ccLine{}, importer.HarnessMarks{}
	c.other = c.other[:0]
	importer.Each(rec, func(k, v gjson.Result) bool {
		switch k.Str {
		case "isSidechain":
			c.ln.sidechain = v.Type == gjson.True
		case "agentId":
			c.ln.agentID = v.String()
		case "uuid":
			c.ln.uuid = v.String()
		case "parentUuid":
			c.ln.parent = v.String()
		case "toolUseResult":
			c.ln.resultAgent = v.Get("agentId").String()
		case "isMeta":
			c.mk.Meta = v.Type == gjson.True
		case "isCompactSummary":
			c.mk.Compact = v.Type == gjson.True
		case "origin":
			c.mk.Origin = v.Get("kind").String()
		}
		switch k.Str {
		case "type":
			c.typ = v
		case "message":
			c.message = v
		case "timestamp":
			c.tsv = v
		case "cwd":
			if v.Type == gjson.String {
				b.Root(v.Str)
			}
			c.session.add(k.Str, v)
		case "sessionId", "version", "gitBranch", "userType", "slug", "entrypoint":
			// The same on every line: once in the log's metadata
			// (version also in environment.tool_versions).
			c.session.add(k.Str, v)
		default:
			c.other = append(c.other, importer.LineMember{K: k.Str, V: v})
		}
		return true
	})
}

// line reads one transcript record: a conversation message, or one of
// the records kept aside, merged or skipped.
func (c *ccImport) line(b *importer.Builder, where string, rec gjson.Result) error {
	c.scan(b, rec)
	if ok, err := c.request(b, where); ok || err != nil {
		return err
	}
	switch c.typ.String() {
	case "user", "assistant":
	case "progress":
		var done bool
		if where, done = c.progress(b, where); done {
			return nil
		}
	case "summary":
		c.summaries = append(c.summaries, importer.Fields(c.other).Rest().Raw())
		b.MapRecord()
		return nil
	case "attachment", "system":
		return c.aside(b, where, rec)
	case "queue-operation":
		f := importer.Fields(c.other)
		if t := f.Get("content"); f.Get("operation").String() == "remove" && f.Get("reason").String() == "absorbed_mid_turn" && t.Type == gjson.String && t.Str != "" {
			c.absorbed = append(c.absorbed, importer.LineMember{K: where, V: t})
		}
		b.Seen(importer.Timestamp(c.tsv))
		b.Skip(b.Reason("queue-operation"))
		return nil
	default:
		b.Seen(importer.Timestamp(c.tsv))
		b.SkipKind(c.typ.String(), rec, fmt.Sprintf("record type %q (not a conversation record)", c.typ.String()))
		return nil
	}
	return c.conversation(b, where)
}

// progress reads a "progress" record in place of its nested subagent
// message, returning where that message is, or done when the record is
// skipped.
func (c *ccImport) progress(b *importer.Builder, where string) (string, bool) {
	data := importer.Fields(c.other).Get("data")
	nested := data.Get("message")
	if pt := data.Get("type").String(); pt != "agent_progress" || !nested.Get("message").IsObject() || !ccMessageType(nested) {
		kind := "progress"
		if pt != "" {
			kind += "/" + pt
		}
		b.Seen(importer.Timestamp(c.tsv))
		b.SkipKind(kind, data, fmt.Sprintf("record type \"progress\" (%s: a data.type this importer does not know)", pt))
		return where, true
	}
	// A subagent's own message, written into the session's
	// transcript as it ran (2.1.x): read as the subagent's record.
	envelope := importer.Fields(c.other).Rest("data")
	envelope = importer.Join(envelope, importer.Rest(data, "message", "type", "prompt"))
	outerTS := importer.Timestamp(c.tsv)
	agent, task := data.Get("agentId").String(), importer.Fields(c.other).Get("parentToolUseID").String()
	if agent != "" && task != "" {
		// Its Task call, even when the Task's result is missing.
		c.sc.byAgent[agent] = task
	}
	c.scan(b, nested)
	where = importer.At(where, "data.message")
	if c.ln.uuid != "" && c.progressSeen[c.ln.uuid] || ccCopied(c.subIDs, c.ln.uuid, c.message) {
		b.Seen(outerTS)
		b.Skip(b.Reason("progress/agent_progress copy"))
		return where, true
	}
	if c.ln.uuid != "" {
		c.progressSeen[c.ln.uuid] = true
	}
	c.ln.sidechain, c.ln.agentID = true, agent
	c.other = append(c.other, importer.LineMember{K: "progress", V: gjson.Parse(string(envelope.Raw()))})
	if !c.tsv.Exists() {
		c.tsv = gjson.Parse(string(importer.Quote(outerTS)))
	}
	return where, false
}

// aside reads an "attachment" or "system" record: a compaction
// boundary, a harness message, a queued prompt, or a skipped subtype.
func (c *ccImport) aside(b *importer.Builder, where string, rec gjson.Result) error {
	ts := importer.Timestamp(c.tsv)
	if c.typ.String() == "system" && importer.Fields(c.other).Get("subtype").String() == "compact_boundary" {
		// Kept with the compaction summary that follows it.
		bd := importer.Fields(c.other).Rest()
		if ts != "" {
			bd = importer.Join(importer.Obj{{K: "timestamp", V: importer.Quote(ts)}}, bd)
		}
		c.boundaries = append(c.boundaries, &ccBoundary{uuid: c.ln.uuid, meta: bd})
		b.Seen(ts)
		b.MapRecord()
		return nil
	}
	m, content, skipped, err := ccAside(b, where, c.typ.String(), importer.Fields(c.other), ts)
	if err != nil {
		return err
	}
	if m == nil {
		b.Seen(ts)
		b.SkipKind(skipped, rec, fmt.Sprintf("record type %q (%s: a subtype this importer does not know)", c.typ.String(), strings.TrimPrefix(skipped, c.typ.String()+"/")))
		return nil
	}
	b.MapRecord()
	if m.Role != importer.HarnessRole {
		// A queued prompt: its origin says who sent it.
		att := importer.Fields(c.other).Get("attachment")
		if c.mk.Origin == "" {
			c.mk.Origin = att.Get("origin.kind").String()
		}
		if c.mk.Origin == "" && att.Get("commandMode").String() == "task-notification" {
			c.mk.Origin = "task-notification"
		}
		c.mk.UUID = c.ln.uuid
		if hm := c.hs.Classify(b, where, m, content, c.mk, harnessText); hm != nil {
			c.msgs = append(c.msgs, hm)
			c.sc.line(hm, c.ln)
		}
		c.src[m] = ccSource{kind: "queued", where: where}
	} else {
		c.src[m] = ccSource{kind: "local", where: where}
	}
	c.msgs = append(c.msgs, m)
	c.sc.line(m, c.ln)
	return nil
}

// conversation reads the message of a "user" or "assistant" record.
func (c *ccImport) conversation(b *importer.Builder, where string) error {
	if !c.message.IsObject() {
		return b.Errorf(importer.At(where, "message"), "expected an object, got %s", importer.Kind(c.message))
	}
	m, err := b.ReadAnthropic(c.message, importer.At(where, "message"), c.typ.String())
	if err != nil {
		return err
	}
	ts := importer.Timestamp(c.tsv)
	m.TS = ts
	line := importer.Fields(c.other).Rest()
	b.MapRecord()
	if m.Role != "assistant" {
		c.user(b, where, m, line)
		return nil
	}
	c.assistant(b, m, line, ts)
	return nil
}

// user keeps a user message with its line's members, its compaction
// boundary and the harness message it may carry.
func (c *ccImport) user(b *importer.Builder, where string, m *importer.Msg, line importer.Obj) {
	ccExitCodes(m)
	line = withoutPartCopies(line, m)
	m.Meta = importer.Join(line, m.Meta)
	if c.mk.Compact && len(c.boundaries) > 0 {
		if bd := c.boundaries[len(c.boundaries)-1]; !bd.joined && (bd.uuid == "" || bd.uuid == c.ln.parent) {
			m.Meta.Set("compact_boundary", bd.meta.Raw())
			bd.joined = true
		}
	}
	c.mk.UUID = c.ln.uuid
	if hm := c.hs.Classify(b, where, m, c.message.Get("content"), c.mk, harnessText); hm != nil {
		c.msgs = append(c.msgs, hm)
		c.sc.line(hm, c.ln)
	}
	c.src[m] = ccSource{kind: "user", where: where, queued: string(line.Get("promptSource")) == `"queued"`}
	c.msgs = append(c.msgs, m)
	c.sc.line(m, c.ln)
}

// assistant keeps an assistant line: a harness notice, a new model
// turn, or a further line of a turn already read, merged into it.
func (c *ccImport) assistant(b *importer.Builder, m *importer.Msg, line importer.Obj, ts string) {
	model := c.message.Get("model").String()
	if model == ccSynthetic && len(m.Calls) == 0 && len(m.Results) == 0 {
		// No model wrote it: the harness's notice (an API error, a
		// rate limit), a prompt of the harness, never a model turn.
		m.Role = importer.HarnessRole
		m.TS = ts
		m.Meta = importer.Join(line, m.Meta)
		m.Meta.SetString("harness", ccSyntheticKind(importer.Fields(c.other)))
		b.Seen(ts)
		c.msgs = append(c.msgs, m)
		c.sc.line(m, c.ln)
		return
	}
	if model != ccSynthetic {
		b.SetModel(model)
	}
	// The message-level members (id, model, usage, stop_reason) are
	// the same on every line of a message, the last the most complete.
	msgMeta := m.Meta
	m.Meta = nil
	for _, call := range m.Calls {
		call.TS = ts
		if !m.HasText && len(m.Reasoning) == 0 {
			call.Meta = importer.Join(call.Meta, line)
		}
	}
	id := c.message.Get("id").String()
	prev := c.byID[id]
	c.sc.line(m, c.ln)
	if prev == nil {
		if m.HasText || len(m.Reasoning) > 0 || len(m.Calls) == 0 {
			m.Meta = line
		}
		c.msgs = append(c.msgs, m)
		if id != "" {
			c.byID[id] = m
		}
		prev = m
		c.answered(m)
	} else {
		if m.HasText {
			prev.AddText(m.Text)
		}
		prev.Reasoning = append(prev.Reasoning, m.Reasoning...)
		prev.Calls = append(prev.Calls, m.Calls...)
		prev.Results = append(prev.Results, m.Results...)
		importer.JoinOwnResults(prev)
		if m.HasText || len(m.Reasoning) > 0 || len(m.Calls) == 0 {
			if ts != "" {
				line = importer.Join(importer.Obj{{K: "timestamp", V: importer.Quote(ts)}}, line)
			}
			c.merged[prev] = append(c.merged[prev], line.Raw())
		}
	}
	for _, mm := range msgMeta {
		if mm.K == "content" {
			prev.Meta.Set("content", append(importer.ListOf(prev.Meta.Get("content")), importer.ListOf(mm.V)...).Raw())
		} else {
			prev.Meta.Set(mm.K, mm.V)
		}
	}
}

// ccExitCodes gives each failed result of m the exit code its text
// states (ExitCode: a Bash command's "Exit code N").
func ccExitCodes(m *importer.Msg) {
	for _, r := range m.Results {
		if !r.IsError || r.Failure.ExitCode != nil {
			continue
		}
		if n, ok := ExitCode(r.Text()); ok {
			r.Failure.ExitCode = json.RawMessage(strconv.Itoa(n))
		}
	}
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
	agentOf  map[string]string         // line uuid -> agent key
	of       map[*importer.Msg]string  // subagent messages -> agent key
	prompts  map[string]string         // agent key -> its first prompt
	names    map[string]string         // agent key -> agent name
	tasks    []*importer.Call          // Task calls of the main agent, in order
	byAgent  map[string]string         // agentId -> the id of the Task call it answered
	parents  map[string]*importer.Call // agent key -> its Task call
	pending  map[string]importer.List  // agent key -> prompts not yet given to a step
	firstKey []string
}

func newSidechains() *sidechains {
	return &sidechains{
		agentOf: map[string]string{}, of: map[*importer.Msg]string{}, prompts: map[string]string{},
		names: map[string]string{}, byAgent: map[string]string{}, parents: map[string]*importer.Call{},
		pending: map[string]importer.List{},
	}
}

// isTask reports whether a call starts a subagent.
func isTask(c *importer.Call) bool { return c.Name == "Task" || c.Name == "Agent" }

// line notes one transcript line's message m.
func (sc *sidechains) line(m *importer.Msg, ln ccLine) {
	if ln.resultAgent != "" {
		for _, r := range m.Results {
			sc.byAgent[ln.resultAgent] = r.ID
		}
	}
	if !ln.sidechain {
		for _, c := range m.Calls {
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
	if m.Role == "user" && m.HasText && sc.prompts[key] == "" {
		sc.prompts[key] = m.Text
	}
}

// resolve finds each subagent's Task call and name.
func (sc *sidechains) resolve() {
	byID := map[string]*importer.Call{}
	for _, c := range sc.tasks {
		byID[c.ID] = c
	}
	used := map[*importer.Call]bool{}
	for _, key := range sc.firstKey {
		var parent *importer.Call
		if id, ok := sc.byAgent[sc.names[key]]; ok && sc.names[key] != "" {
			parent = byID[id]
		}
		if parent == nil {
			// The Task call whose prompt the subagent was given.
			for _, c := range sc.tasks {
				if !used[c] && gjson.GetBytes(c.Args, "prompt").String() == sc.prompts[key] {
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
			if parent != nil && parent.ID != "" {
				sc.names[key] = parent.ID
			} else {
				sc.names[key] = strings.TrimPrefix(key, "uuid:")
			}
		}
	}
}

// add adds m to the log; a subagent's steps name their agent and parent.
func (sc *sidechains) add(b *importer.Builder, m *importer.Msg) {
	key, side := sc.of[m]
	if !side {
		b.Add(m)
		return
	}
	if m.Role != "assistant" && m.HasText && len(m.Results) == 0 {
		// The subagent's prompt: its Task call's input, not the user's.
		p := importer.Join(importer.Obj{{K: "content", V: importer.Quote(m.Text)}}, m.Meta)
		if m.Role == importer.HarnessRole {
			p = importer.Join(importer.Obj{{K: "role", V: importer.Quote(importer.HarnessRole)}}, p)
		}
		if m.TS != "" {
			p.SetDefault("timestamp", importer.Quote(m.TS))
		}
		sc.pending[key] = append(sc.pending[key], p.Raw())
		return
	}
	n, last := len(b.Steps), b.Last
	b.Add(m)
	b.Last = last // the run's answer is the main agent's
	for _, s := range b.Steps[n:] {
		s.Agent = sc.names[key]
		if p := sc.parents[key]; p != nil && p.Step != nil && p.Step.Index < s.Index {
			parent := p.Step.Index
			s.ParentStep = &parent
		}
		if pend := sc.pending[key]; len(pend) > 0 {
			s.Meta.Set("agent_prompts", pend.Raw())
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
	if !importer.Informative(v) {
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
	var o importer.Obj
	for _, k := range d.keys {
		vs := d.vals[k]
		if len(vs) == 1 {
			o.Set(k, importer.Raw(vs[0]))
			continue
		}
		var l importer.List
		for _, v := range vs {
			l = append(l, importer.Raw(v))
		}
		o.Set(k, l.Raw())
	}
	return o.Raw()
}

// withoutPartCopies leaves out of a user line's toolUseResult the base64
// of every image and document in it, saying so: binary content is a
// part, never metadata. Most are copies of the tool result's parts (the
// Read tool of an image, an MCP tool's content repeated): the note names
// the part. One the tool result's content lacks is added to its parts.
func withoutPartCopies(line importer.Obj, m *importer.Msg) importer.Obj {
	tur := line.Get("toolUseResult")
	if tur == nil || len(m.Results) != 1 || !bytes.Contains(tur, []byte(`"base64"`)) && !bytes.Contains(tur, []byte(`"data"`)) {
		return line
	}
	r := m.Results[0]
	at := func(b64 string, p execlog.Part) int {
		for i, have := range r.Parts {
			if t, ok := have.Content.Base64Text(); ok && t == b64 {
				return i
			}
		}
		if r.Parts == nil {
			if text := r.Text(); r.HasOut && text != "" {
				r.Parts = []execlog.Part{{Type: manifest.PartText, Content: execlog.Text(text)}}
			}
		}
		r.Parts = append(r.Parts, p)
		return len(r.Parts) - 1
	}
	if out, changed := stripMedia(gjson.ParseBytes(tur), at, 0); changed {
		line.Set("toolUseResult", out)
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
		f := importer.FieldsOf(v)
		typ := f.Get("type").String()
		part, b64, _, ok := importer.MediaPart(f, typ, func(s string) string { return s })
		if !ok || b64 == "" {
			if b := f.Get("base64"); b.Type == gjson.String && b.Str != "" {
				mt := f.First("type", "mimeType", "media_type").String()
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
		var o importer.Obj
		changed := false
		for _, m := range f {
			nv, ch := stripMedia(m.V, at, depth+1)
			changed = changed || ch
			o = append(o, importer.Member{K: m.K, V: nv})
		}
		if changed {
			return o.Raw(), true
		}
	case v.IsArray():
		var l importer.List
		changed := false
		importer.Each(v, func(_, e gjson.Result) bool {
			nv, ch := stripMedia(e, at, depth+1)
			changed = changed || ch
			l = append(l, nv)
			return true
		})
		if changed {
			return l.Raw(), true
		}
	}
	return importer.Raw(v), false
}

// omit returns the object v with each member whose value is the string
// b64, at any depth, replaced by a member of its name and "_omitted"
// holding note.
func omit(v gjson.Result, b64, note string) json.RawMessage {
	if !v.IsObject() {
		return importer.Raw(v)
	}
	var o importer.Obj
	importer.Each(v, func(k, m gjson.Result) bool {
		switch {
		case m.Type == gjson.String && m.Str == b64:
			o = append(o, importer.Member{K: k.Str + "_omitted", V: importer.Quote(note)})
		case m.IsObject():
			o = append(o, importer.Member{K: k.Str, V: omit(m, b64, note)})
		default:
			o = append(o, importer.Member{K: k.Str, V: importer.Raw(m)})
		}
		return true
	})
	return o.Raw()
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
func ccRecordIDs(files []importer.File) map[string]bool {
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
			importer.Each(r.Get("message.content"), func(_, c gjson.Result) bool {
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
	importer.Each(message.Get("content"), func(_, c gjson.Result) bool {
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
func ccSyntheticKind(f importer.Fields) string {
	if f.Get("isApiErrorMessage").Type == gjson.True || importer.Informative(f.Get("error")) || importer.Informative(f.Get("apiErrorStatus")) {
		return "api-error"
	}
	return "synthetic"
}
