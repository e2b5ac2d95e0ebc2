package gemini

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// Gemini CLI writes three forms (google-gemini/gemini-cli,
// packages/core/src/services/chatRecordingService.ts and
// output/types.ts):
//
//   - saved sessions, ~/.gemini/tmp/<project hash>/chats/session-*.jsonl:
//     a metadata line ({sessionId, projectHash, startTime, …}), then one
//     line per MessageRecord written again, whole, each time it changes
//     (the last copy wins, in the place of the first), {"$set": {…}}
//     metadata updates and {"$rewindTo": id} (the conversation from that
//     message on is undone). "$set.messages" restates the conversation
//     (--resume writes it again as the model API's Contents: a model
//     turn's calls as functionCall parts, their results in a user
//     message of id "<turn id>_response", no usage): a message already
//     read keeps its record, a new one joins after the message before
//     it, and none is dropped. Older versions wrote one JSON
//     ConversationRecord (session-*.json) with the messages in an array.
//   - checkpoints (/chat save <tag>: checkpoint-<tag>.json): the
//     conversation as the model API's Content list
//     (importGeminiCheckpoint);
//   - the headless transcript, gemini -p … --output-format stream-json:
//     init, message (assistant text in deltas), tool_use, tool_result,
//     error and result events, one per line.
//
// A MessageRecord of type "user" is a prompt, "gemini" a model turn
// (content its text, thoughts its reasoning, tokens its usage, model its
// parameters) with its toolCalls, each holding its own result and
// status; "info", "error" and "warning" records (shown to the user, never
// sent to the model) are kept in metadata.gemini_messages. A user
// message that holds only functionResponse parts repeats the results
// its calls' records hold (a result no record holds joins its call): it
// is no prompt. The CLI's own context (<session_context>: the date, the
// operating system, the workspace directories; lib/agent/gemini) is a
// prompt of role "harness", its text byte for byte, its kind in
// metadata.prompts[i].harness; the first workspace directory it names is
// the working directory (metadata.session.cwd), which paths in
// parameters are made relative to. A run_shell_command whose answer ends
// with "Exit Code: N" (N not 0) failed with that exit code, whatever its
// status says.

// Name is the format's name, as given to ctx-pack --from.
const Name = "gemini-cli"

// Format is Gemini CLI's saved sessions, checkpoints and stream-json
// transcripts.
var Format = importer.Format{Name: Name, Noun: "session", Session: true, Import: importGemini, FileTools: fileTools, Match: match}

// match tells any of the three forms by its first record.
func match(rec gjson.Result) bool {
	has := func(p string) bool { return rec.Get(p).Exists() }
	switch {
	case rec.Get("history.0.parts").IsArray() || has("role") && rec.Get("parts").IsArray():
		return true // a checkpoint: {history: Content[]}, or the list alone
	case geminiChat(rec):
		return true
	}
	return has("sessionId") && has("projectHash") || geminiEvent(rec)
}

// geminiChat reports whether rec is a Gemini CLI chat whose messages are
// MessageRecords (type "user", "gemini", "info", …, an id and content,
// no role): a messages array, as a Chat Completions request has.
func geminiChat(rec gjson.Result) bool {
	m := rec.Get("messages.0")
	switch m.Get("type").String() {
	case "user", "gemini", "info", "error", "warning":
		return !m.Get("role").Exists() && m.Get("id").Exists() && m.Get("content").Exists()
	}
	return false
}

// geminiEvent reports whether rec is an event of Gemini CLI's headless
// transcript (gemini -p … --output-format stream-json), whichever comes
// first: each has a type and a timestamp string; a message's content is
// a string (an Anthropic message's is a list of blocks, and it has no
// timestamp), a tool event names its call by tool_id.
func geminiEvent(rec gjson.Result) bool {
	if rec.Get("timestamp").Type != gjson.String {
		return false
	}
	switch rec.Get("type").String() {
	case "init":
		return rec.Get("session_id").Exists() && rec.Get("model").Exists()
	case "message":
		return rec.Get("role").Type == gjson.String && rec.Get("content").Type == gjson.String
	case "tool_use":
		return rec.Get("tool_id").Exists() && rec.Get("tool_name").Exists()
	case "tool_result":
		return rec.Get("tool_id").Exists() && rec.Get("status").Exists()
	}
	return false
}

func importGemini(b *importer.Builder, data []byte) error {
	doc, whole, err := b.WholeDoc(data)
	if err != nil {
		return err
	}
	if whole && (doc.Get("history").IsArray() || doc.IsArray() && doc.Get("0.parts").IsArray()) {
		return importGeminiCheckpoint(b, doc)
	}
	if whole && doc.IsObject() && doc.Get("messages").IsArray() {
		g := &geminiSession{b: b}
		g.meta(doc, "messages")
		for i, m := range importer.Elems(doc.Get("messages")) {
			b.MapRecord() // a record is a message
			g.put(m, fmt.Sprintf("messages[%d]", i))
		}
		if b.Records == 0 {
			return b.Errorf("messages", "the session holds no message")
		}
		if err := g.finish(); err != nil {
			return err
		}
		b.AgentFiles()
		return nil
	}
	if whole && !doc.IsObject() {
		return b.Errorf("", "expected a Gemini CLI session (an object or JSON Lines), got %s", importer.Kind(doc))
	}
	first, _ := importer.FirstRecord(data)
	if first.Get("type").Exists() && !first.Get("sessionId").Exists() {
		return importGeminiStream(b, data)
	}
	g := &geminiSession{b: b}
	err = b.JSONLines(data, func(where string, rec gjson.Result) error {
		switch {
		case rec.Get("$rewindTo").Exists():
			b.MapRecord()
			g.rewind(rec.Get("$rewindTo").String(), where)
		case rec.Get("$set").IsObject():
			b.MapRecord()
			set := rec.Get("$set")
			if ms := set.Get("messages"); ms.IsArray() {
				g.restate(importer.Elems(ms))
			}
			g.meta(set, "messages")
		case rec.Get("id").Exists() && rec.Get("type").Exists():
			b.MapRecord()
			g.put(rec, where)
		case rec.Get("sessionId").Exists():
			b.MapRecord()
			g.meta(rec, "messages")
			for i, m := range importer.Elems(rec.Get("messages")) {
				g.put(m, importer.At(where, fmt.Sprintf("messages[%d]", i)))
			}
		default:
			b.Skip("a line of no known kind")
		}
		return nil
	})
	if err != nil {
		return err
	}
	if b.Mapped == 0 {
		return b.Errorf("", "the input holds no Gemini CLI session record")
	}
	if err := g.finish(); err != nil {
		return err
	}
	b.AgentFiles()
	return nil
}

// geminiSession is a saved session being read: its messages by id, in
// the order of their first record.
type geminiSession struct {
	b       *importer.Builder
	order   []string
	byID    map[string]gjson.Result
	session importer.Obj
}

func (g *geminiSession) meta(rec gjson.Result, skip ...string) {
	importer.Each(rec, func(k, v gjson.Result) bool {
		for _, s := range skip {
			if k.Str == s {
				return true
			}
		}
		g.session.Set(k.Str, importer.Raw(v))
		return true
	})
}

func (g *geminiSession) put(m gjson.Result, where string) {
	if g.byID == nil {
		g.byID = map[string]gjson.Result{}
	}
	id := m.Get("id").String()
	if id == "" {
		// Older sessions' messages may have no id: each is its own.
		id = fmt.Sprintf("\x00%d", len(g.order))
	}
	if _, ok := g.byID[id]; !ok {
		g.order = append(g.order, id)
	}
	g.byID[id] = m
}

// rewind undoes the conversation from message id on, as Gemini CLI does
// (all of it when no message has the id).
func (g *geminiSession) rewind(id, where string) {
	i := 0
	for i < len(g.order) && g.order[i] != id {
		i++
	}
	if i == len(g.order) {
		i = 0
	}
	n := len(g.order) - i
	if n > 0 {
		g.b.Warn("%s: $rewindTo undid %d message(s); they are not in the log", where, n)
	}
	for _, id := range g.order[i:] {
		delete(g.byID, id)
	}
	g.order = g.order[:i]
}

// restate reads a $set of the messages: each already read keeps its
// record and place; a new one joins after the message before it in the
// list (at the end when none is known before it).
func (g *geminiSession) restate(ms []gjson.Result) {
	at := len(g.order)
	for _, m := range ms {
		id := m.Get("id").String()
		if _, ok := g.byID[id]; ok && id != "" {
			at = slices.Index(g.order, id) + 1
			continue
		}
		g.put(m, "")
		if last := len(g.order) - 1; at < last {
			// put appended it: move it to at.
			id := g.order[last]
			copy(g.order[at+1:], g.order[at:last])
			g.order[at] = id
		}
		at++
	}
}

func (g *geminiSession) finish() error {
	b := g.b
	if ts := importer.Timestamp(gjson.ParseBytes(g.session.Get("startTime"))); ts != "" {
		b.Seen(ts)
	}
	b.Meta.Set("gemini", g.session.Raw())
	for _, id := range g.order {
		if err := g.message(g.byID[id]); err != nil {
			return err
		}
	}
	return nil
}

// message adds one MessageRecord.
func (g *geminiSession) message(r gjson.Result) error {
	b := g.b
	typ := r.Get("type").String()
	ts := importer.Timestamp(r.Get("timestamp"))
	m := &importer.Msg{TS: ts}
	where := "message " + r.Get("id").String()
	if err := geminiParts(b, m, r.Get("content"), where); err != nil {
		return err
	}
	switch typ {
	case "user":
		m.Role = "user"
		m.Meta = importer.Join(m.Meta, importer.Rest(r, "type", "content", "timestamp"))
		geminiUser(b, m)
		if !m.HasText && len(m.Parts) == 0 && len(m.Results) == 0 {
			m.HasText = true // an empty prompt is still one
		}
		b.Add(m)
	case "gemini":
		m.Role = "assistant"
		for _, t := range importer.Elems(r.Get("thoughts")) {
			if d := t.Get("description"); d.Type == gjson.String {
				m.Reasoning = append(m.Reasoning, d.Str)
			}
		}
		if v := r.Get("model"); v.Type == gjson.String {
			m.Params = importer.Obj{{K: "model", V: importer.Raw(v)}}.Raw()
			b.SetModel(v.Str)
		}
		m.Meta = importer.Join(m.Meta, importer.Rest(r, "type", "content", "timestamp", "model", "toolCalls", "tokens"))
		if t := r.Get("tokens"); t.IsObject() {
			m.Meta.Set("usage", geminiTokens(t))
		}
		var results []*importer.Result
		if r.Get("toolCalls.0").Exists() {
			m.Calls = nil // the records hold them, with their results
		}
		for i, tc := range importer.Elems(r.Get("toolCalls")) {
			c, res := geminiCall(b, tc, fmt.Sprintf("%s: toolCalls[%d]", where, i))
			m.Calls = append(m.Calls, c)
			if res != nil {
				results = append(results, res)
			}
		}
		b.Add(m)
		for _, res := range results {
			b.Result(res)
		}
	case "info", "error", "warning":
		b.AppendMeta("gemini_messages", importer.Raw(r))
	default:
		b.Warn("%s: message type %q is not known; kept in metadata.gemini_messages", where, typ)
		b.AppendMeta("gemini_messages", importer.Raw(r))
	}
	return nil
}

// geminiUser reads what a user message is besides a prompt: the CLI's
// own context (a harness prompt, which names the working directory), or
// results whose answers may tell a command's exit code.
func geminiUser(b *importer.Builder, m *importer.Msg) {
	if kind := Context(m.Text); kind != "" && len(m.Parts) == 0 {
		m.Role = importer.HarnessRole
		m.Meta.SetString("harness", kind)
		if dir := Workdir(m.Text); dir != "" && len(b.Roots) == 0 {
			b.Root(dir)
			b.Meta.Set("session", importer.Obj{{K: "cwd", V: importer.Quote(dir)}}.Raw())
		}
	}
	for _, r := range m.Results {
		geminiShellExit(r, r.Name)
	}
}

// geminiTokens renames a TokensSummary's counters as usage.
func geminiTokens(t gjson.Result) []byte {
	var u importer.Obj
	names := map[string]string{"input": "input_tokens", "output": "output_tokens", "cached": "cache_read_input_tokens",
		"thoughts": "reasoning_tokens", "total": "total_tokens"}
	importer.Each(t, func(k, v gjson.Result) bool {
		if n, ok := names[k.Str]; ok {
			u.Set(n, importer.Raw(v))
		} else {
			u.Set(k.Str, importer.Raw(v))
		}
		return true
	})
	return u.Raw()
}

// geminiCall reads a ToolCallRecord: the call, and its result when it
// has one (result holds the functionResponse parts sent to the model).
func geminiCall(b *importer.Builder, tc gjson.Result, where string) (*importer.Call, *importer.Result) {
	id := tc.Get("id").String()
	c := &importer.Call{ID: id, Name: tc.Get("name").String(), Args: importer.Args(tc.Get("args")), TS: importer.Timestamp(tc.Get("timestamp")),
		Meta: importer.Rest(tc, "id", "name", "args", "result", "timestamp", "status", "resultDisplay")}
	status := tc.Get("status").String()
	res := tc.Get("result")
	if !res.Exists() && status == "" {
		return c, nil
	}
	r := &importer.Result{ID: id, Name: c.Name, TS: c.TS}
	r.Meta.Set("status", importer.Raw(tc.Get("status")))
	r.Meta.Set("resultDisplay", importer.Raw(tc.Get("resultDisplay")))
	var texts []string
	var parts []execlog.Part
	importer.Each(res, func(_, p gjson.Result) bool {
		if fr := p.Get("functionResponse"); fr.Exists() {
			text, failed := geminiResponse(fr.Get("response"))
			if failed {
				r.IsError, r.Failure.Msg = true, text
			}
			texts = append(texts, text)
			if extra := importer.Rest(fr, "id", "name", "response"); len(extra) > 0 {
				r.Meta.Set("functionResponse", extra.Raw())
			}
			return true
		}
		if t := p.Get("text"); t.Type == gjson.String {
			texts = append(texts, t.Str)
			return true
		}
		if d := p.Get("inlineData"); d.IsObject() {
			parts = append(parts, execlog.Part{Type: importer.PartType(d.Get("mimeType").String()), MediaType: d.Get("mimeType").String(),
				Content: execlog.Base64(d.Get("data").String())})
			return true
		}
		r.Meta.Set("unmapped_result_parts", importer.Raw(res))
		return true
	})
	if res.Type == gjson.String {
		texts = append(texts, res.Str)
	}
	if len(parts) > 0 {
		var all []execlog.Part
		for _, t := range texts {
			all = append(all, execlog.Part{Type: manifest.PartText, Content: execlog.Text(t)})
		}
		r.Parts = append(all, parts...)
	}
	if res.Exists() && res.Type != gjson.Null {
		r.Output, r.HasOut = strings.Join(texts, "\n"), true
	}
	if status == "error" || status == "cancelled" {
		r.IsError = true
		if r.Failure.Msg == "" {
			r.Failure.Msg = status
		}
	}
	geminiShellExit(r, c.Name)
	return c, r
}

// geminiResponse reads a functionResponse's response: its output, or
// its error (failed), else the response as JSON.
func geminiResponse(resp gjson.Result) (text string, failed bool) {
	switch {
	case resp.Get("output").Type == gjson.String:
		return resp.Get("output").Str, false
	case resp.Get("error").Exists():
		return importer.Str(resp.Get("error")), true
	}
	return resp.Raw, false
}

// geminiFunctionCall reads a functionCall part: a call.
func geminiFunctionCall(fc gjson.Result) *importer.Call {
	return &importer.Call{ID: fc.Get("id").String(), Name: fc.Get("name").String(), Args: importer.Args(fc.Get("args")),
		Meta: importer.Rest(fc, "id", "name", "args")}
}

// geminiFunctionResponse reads a functionResponse part: a result.
func geminiFunctionResponse(fr gjson.Result) *importer.Result {
	r := &importer.Result{ID: fr.Get("id").String(), Name: fr.Get("name").String(), Meta: importer.Rest(fr, "id", "name", "response")}
	text, failed := geminiResponse(fr.Get("response"))
	r.Output, r.HasOut = text, true
	if failed {
		r.IsError, r.Failure.Msg = true, text
	}
	return r
}

// geminiShellTrailer are the lines run_shell_command writes below a
// command's output, in their order (packages/core/src/tools/shell.ts).
var geminiShellTrailer = []string{"Error: ", "Exit Code: ", "Signal: ", "Background PIDs: ", "Process Group PGID: "}

// geminiShellExit marks a run_shell_command result failed with its exit
// code when its answer's trailer (the lines below the output, read from
// the end, in the order the tool writes them) says "Exit Code: N", N
// not 0; the headless transcript's tool_result says "Command exited with
// code: N" instead.
func geminiShellExit(r *importer.Result, tool string) {
	if tool != "run_shell_command" || !r.HasOut {
		return
	}
	text := r.Text()
	if n, ok := strings.CutPrefix(text, "Command exited with code: "); ok && importer.IsDigits(strings.TrimPrefix(n, "-")) {
		if n != "0" {
			r.IsError, r.Failure.ExitCode = true, []byte(n)
		}
		return
	}
	text = strings.TrimSuffix(strings.TrimPrefix(text, "<untrusted_context>\n"), "\n</untrusted_context>")
	lines := strings.Split(text, "\n")
	next := len(geminiShellTrailer) // the trailer lines still allowed above
	for i := len(lines) - 1; i > 0 && next > 0; i-- {
		k := slices.IndexFunc(geminiShellTrailer[:next], func(p string) bool { return strings.HasPrefix(lines[i], p) })
		if k < 0 {
			return
		}
		next = k
		if n, ok := strings.CutPrefix(lines[i], "Exit Code: "); ok && importer.IsDigits(strings.TrimPrefix(n, "-")) && n != "0" {
			r.IsError, r.Failure.ExitCode = true, []byte(n)
			return
		}
	}
}

// The kinds of a Gemini part geminiPart reads.
const (
	partRead    = iota // reasoning, a call or a result, kept in the message
	partText           // text, also in the message
	partMedia          // inline data, valid
	partUnknown        // none of these, or media whose data is not valid base64
)

// geminiPart reads one part of a Gemini content into m (its text,
// reasoning, function call or response) and says which kind it was; a
// text or a valid media part is also returned as a part of the message.
func geminiPart(b *importer.Builder, m *importer.Msg, p gjson.Result, where string) (execlog.Part, int) {
	switch {
	case p.Get("thought").Type == gjson.True && p.Get("text").Type == gjson.String:
		m.Reasoning = append(m.Reasoning, p.Get("text").Str)
	case p.Get("text").Type == gjson.String:
		m.AddText(p.Get("text").Str)
		return execlog.Part{Type: manifest.PartText, Content: execlog.Text(p.Get("text").Str)}, partText
	case p.Get("functionCall").IsObject():
		m.Calls = append(m.Calls, geminiFunctionCall(p.Get("functionCall")))
	case p.Get("functionResponse").IsObject():
		m.Results = append(m.Results, geminiFunctionResponse(p.Get("functionResponse")))
	case p.Get("inlineData").IsObject():
		d := p.Get("inlineData")
		part := execlog.Part{Type: importer.PartType(d.Get("mimeType").String()), MediaType: d.Get("mimeType").String(),
			Content: execlog.Base64(d.Get("data").String())}
		if !b.ValidBase64(part, d.Get("data").String(), where) {
			return execlog.Part{}, partUnknown
		}
		return part, partMedia
	default:
		return execlog.Part{}, partUnknown
	}
	return execlog.Part{}, partRead
}

// geminiParts reads a PartListUnion: a string, a Part or a list of them.
func geminiParts(b *importer.Builder, m *importer.Msg, c gjson.Result, where string) error {
	switch {
	case !c.Exists() || c.Type == gjson.Null:
		return nil
	case c.Type == gjson.String:
		m.AddText(c.Str)
		return nil
	case c.IsObject():
		c = gjson.Parse("[" + c.Raw + "]")
	case !c.IsArray():
		return b.Errorf(where, "content: expected a string or parts, got %s", importer.Kind(c))
	}
	var parts []execlog.Part
	media := false
	var unknown importer.List
	importer.Each(c, func(_, p gjson.Result) bool {
		if p.Type == gjson.String {
			m.AddText(p.Str)
			parts = append(parts, execlog.Part{Type: manifest.PartText, Content: execlog.Text(p.Str)})
			return true
		}
		switch part, kind := geminiPart(b, m, p, where); kind {
		case partText:
			parts = append(parts, part)
		case partMedia:
			parts = append(parts, part)
			media = true
		case partUnknown:
			unknown = append(unknown, importer.Raw(p))
		}
		return true
	})
	if media {
		m.Parts = parts
	}
	if len(unknown) > 0 {
		m.Meta.Set("content", unknown.Raw())
	}
	return nil
}

// importGeminiStream reads the headless stream-json transcript.
func importGeminiStream(b *importer.Builder, data []byte) error {
	var cur *importer.Msg
	tools := map[string]string{} // tool names by call id
	flush := func() {
		if cur != nil {
			b.Add(cur)
			cur = nil
		}
	}
	err := b.JSONLines(data, func(where string, rec gjson.Result) error {
		ts := importer.Timestamp(rec.Get("timestamp"))
		switch typ := rec.Get("type").String(); typ {
		case "init":
			b.MapRecord()
			b.Seen(ts)
			b.SetModel(rec.Get("model").String())
			b.Meta.Set("gemini", importer.Rest(rec, "type").Raw())
		case "message":
			b.MapRecord()
			text := rec.Get("content").String()
			if rec.Get("role").String() == "user" {
				flush()
				b.Add(&importer.Msg{Role: "user", Text: text, HasText: true, TS: ts})
				return nil
			}
			if cur == nil || len(cur.Calls) > 0 {
				flush()
				cur = &importer.Msg{Role: "assistant", TS: ts}
			}
			if rec.Get("delta").Type == gjson.True && cur.HasText {
				cur.Text += text // deltas are pieces of one text
			} else {
				cur.AddText(text)
			}
		case "tool_use":
			b.MapRecord()
			if cur == nil {
				cur = &importer.Msg{Role: "assistant", TS: ts}
			}
			cur.Calls = append(cur.Calls, &importer.Call{ID: rec.Get("tool_id").String(), Name: rec.Get("tool_name").String(),
				Args: importer.Args(rec.Get("parameters")), TS: ts})
			tools[rec.Get("tool_id").String()] = rec.Get("tool_name").String()
		case "tool_result":
			b.MapRecord()
			flush()
			r := &importer.Result{ID: rec.Get("tool_id").String(), TS: ts}
			if o := rec.Get("output"); o.Exists() {
				r.SetOutput(o)
			}
			if rec.Get("status").String() == "error" {
				r.IsError = true
				r.Failure.Msg = rec.Get("error.message").String()
				if !r.HasOut && r.Failure.Msg != "" {
					r.Output, r.HasOut = r.Failure.Msg, true
				}
			}
			geminiShellExit(r, tools[r.ID])
			r.Meta = importer.Rest(rec, "type", "tool_id", "output", "timestamp")
			b.Result(r)
		case "error", "result":
			b.MapRecord()
			flush()
			b.Seen(ts)
			b.AppendMeta("gemini_events", importer.Raw(rec))
			if typ == "result" && rec.Get("status").String() == "error" {
				b.Warn("%s: the run ended in an error: %s", where, rec.Get("error.message").String())
			}
		default:
			b.Skip(fmt.Sprintf("event type %q", typ))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if b.Mapped == 0 {
		return b.Errorf("", "the input holds no Gemini CLI stream-json event")
	}
	flush()
	b.AgentFiles()
	return nil
}

// importGeminiCheckpoint reads a checkpoint (/chat save <tag>:
// ~/.gemini/tmp/<hash>/checkpoint-<tag>.json): the conversation as the
// model API's Content list, {"history": [...], "authType"} (older
// versions: the list alone). A "user" Content's text is a prompt and its
// functionResponse parts results; a "model" Content is a model turn:
// text its output, thought parts its reasoning, functionCall parts its
// calls. A checkpoint records no times, ids of messages or usage.
func importGeminiCheckpoint(b *importer.Builder, doc gjson.Result) error {
	history := doc
	if doc.IsObject() {
		history = doc.Get("history")
		var meta importer.Obj
		meta.Set("checkpoint", importer.Rest(doc, "history").Raw())
		b.Meta.Set("gemini", meta.Raw())
	}
	for i, c := range importer.Elems(history) {
		where := fmt.Sprintf("history[%d]", i)
		if !c.IsObject() || !c.Get("parts").IsArray() {
			return b.Errorf(where, "expected a Content {role, parts}, got %s", importer.Kind(c))
		}
		b.MapRecord()
		role := c.Get("role").String()
		m := &importer.Msg{Role: "user"}
		if role == "model" {
			m.Role = "assistant"
		}
		var media []execlog.Part
		var other importer.List
		for _, p := range importer.Elems(c.Get("parts")) {
			switch part, kind := geminiPart(b, m, p, where); kind {
			case partMedia:
				media = append(media, part)
			case partUnknown:
				other = append(other, importer.Raw(p))
			}
		}
		m.Meta.Set("parts", other.Raw())
		if role != "user" && role != "model" {
			m.Meta.SetString("role", role)
		}
		if len(media) > 0 && m.Role == "user" {
			m.Parts = append([]execlog.Part{{Type: manifest.PartText, Content: execlog.Text(m.Text)}}, media...)
		}
		if m.Role == "user" {
			geminiUser(b, m)
		}
		b.Add(m)
	}
	if b.Records == 0 {
		return b.Errorf("history", "the checkpoint holds no Content")
	}
	b.AgentFiles()
	return nil
}

// fileTools are the tools that write files (importer.Format.FileTools).
var fileTools = map[string]importer.FileTool{
	"write_file": {Path: "file_path", Content: "content", After: "resultDisplay.newContent"},
	"replace":    {Path: "file_path", Old: "old_string", New: "new_string", All: "expected_replacements", After: "resultDisplay.newContent"},
}
