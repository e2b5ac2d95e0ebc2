package importer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// A msgTable says where a message dialect keeps what the log needs. Each
// entry lists alternative gjson paths; the first that exists wins.
type msgTable struct {
	role    []string
	content []string // a string, or an array of content parts (see readParts)
	calls   []string // an array of tool calls beside the content
	callID  []string // in a call
	name    []string // in a call
	args    []string // in a call
	// In a tool result message:
	resultID   []string
	resultName []string
	resultErr  []string
	// Members mapped above, left out of the message's metadata; for calls,
	// left out of the call's metadata.
	mapped     []string
	callMapped []string
}

// chatTable reads OpenAI Chat Completions messages (also LangSmith's
// OpenAI-shaped inputs and the OTel events of the older conventions).
var chatTable = &msgTable{
	role:       []string{"role"},
	content:    []string{"content"},
	calls:      []string{"tool_calls"},
	callID:     []string{"id"},
	name:       []string{"function.name"},
	args:       []string{"function.arguments"},
	resultID:   []string{"tool_call_id", "id"},
	resultName: []string{"name"},
	mapped:     []string{"role", "content", "tool_calls", "tool_call_id", "name", "function_call"},
	callMapped: []string{"id", "type", "function.name", "function.arguments"},
}

// anthropicTable reads Anthropic Messages (also Claude Code): tool calls and
// results are content blocks.
var anthropicTable = &msgTable{
	role:    []string{"role"},
	content: []string{"content"},
	mapped:  []string{"role", "content"},
}

// inspectTable reads Inspect AI ChatMessages.
var inspectTable = &msgTable{
	role:       []string{"role"},
	content:    []string{"content"},
	calls:      []string{"tool_calls"},
	callID:     []string{"id"},
	name:       []string{"function"},
	args:       []string{"arguments"},
	resultID:   []string{"tool_call_id"},
	resultName: []string{"function"},
	resultErr:  []string{"error"},
	mapped:     []string{"role", "content", "tool_calls", "tool_call_id", "function", "error"},
	callMapped: []string{"id", "type", "function", "arguments"},
}

// otelTable reads GenAI semantic-convention messages: the current form
// ({role, parts}) and the OpenAI-shaped bodies of the older events.
var otelTable = &msgTable{
	role:       []string{"role"},
	content:    []string{"parts", "content"},
	calls:      []string{"tool_calls"},
	callID:     []string{"id"},
	name:       []string{"function.name", "name"},
	args:       []string{"function.arguments", "arguments"},
	resultID:   []string{"tool_call_id", "id"},
	resultName: []string{"name"},
	mapped:     []string{"role", "parts", "content", "tool_calls", "tool_call_id", "id", "name"},
	callMapped: []string{"id", "type", "function.name", "function.arguments", "name", "arguments"},
}

// lcTable reads LangChain serialised messages' kwargs.
var lcTable = &msgTable{
	role:       []string{"role"},
	content:    []string{"content"},
	calls:      []string{"tool_calls"},
	callID:     []string{"id"},
	name:       []string{"name", "function.name"},
	args:       []string{"args", "function.arguments"},
	resultID:   []string{"tool_call_id"},
	resultName: []string{"name"},
	resultErr:  []string{"status"},
	mapped:     []string{"role", "content", "tool_calls", "tool_call_id", "name", "type", "status"},
	callMapped: []string{"id", "type", "name", "args", "function.name", "function.arguments"},
}

// readMsgs reads an array of messages.
func (b *Builder) readMsgs(arr gjson.Result, t *msgTable, where string) ([]*Msg, error) {
	if !arr.Exists() || arr.Type == gjson.Null {
		return nil, nil
	}
	if !arr.IsArray() {
		return nil, b.Errorf(where, "expected an array of messages, got %s", Kind(arr))
	}
	var out []*Msg
	var err error
	i := 0
	Each(arr, func(_, m gjson.Result) bool {
		var ms *Msg
		ms, err = b.readMsg(m, t, fmt.Sprintf("%s[%d]", where, i), "")
		if err != nil {
			return false
		}
		out = append(out, ms)
		i++
		return true
	})
	return out, err
}

// readMsg reads one message with table t. A message without a role has
// role defRole, or is an error if defRole is "".
func (b *Builder) readMsg(m gjson.Result, t *msgTable, where, defRole string) (*Msg, error) {
	if !m.IsObject() {
		return nil, b.Errorf(where, "expected a message object, got %s", Kind(m))
	}
	f := FieldsOf(m)
	role := f.First(t.role...).String()
	if role == "" {
		if defRole == "" {
			return nil, b.Errorf(where, "message has no role")
		}
		role = defRole
	}
	ms := &Msg{Role: normRole(role), Meta: f.Rest(t.mapped...)}
	content := f.First(t.content...)
	if ms.Role == "tool" || ms.Role == "function" {
		ms.Role = "tool"
		r := &Result{ID: f.First(t.resultID...).String(), Name: f.First(t.resultName...).String()}
		var partResults []*Result
		if content.Type == gjson.String {
			r.SetOutput(content)
		} else if content.Exists() {
			part := &Msg{}
			if err := b.ReadParts(part, content, where+".content"); err != nil {
				return nil, err
			}
			r.Output, r.HasOut = part.Text, part.HasText || len(part.Results) == 0
			r.Parts = part.Parts
			if len(part.Meta) > 0 {
				r.Meta = part.Meta
			}
			partResults = part.Results
		}
		if e := f.First(t.resultErr...); Informative(e) && e.Type != gjson.False {
			r.IsError = e.Type != gjson.String || e.Str != "success"
			if r.IsError {
				// Inspect's typed ToolCallError: its message is the step's
				// error, the whole of it stays in the metadata.
				r.Meta.Set("error", Raw(e))
				r.Failure.Msg = e.Get("message").String()
			}
		}
		r.Meta = Join(r.Meta, ms.Meta)
		ms.Meta = nil
		if r.ID == "" && len(partResults) > 0 {
			// Results given as content parts (GenAI tool_call_response).
			for _, pr := range partResults {
				pr.Meta = Join(pr.Meta, r.Meta)
			}
			ms.Results = partResults
			return ms, nil
		}
		ms.Results = append(ms.Results, r)
		return ms, nil
	}
	if err := b.ReadParts(ms, content, where+".content"); err != nil {
		return nil, err
	}
	if len(t.calls) > 0 {
		calls := f.First(t.calls...)
		if Informative(calls) && !calls.IsArray() {
			return nil, b.Errorf(where+".tool_calls", "expected an array, got %s", Kind(calls))
		}
		Each(calls, func(_, c gjson.Result) bool {
			cf := FieldsOf(c)
			ms.Calls = append(ms.Calls, &Call{
				ID:   cf.First(t.callID...).String(),
				Name: cf.First(t.name...).String(),
				Args: Args(cf.First(t.args...)),
				Meta: cf.Rest(t.callMapped...),
			})
			return true
		})
		// The legacy single function_call of Chat Completions.
		if fc := f.Get("function_call"); fc.IsObject() {
			ms.Calls = append(ms.Calls, &Call{Name: fc.Get("name").String(), Args: Args(fc.Get("arguments"))})
		}
	}
	return ms, nil
}

func normRole(r string) string {
	switch r {
	case "human", "HumanMessage", "HumanMessageChunk":
		return "user"
	case "ai", "model", "AIMessage", "AIMessageChunk":
		return "assistant"
	case "SystemMessage":
		return "system"
	case "ToolMessage", "FunctionMessage":
		return "tool"
	}
	return r
}

// ReadAnthropic reads one Anthropic Messages message (readMsg with
// anthropicTable).
func (b *Builder) ReadAnthropic(m gjson.Result, where, defRole string) (*Msg, error) {
	return b.readMsg(m, anthropicTable, where, defRole)
}

// ReadParts reads a content value into m: a string is text; an array holds
// content parts: text, reasoning, tool calls and tool results in any of the
// dialects' spellings. Parts it does not know are kept in m's metadata.
func (b *Builder) ReadParts(m *Msg, c gjson.Result, where string) error {
	switch {
	case !c.Exists() || c.Type == gjson.Null:
		return nil
	case c.Type == gjson.String:
		if c.Str != "" { // "" is how some SDKs say "no text"
			m.AddText(c.Str)
		}
		return nil
	case !c.IsArray():
		return b.Errorf(where, "expected a string or an array of content parts, got %s", Kind(c))
	}
	var unknown List
	var parts []execlog.Part // every text and media part, in order
	media := false
	text := func(s string) {
		m.AddText(s)
		parts = append(parts, execlog.Part{Type: manifest.PartText, Content: execlog.Text(s)})
	}
	Each(c, func(_, p gjson.Result) bool {
		if p.Type == gjson.String {
			text(p.Str)
			return true
		}
		f := FieldsOf(p)
		typ := f.Get("type").String()
		if part, b64, extra, ok := MediaPart(f, typ, b.attachment); ok && b.ValidBase64(part, b64, where) {
			parts = append(parts, part)
			media = true
			if len(extra) > 0 {
				unknown = append(unknown, extra.Raw())
			}
			return true
		}
		switch typ {
		case "text", "input_text", "output_text", "":
			t := f.First("text", "content")
			if t.Type != gjson.String {
				unknown = append(unknown, Raw(p))
				return true
			}
			text(t.Str)
			if extra := f.Rest("text", "content", "type"); len(extra) > 0 {
				unknown = append(unknown, f.Rest("text", "content").Raw())
			}
		case "redacted_thinking":
			// Encrypted thinking: the block's JSON text is the reasoning.
			m.Reasoning = append(m.Reasoning, p.Raw)
		case "thinking", "reasoning", "reasoning_text", "summary_text":
			t := f.First("thinking", "reasoning", "text", "content")
			if t.Type == gjson.String {
				m.Reasoning = append(m.Reasoning, t.Str)
			}
			if extra := f.Rest("thinking", "reasoning", "text", "content", "type"); len(extra) > 0 {
				unknown = append(unknown, f.Rest("thinking", "reasoning", "text", "content").Raw())
			}
		case "tool_use", "server_tool_use", "mcp_tool_use", "tool_call":
			m.Calls = append(m.Calls, &Call{
				ID:   f.First("call_id", "id").String(),
				Name: f.Get("name").String(),
				Args: Args(f.First("input", "arguments")),
				Meta: f.Rest("call_id", "id", "name", "input", "arguments", "type"),
			})
		case "tool_result", "tool_call_response", "mcp_tool_result":
			r := &Result{ID: f.First("tool_use_id", "call_id", "id").String()}
			out := f.First("content", "response", "result", "output")
			if out.Exists() {
				part := &Msg{}
				if out.IsArray() {
					if err := b.ReadParts(part, out, where); err == nil {
						r.Output, r.HasOut = part.Text, true
						r.Meta, r.Parts = part.Meta, part.Parts
					}
				}
				if !r.HasOut {
					r.SetOutput(out)
				}
			}
			if e := f.Get("is_error"); e.Type == gjson.True {
				r.IsError = true
			}
			r.Meta = Join(r.Meta, f.Rest("tool_use_id", "call_id", "id", "content", "response", "result", "output", "is_error", "type"))
			if typ != "tool_result" && typ != "tool_call_response" {
				r.Meta.SetString("type", typ)
			}
			m.Results = append(m.Results, r)
		default:
			if strings.HasSuffix(typ, "_tool_result") {
				// Anthropic server tools (web_search_tool_result,
				// web_fetch_tool_result, code_execution_tool_result,
				// bash_code_execution_tool_result, …): the result is in
				// the same message as its server_tool_use.
				m.Results = append(m.Results, serverToolResult(f, typ))
				return true
			}
			unknown = append(unknown, Raw(p))
		}
		return true
	})
	if len(unknown) > 0 {
		m.Meta.Set("content", unknown.Raw())
	}
	if media {
		m.Parts = parts
	}
	JoinOwnResults(m)
	return nil
}

// MediaPart reads an image or a document given inline, in any dialect's
// spelling, as a part of the log: Anthropic's image and document blocks
// ({"source": {"type": "base64" | "text", "media_type", "data"}}), data:
// URLs (OpenAI image_url and input_image, Inspect's image), OpenAI file
// parts ({"file_data"}) and GenAI blob parts ({"mime_type", "content"}).
// The base64 text is copied as it is, never decoded here; the part's
// other members are returned to be kept in metadata. A reference to
// content elsewhere (a URL, a file id) is no part: ok is false.
func MediaPart(f Fields, typ string, attachment func(string) string) (part execlog.Part, b64 string, extra Obj, ok bool) {
	kind := ""
	var mediaType, data, textData string
	var mapped []string
	switch typ {
	case "image", "document", "audio":
		kind = typ
		if d, mt := f.Get("data"), f.Get("mimeType"); d.Type == gjson.String && mt.Type == gjson.String {
			// An MCP content block: {type, data, mimeType}.
			mediaType, data = mt.Str, d.Str
			mapped = []string{"type", "data", "mimeType"}
		} else if src := f.Get("source"); typ != "audio" && src.IsObject() {
			mediaType = src.Get("media_type").String()
			switch src.Get("type").String() {
			case "base64":
				data = src.Get("data").String()
			case "text":
				textData = src.Get("data").String()
				if mediaType == "" {
					mediaType = "text/plain"
				}
			default:
				return execlog.Part{}, "", nil, false
			}
			mapped = []string{"type", "source"}
			if rest := Rest(src, "type", "media_type", "data"); len(rest) > 0 {
				extra.Set("source", rest.Raw())
			}
		} else if u := f.Get("image"); u.Type == gjson.String { // Inspect
			if mediaType, data, ok = DataURL(attachment(u.Str)); !ok {
				return execlog.Part{}, "", nil, false
			}
			mapped = []string{"type", "image"}
		} else {
			return execlog.Part{}, "", nil, false
		}
	case "image_url", "input_image":
		kind = "image"
		u := f.Get("image_url")
		if u.IsObject() {
			if rest := Rest(u, "url"); len(rest) > 0 {
				extra.Set("image_url", rest.Raw())
			}
			u = u.Get("url")
		}
		if mediaType, data, ok = DataURL(u.String()); !ok {
			return execlog.Part{}, "", nil, false
		}
		mapped = []string{"type", "image_url"}
	case "file", "input_file":
		kind = "file"
		d := f.First("file.file_data", "file_data")
		if mediaType, data, ok = DataURL(d.String()); !ok {
			return execlog.Part{}, "", nil, false
		}
		if mediaType == "application/pdf" {
			kind = "document"
		}
		mapped = []string{"type", "file", "file_data"}
		if fo := f.Get("file"); fo.IsObject() {
			if rest := Rest(fo, "file_data"); len(rest) > 0 {
				extra.Set("file", rest.Raw())
			}
		}
	case "blob":
		mediaType, data = f.First("mime_type", "media_type").String(), f.Get("content").String()
		switch m := f.Get("modality").String(); m {
		case "image", "audio":
			kind = m
		default:
			kind = "file"
		}
		mapped = []string{"type", "mime_type", "media_type", "content", "modality"}
	default:
		return execlog.Part{}, "", nil, false
	}
	p := execlog.Part{Type: kind, MediaType: mediaType}
	if data != "" || textData == "" {
		p.Content, b64 = execlog.Base64(data), data
	} else {
		p.Content = execlog.Text(textData)
	}
	extra = Join(f.Rest(mapped...), extra)
	if len(extra) > 0 {
		extra.SetDefault("type", Quote(typ))
	}
	return p, b64, extra, true
}

// validBase64 reports whether a part's base64 text b64, if it has any, is
// standard base64 (the log's form); a part that is not stays in metadata,
// with a warning.
func (b *Builder) ValidBase64(p execlog.Part, b64, where string) bool {
	if b64 == "" {
		return true
	}
	if _, err := base64.StdEncoding.DecodeString(b64); err != nil {
		b.Warn("%s: a %s part's base64 is not valid (%v); it is kept in metadata", where, p.Type, err)
		return false
	}
	return true
}

// dataURL splits a base64 data: URL into its media type and data.
func DataURL(u string) (mediaType, data string, ok bool) {
	rest, found := strings.CutPrefix(u, "data:")
	if !found {
		return "", "", false
	}
	head, data, found := strings.Cut(rest, ",")
	mediaType, enc, _ := strings.Cut(head, ";")
	if !found || enc != "base64" {
		return "", "", false
	}
	return mediaType, data, true
}

// serverToolResult reads the result block of an Anthropic server tool. Its
// content is a list of results or one result object, kept as its JSON
// text; an *_error content (web_search_tool_result_error,
// web_fetch_tool_error, …) or a non-zero return_code marks the call
// failed.
func serverToolResult(f Fields, typ string) *Result {
	r := &Result{ID: f.Get("tool_use_id").String()}
	out := f.Get("content")
	switch {
	case out.Type == gjson.String || out.Type == gjson.Null:
		r.SetOutput(out)
	case out.Exists():
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(out.Raw)) == nil {
			r.Output, r.HasOut = buf.String(), true
		} else {
			r.SetOutput(out)
		}
	}
	ct := out.Get("type").String()
	switch rc := out.Get("return_code"); {
	case strings.HasSuffix(ct, "_error"):
		r.IsError = true
		r.Failure.Msg = out.Get("error_code").String()
	case rc.Type == gjson.Number && rc.Raw != "0":
		r.IsError = true
		r.Failure.ExitCode = Raw(rc)
	}
	r.Meta.SetString("type", typ)
	r.Meta = Join(r.Meta, f.Rest("tool_use_id", "content", "type"))
	return r
}

// JoinOwnResults gives the calls of m the results m itself holds (server
// tools answer within the model's message), so that each call carries its
// output and no result is left waiting for a later message. A result
// whose id names no call of m answers the first call m records without an
// id, which then takes the result's id: so a message whose call lost its
// id is still the same message as a later copy that has it.
func JoinOwnResults(m *Msg) {
	if len(m.Calls) == 0 || len(m.Results) == 0 {
		return
	}
	kept := m.Results[:0]
	for _, r := range m.Results {
		var c, unnamed *Call
		for _, mc := range m.Calls {
			if mc.ID != "" && mc.ID == r.ID && mc.output == nil {
				c = mc
				break
			}
			if mc.ID == "" && mc.output == nil && unnamed == nil {
				unnamed = mc
			}
		}
		if c == nil && unnamed != nil && r.ID != "" && !slices.ContainsFunc(m.Calls, func(mc *Call) bool { return mc.ID == r.ID }) {
			c = unnamed
			c.ID = r.ID
		}
		if c == nil {
			kept = append(kept, r)
			continue
		}
		if r.HasOut {
			out := r.Text()
			c.output = &out
		} else {
			empty := ""
			c.output = &empty
		}
		c.isError, c.failure = r.IsError, r.Failure
		c.Meta = Join(c.Meta, r.Meta)
	}
	m.Results = kept
}

// kind names the JSON type of r for messages.
func Kind(r gjson.Result) string {
	switch r.Type {
	case gjson.Null:
		if !r.Exists() {
			return "nothing"
		}
		return "null"
	case gjson.False, gjson.True:
		return "a boolean"
	case gjson.Number:
		return "a number"
	case gjson.String:
		return "a string"
	}
	if r.IsArray() {
		return "an array"
	}
	return "an object"
}

// PartType is the part type of a media type: an image, audio, or a
// file.
func PartType(mt string) string {
	switch {
	case strings.HasPrefix(mt, "image/"):
		return manifest.PartImage
	case strings.HasPrefix(mt, "audio/"):
		return manifest.PartAudio
	}
	return manifest.PartFile
}
