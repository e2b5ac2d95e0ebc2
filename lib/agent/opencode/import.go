package opencode

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/importer"
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

// Format is OpenCode's sessions: an opencode export, or a session file
// of its storage (what is beside it is read: Storage).
var Format = importer.Format{Name: Name, Noun: "session", Session: true, Import: importOpenCode, FileTools: fileTools,
	Match: match, Beside: beside}

// Name is the format's name, as given to ctx-pack --from.
const Name = "opencode"

// match tells an export (its info names a project, and it has messages)
// or a session file of the storage by the first record.
func match(rec gjson.Result) bool {
	has := func(p string) bool { return rec.Get(p).Exists() }
	return rec.Get("info.projectID").Exists() && rec.Get("messages").IsArray() ||
		has("projectID") && has("directory") && has("title") && rec.Get("time.created").Exists()
}

// beside reads the messages and parts of a session file of
// OpenCode's storage: they are files beside it.
func beside(name string) (importer.Beside, error) {
	data, err := Storage(name)
	if err != nil || data == nil {
		return importer.Beside{}, err
	}
	return importer.Beside{Data: data, Note: "reading the session's messages and parts from OpenCode's storage"}, nil
}

func importOpenCode(b *importer.Builder, data []byte) error {
	doc, whole, err := b.WholeDoc(data)
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
		b.Meta.Set("session", importer.Obj{{K: "cwd", V: importer.Quote(dir)}}.Raw())
	}
	b.Seen(importer.Timestamp(info.Get("time.created")))
	var meta importer.Obj
	meta.Set("session", importer.Raw(info))
	meta.Set("todos", importer.Raw(doc.Get("todos")))
	b.Meta.Set("opencode", meta.Raw())
	for i, m := range importer.Elems(doc.Get("messages")) {
		where := fmt.Sprintf("messages[%d]", i)
		if err := openCodeMessage(b, m, where); err != nil {
			return err
		}
	}
	b.AgentFiles()
	return nil
}

func openCodeMessage(b *importer.Builder, m gjson.Result, where string) error {
	info := m.Get("info")
	parts := m.Get("parts")
	if !info.IsObject() || parts.Exists() && !parts.IsArray() {
		return b.Errorf(where, "expected {info, parts}")
	}
	b.MapRecord()
	ts := importer.Timestamp(info.Get("time.created"))
	switch role := info.Get("role").String(); role {
	case "user":
		return openCodeUser(b, info, parts, ts, where)
	case "assistant":
		return openCodeAssistant(b, info, parts, ts, where)
	default:
		return b.Errorf(importer.At(where, "info.role"), "expected \"user\" or \"assistant\", got %q", role)
	}
}

func openCodeUser(b *importer.Builder, info, parts gjson.Result, ts, where string) error {
	if s := info.Get("system"); s.Type == gjson.String && s.Str != "" {
		b.SystemPrompt(s.Str, nil)
	}
	user := &importer.Msg{Role: "user", TS: ts, Meta: importer.Rest(info, "role", "time.created", "system")}
	harness := &importer.Msg{Role: "harness", TS: ts}
	var media []execlog.Part
	var other importer.List
	for _, p := range importer.Elems(parts) {
		switch p.Get("type").String() {
		case "text":
			t := p.Get("text").String()
			switch {
			case p.Get("ignored").Type == gjson.True:
				other = append(other, importer.Raw(p))
			case p.Get("synthetic").Type == gjson.True:
				harness.AddText(t)
			default:
				user.AddText(t)
			}
		case "file":
			if mt, d, ok := importer.DataURL(p.Get("url").String()); ok {
				part := execlog.Part{Type: importer.PartType(mt), MediaType: mt, Content: execlog.Base64(d)}
				if b.ValidBase64(part, d, where) {
					media = append(media, part)
					continue
				}
			}
			other = append(other, importer.Raw(p))
		default:
			other = append(other, importer.Raw(p))
		}
	}
	user.Meta.Set("parts", other.Raw())
	if len(media) > 0 {
		user.Parts = append([]execlog.Part{{Type: manifest.PartText, Content: execlog.Text(user.Text)}}, media...)
		user.HasText = true
	}
	if user.HasText || len(harness.Text) == 0 {
		user.HasText = true
		b.Add(user)
	}
	if harness.HasText {
		b.Prompt("harness", harness.Text, importer.Obj{{K: "synthetic", V: importer.JSONTrue}}, ts)
	}
	return nil
}

// openCodeAssistant adds an assistant message: one model call per step.
func openCodeAssistant(b *importer.Builder, info, parts gjson.Result, ts, where string) error {
	model := info.Get("modelID").String()
	b.SetModel(model)
	if cwd := info.Get("path.cwd").String(); cwd != "" {
		b.Root(cwd)
	}
	var params importer.Obj
	params.Set("model", importer.Raw(info.Get("modelID")))
	params.Set("provider", importer.Raw(info.Get("providerID")))
	msgMeta := importer.Rest(info, "role", "modelID", "providerID", "tokens", "cost", "time.created", "error", "parentID", "sessionID")
	type turn struct {
		m      *importer.Msg
		tools  []gjson.Result
		finish gjson.Result
		extra  importer.List
	}
	var turns []*turn
	cur := func() *turn {
		if len(turns) == 0 {
			turns = append(turns, &turn{m: &importer.Msg{Role: "assistant"}})
		}
		return turns[len(turns)-1]
	}
	for _, p := range importer.Elems(parts) {
		// A step's time is that of its first part that has one.
		if t := importer.Timestamp(importer.First(p, "time.start", "state.time.start")); t != "" && len(turns) > 0 && cur().m.TS == "" {
			cur().m.TS = t
		}
		switch p.Get("type").String() {
		case "step-start":
			t := &turn{m: &importer.Msg{Role: "assistant"}}
			if s := p.Get("snapshot"); s.Exists() {
				t.m.Meta.Set("snapshot", importer.Raw(s))
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
			cur().extra = append(cur().extra, importer.Raw(p))
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
			t.m.Meta = importer.Join(msgMeta, t.m.Meta)
		}
		t.m.Meta.Set("parts", t.extra.Raw())
		var tokens, cost gjson.Result
		if t.finish.Exists() {
			tokens, cost = t.finish.Get("tokens"), t.finish.Get("cost")
			t.m.Meta.Set("finish", importer.Rest(t.finish, "type", "tokens", "cost", "id", "sessionID", "messageID").Raw())
		} else if len(turns) == 1 {
			tokens, cost = info.Get("tokens"), info.Get("cost")
		}
		if u := openCodeUsage(tokens, cost); u != nil {
			t.m.Meta.Set("usage", u)
		}
		if i == len(turns)-1 {
			if e := info.Get("error"); e.Exists() {
				t.m.Failed = &importer.Failure{Msg: strings.TrimSpace(e.Get("name").String() + ": " + e.Get("data.message").String())}
				t.m.Meta.Set("error", importer.Raw(e))
			}
		}
		for _, tp := range t.tools {
			st := tp.Get("state")
			c := &importer.Call{ID: tp.Get("callID").String(), Name: tp.Get("tool").String(), Args: importer.Raw(st.Get("input")),
				TS: importer.Timestamp(st.Get("time.start")), Meta: importer.Rest(tp, "type", "callID", "tool", "state", "id", "sessionID", "messageID")}
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
	var u importer.Obj
	u.Set("input_tokens", importer.Raw(tokens.Get("input")))
	u.Set("output_tokens", importer.Raw(tokens.Get("output")))
	u.Set("reasoning_tokens", importer.Raw(tokens.Get("reasoning")))
	u.Set("cache_read_input_tokens", importer.Raw(tokens.Get("cache.read")))
	u.Set("cache_creation_input_tokens", importer.Raw(tokens.Get("cache.write")))
	u.Set("total_tokens", importer.Raw(tokens.Get("total")))
	u.Set("cost", importer.Raw(cost))
	return u.Raw()
}

// openCodeResult joins a tool part's state to its call.
func openCodeResult(b *importer.Builder, tp gjson.Result, where string) {
	st := tp.Get("state")
	r := &importer.Result{ID: tp.Get("callID").String(), Name: tp.Get("tool").String(), TS: importer.Timestamp(st.Get("time.end"))}
	switch st.Get("status").String() {
	case "completed":
		r.SetOutput(st.Get("output"))
		var media []execlog.Part
		var other importer.List
		for _, a := range importer.Elems(st.Get("attachments")) {
			if mt, d, ok := importer.DataURL(a.Get("url").String()); ok {
				part := execlog.Part{Type: importer.PartType(mt), MediaType: mt, Content: execlog.Base64(d)}
				if b.ValidBase64(part, d, where) {
					media = append(media, part)
					continue
				}
			}
			other = append(other, importer.Raw(a))
		}
		if len(media) > 0 {
			r.Parts = append([]execlog.Part{{Type: manifest.PartText, Content: execlog.Text(r.Text())}}, media...)
		}
		r.Meta.Set("attachments", other.Raw())
		// A command that ran and exited non-zero completes: its exit
		// code says it failed.
		if e := st.Get("metadata.exit"); e.Type == gjson.Number && importer.IsDigits(strings.TrimPrefix(e.Raw, "-")) && e.Raw != "0" {
			r.IsError, r.Failure.ExitCode = true, importer.Raw(e)
		}
	case "error":
		r.IsError = true
		r.Failure.Msg = st.Get("error").String()
		if e := st.Get("metadata.exit"); e.Type == gjson.Number && importer.IsDigits(strings.TrimPrefix(e.Raw, "-")) {
			r.Failure.ExitCode = importer.Raw(e)
		}
		if o := st.Get("metadata.output"); o.Type == gjson.String {
			r.SetOutput(o) // an interrupted command's output so far
		} else {
			r.SetOutput(st.Get("error"))
		}
	default: // pending, running: no result was recorded
		return
	}
	r.Meta = importer.Join(r.Meta, importer.Rest(st, "status", "input", "output", "error", "attachments", "time.end"))
	b.Result(r)
}

// Storage reads a session from OpenCode's file storage: given
// storage/session/<project>/<session>.json, it reads the session's
// messages (storage/message/<session>/*.json) and their parts
// (storage/part/<message>/*.json) and returns them as `opencode export`
// prints them, ordered by id (OpenCode's ids sort by time). It returns
// nil when name is not such a file.
func Storage(name string) ([]byte, error) {
	dir := filepath.Dir(name)
	storage := filepath.Dir(filepath.Dir(dir))
	if filepath.Base(filepath.Dir(dir)) != "session" || filepath.Ext(name) != ".json" {
		return nil, nil
	}
	info, err := found.ReadFile(name, found.Rule{What: "OpenCode session file", Max: importer.MaxTranscript})
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
		data, err := found.ReadFile(n, found.Rule{What: "OpenCode storage file", Max: importer.MaxTranscript, Within: storage})
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

// fileTools are the tools that write files (importer.Format.FileTools).
var fileTools = map[string]importer.FileTool{
	"write": {Path: "filePath", Content: "content"},
	"edit":  {Path: "filePath", Old: "oldString", New: "newString", All: "replaceAll"},
}
