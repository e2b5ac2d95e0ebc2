package importer

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// OpenCode sessions (sst/opencode, packages/opencode/src/session/
// message-v2.ts): `opencode export [id]` prints {info, messages: [{info,
// parts}], todos}; its file storage holds the same pieces as
// storage/session/<project>/<session>.json, storage/message/<session>/
// <message>.json and storage/part/<message>/<part>.json, which
// OpenCodeStorage puts together in that shape.
//
// A user message is a prompt: its text parts (synthetic ones, which
// OpenCode adds itself, are a prompt of role harness; ignored ones, never
// sent, stay in metadata), its file parts with data: URLs as parts. An
// assistant message holds one model call per step (step-start …
// step-finish): each is an llm_call with the step's text, reasoning and
// usage (step-finish tokens; cost in metadata.usage), followed by a
// tool_call per tool part, whose state gives the input, the output, the
// error (status "error") and the times. A message without steps is one
// call, with the message's tokens. A failed call (info.error) has the
// error's name and message. A tool part whose state is "error", or whose
// metadata.exit is not 0 (a command that ran and failed, state
// "completed"), is a failed call, with that exit code. Patch and snapshot parts are in the step's
// metadata; the session's info and todos in metadata.opencode, its
// directory also as metadata.session.cwd.

func importOpenCode(b *Builder, data []byte) error {
	doc, whole, err := b.wholeDoc(data)
	if err != nil {
		return err
	}
	if !whole || !doc.IsObject() || !doc.Get("messages").IsArray() {
		return b.Errorf("", "expected an OpenCode export: an object with info and messages")
	}
	info := doc.Get("info")
	b.MapRecord()
	if dir := info.Get("directory").String(); dir != "" {
		b.Root(dir)
		b.Meta.Set("session", Obj{{"cwd", Quote(dir)}}.Raw())
	}
	b.Seen(Timestamp(info.Get("time.created")))
	var meta Obj
	meta.Set("session", Raw(info))
	meta.Set("todos", Raw(doc.Get("todos")))
	b.Meta.Set("opencode", meta.Raw())
	for i, m := range Elems(doc.Get("messages")) {
		where := fmt.Sprintf("messages[%d]", i)
		if err := openCodeMessage(b, m, where); err != nil {
			return err
		}
	}
	b.AgentFiles()
	return nil
}

func openCodeMessage(b *Builder, m gjson.Result, where string) error {
	info := m.Get("info")
	parts := m.Get("parts")
	if !info.IsObject() || parts.Exists() && !parts.IsArray() {
		return b.Errorf(where, "expected {info, parts}")
	}
	b.MapRecord()
	ts := Timestamp(info.Get("time.created"))
	switch role := info.Get("role").String(); role {
	case "user":
		return openCodeUser(b, info, parts, ts, where)
	case "assistant":
		return openCodeAssistant(b, info, parts, ts, where)
	default:
		return b.Errorf(at(where, "info.role"), "expected \"user\" or \"assistant\", got %q", role)
	}
}

func openCodeUser(b *Builder, info, parts gjson.Result, ts, where string) error {
	if s := info.Get("system"); s.Type == gjson.String && s.Str != "" {
		b.SystemPrompt(s.Str, nil)
	}
	user := &Msg{Role: "user", TS: ts, Meta: Rest(info, "role", "time.created", "system")}
	harness := &Msg{Role: "harness", TS: ts}
	var media []execlog.Part
	var other List
	for _, p := range Elems(parts) {
		switch p.Get("type").String() {
		case "text":
			t := p.Get("text").String()
			switch {
			case p.Get("ignored").Type == gjson.True:
				other = append(other, Raw(p))
			case p.Get("synthetic").Type == gjson.True:
				harness.AddText(t)
			default:
				user.AddText(t)
			}
		case "file":
			if mt, d, ok := dataURL(p.Get("url").String()); ok {
				part := execlog.Part{Type: PartType(mt), MediaType: mt, Content: execlog.Base64(d)}
				if b.ValidBase64(part, d, where) {
					media = append(media, part)
					continue
				}
			}
			other = append(other, Raw(p))
		default:
			other = append(other, Raw(p))
		}
	}
	user.Meta.Set("parts", other.Raw())
	if len(media) > 0 {
		user.Parts = append([]execlog.Part{{Type: manifest.PartText, Content: execlog.Text(user.Text)}}, media...)
		user.hasText = true
	}
	if user.hasText || len(harness.Text) == 0 {
		user.hasText = true
		b.Add(user)
	}
	if harness.hasText {
		b.Prompt("harness", harness.Text, Obj{{"synthetic", JSONTrue}}, ts)
	}
	return nil
}

// openCodeAssistant adds an assistant message: one model call per step.
func openCodeAssistant(b *Builder, info, parts gjson.Result, ts, where string) error {
	model := info.Get("modelID").String()
	b.SetModel(model)
	if cwd := info.Get("path.cwd").String(); cwd != "" {
		b.Root(cwd)
	}
	var params Obj
	params.Set("model", Raw(info.Get("modelID")))
	params.Set("provider", Raw(info.Get("providerID")))
	msgMeta := Rest(info, "role", "modelID", "providerID", "tokens", "cost", "time.created", "error", "parentID", "sessionID")
	type turn struct {
		m      *Msg
		tools  []gjson.Result
		finish gjson.Result
		extra  List
	}
	var turns []*turn
	cur := func() *turn {
		if len(turns) == 0 {
			turns = append(turns, &turn{m: &Msg{Role: "assistant"}})
		}
		return turns[len(turns)-1]
	}
	for _, p := range Elems(parts) {
		// A step's time is that of its first part that has one.
		if t := Timestamp(first(p, "time.start", "state.time.start")); t != "" && len(turns) > 0 && cur().m.TS == "" {
			cur().m.TS = t
		}
		switch p.Get("type").String() {
		case "step-start":
			t := &turn{m: &Msg{Role: "assistant"}}
			if s := p.Get("snapshot"); s.Exists() {
				t.m.Meta.Set("snapshot", Raw(s))
			}
			turns = append(turns, t)
		case "step-finish":
			cur().finish = p
		case "text":
			cur().m.AddText(p.Get("text").String())
		case "reasoning":
			cur().m.Reasoning = append(cur().m.Reasoning, p.Get("text").String())
		case "tool":
			cur().tools = append(cur().tools, p)
		default: // patch, snapshot, agent, retry, compaction, subtask
			cur().extra = append(cur().extra, Raw(p))
		}
	}
	if len(turns) == 0 {
		cur()
	}
	for i, t := range turns {
		if i == 0 || t.m.TS == "" {
			t.m.TS = ts // the message's, for its first call
		}
		t.m.Params = params.Raw()
		if i == 0 {
			t.m.Meta = Join(msgMeta, t.m.Meta)
		}
		t.m.Meta.Set("parts", t.extra.Raw())
		var tokens, cost gjson.Result
		if t.finish.Exists() {
			tokens, cost = t.finish.Get("tokens"), t.finish.Get("cost")
			t.m.Meta.Set("finish", Rest(t.finish, "type", "tokens", "cost", "id", "sessionID", "messageID").Raw())
		} else if len(turns) == 1 {
			tokens, cost = info.Get("tokens"), info.Get("cost")
		}
		if u := openCodeUsage(tokens, cost); u != nil {
			t.m.Meta.Set("usage", u)
		}
		if i == len(turns)-1 {
			if e := info.Get("error"); e.Exists() {
				t.m.failed = &Failure{Msg: strings.TrimSpace(e.Get("name").String() + ": " + e.Get("data.message").String())}
				t.m.Meta.Set("error", Raw(e))
			}
		}
		for _, tp := range t.tools {
			st := tp.Get("state")
			c := &Call{ID: tp.Get("callID").String(), Name: tp.Get("tool").String(), Args: Raw(st.Get("input")),
				TS: Timestamp(st.Get("time.start")), Meta: Rest(tp, "type", "callID", "tool", "state", "id", "sessionID", "messageID")}
			t.m.Calls = append(t.m.Calls, c)
		}
		b.Add(t.m)
		for _, tp := range t.tools {
			openCodeResult(b, tp, where)
		}
	}
	return nil
}

// openCodeUsage renames a tokens object as usage, with the cost.
func openCodeUsage(tokens, cost gjson.Result) []byte {
	if !tokens.IsObject() {
		return nil
	}
	var u Obj
	u.Set("input_tokens", Raw(tokens.Get("input")))
	u.Set("output_tokens", Raw(tokens.Get("output")))
	u.Set("reasoning_tokens", Raw(tokens.Get("reasoning")))
	u.Set("cache_read_input_tokens", Raw(tokens.Get("cache.read")))
	u.Set("cache_creation_input_tokens", Raw(tokens.Get("cache.write")))
	u.Set("total_tokens", Raw(tokens.Get("total")))
	u.Set("cost", Raw(cost))
	return u.Raw()
}

// openCodeResult joins a tool part's state to its call.
func openCodeResult(b *Builder, tp gjson.Result, where string) {
	st := tp.Get("state")
	r := &Result{ID: tp.Get("callID").String(), name: tp.Get("tool").String(), TS: Timestamp(st.Get("time.end"))}
	switch st.Get("status").String() {
	case "completed":
		r.SetOutput(st.Get("output"))
		var media []execlog.Part
		var other List
		for _, a := range Elems(st.Get("attachments")) {
			if mt, d, ok := dataURL(a.Get("url").String()); ok {
				part := execlog.Part{Type: PartType(mt), MediaType: mt, Content: execlog.Base64(d)}
				if b.ValidBase64(part, d, where) {
					media = append(media, part)
					continue
				}
			}
			other = append(other, Raw(a))
		}
		if len(media) > 0 {
			r.Parts = append([]execlog.Part{{Type: manifest.PartText, Content: execlog.Text(r.Text())}}, media...)
		}
		r.Meta.Set("attachments", other.Raw())
		// A command that ran and exited non-zero completes: its exit
		// code says it failed.
		if e := st.Get("metadata.exit"); e.Type == gjson.Number && IsDigits(strings.TrimPrefix(e.Raw, "-")) && e.Raw != "0" {
			r.IsError, r.Failure.ExitCode = true, Raw(e)
		}
	case "error":
		r.IsError = true
		r.Failure.Msg = st.Get("error").String()
		if e := st.Get("metadata.exit"); e.Type == gjson.Number && IsDigits(strings.TrimPrefix(e.Raw, "-")) {
			r.Failure.ExitCode = Raw(e)
		}
		if o := st.Get("metadata.output"); o.Type == gjson.String {
			r.SetOutput(o) // an interrupted command's output so far
		} else {
			r.SetOutput(st.Get("error"))
		}
	default: // pending, running: no result was recorded
		return
	}
	r.Meta = Join(r.Meta, Rest(st, "status", "input", "output", "error", "attachments", "time.end"))
	b.Result(r)
}

// OpenCodeStorage reads a session from OpenCode's file storage: given
// storage/session/<project>/<session>.json, it reads the session's
// messages (storage/message/<session>/*.json) and their parts
// (storage/part/<message>/*.json) and returns them as `opencode export`
// prints them, ordered by id (OpenCode's ids sort by time). It returns
// nil when name is not such a file.
func OpenCodeStorage(name string) ([]byte, error) {
	dir := filepath.Dir(name)
	storage := filepath.Dir(filepath.Dir(dir))
	if filepath.Base(filepath.Dir(dir)) != "session" || filepath.Ext(name) != ".json" {
		return nil, nil
	}
	info, err := found.ReadFile(name, found.Rule{What: "OpenCode session file", Max: MaxTranscript})
	if err != nil {
		return nil, err
	}
	id := gjson.GetBytes(info, "id").String()
	if id == "" || id != strings.TrimSuffix(filepath.Base(name), ".json") {
		return nil, nil
	}
	msgs, err := readJSONDir(filepath.Join(storage, "message", id), storage)
	if err != nil {
		return nil, err
	}
	var sb strings.Builder
	sb.WriteString(`{"info":`)
	sb.Write(info)
	sb.WriteString(`,"messages":[`)
	for i, m := range msgs {
		if i > 0 {
			sb.WriteByte(',')
		}
		mid := gjson.GetBytes(m, "id").String()
		if mid == "" || strings.ContainsAny(mid, `/\`) || mid == "." || mid == ".." {
			return nil, fmt.Errorf("%s: a message of the session has no usable id", filepath.Join(storage, "message", id))
		}
		parts, err := readJSONDir(filepath.Join(storage, "part", mid), storage)
		if err != nil {
			return nil, err
		}
		sb.WriteString(`{"info":`)
		sb.Write(m)
		sb.WriteString(`,"parts":[`)
		for j, p := range parts {
			if j > 0 {
				sb.WriteByte(',')
			}
			sb.Write(p)
		}
		sb.WriteString(`]}`)
	}
	sb.WriteString(`]}`)
	return []byte(sb.String()), nil
}

// readJSONDir reads the .json files of dir, sorted by name (none when
// dir does not exist): regular files of a bounded size, inside storage.
func readJSONDir(dir, storage string) ([][]byte, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out [][]byte
	for _, n := range names {
		data, err := found.ReadFile(n, found.Rule{What: "OpenCode storage file", Max: MaxTranscript, Within: storage})
		if err != nil {
			return nil, err
		}
		if !gjson.ValidBytes(data) {
			return nil, fmt.Errorf("%s: invalid JSON", n)
		}
		out = append(out, []byte(strings.TrimSpace(string(data))))
	}
	return out, nil
}

// openCodeFileTools are the tools that write files (Format.FileTools).
var openCodeFileTools = map[string]FileTool{
	"write": {Path: "filePath", Content: "content"},
	"edit":  {Path: "filePath", Old: "oldString", New: "newString", All: "replaceAll"},
}
