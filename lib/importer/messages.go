package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
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
func (b *builder) readMsgs(arr gjson.Result, t *msgTable, where string) ([]*msg, error) {
	if !arr.Exists() || arr.Type == gjson.Null {
		return nil, nil
	}
	if !arr.IsArray() {
		return nil, b.errorf(where, "expected an array of messages, got %s", kind(arr))
	}
	var out []*msg
	var err error
	i := 0
	each(arr, func(_, m gjson.Result) bool {
		var ms *msg
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
func (b *builder) readMsg(m gjson.Result, t *msgTable, where, defRole string) (*msg, error) {
	if !m.IsObject() {
		return nil, b.errorf(where, "expected a message object, got %s", kind(m))
	}
	f := fieldsOf(m)
	role := f.first(t.role...).String()
	if role == "" {
		if defRole == "" {
			return nil, b.errorf(where, "message has no role")
		}
		role = defRole
	}
	ms := &msg{role: normRole(role), meta: f.rest(t.mapped...)}
	content := f.first(t.content...)
	if ms.role == "tool" || ms.role == "function" {
		ms.role = "tool"
		r := &result{id: f.first(t.resultID...).String(), name: f.first(t.resultName...).String()}
		var partResults []*result
		if content.Type == gjson.String {
			r.setOutput(content)
		} else if content.Exists() {
			part := &msg{}
			if err := b.readParts(part, content, where+".content"); err != nil {
				return nil, err
			}
			r.output, r.hasOut = part.text, part.hasText || len(part.results) == 0
			if len(part.meta) > 0 {
				r.meta = part.meta
			}
			partResults = part.results
		}
		if e := f.first(t.resultErr...); informative(e) && e.Type != gjson.False {
			r.isError = e.Type != gjson.String || e.Str != "success"
			if r.isError {
				r.meta.set("error", raw(e))
			}
		}
		r.meta = join(r.meta, ms.meta)
		ms.meta = nil
		if r.id == "" && len(partResults) > 0 {
			// Results given as content parts (GenAI tool_call_response).
			for _, pr := range partResults {
				pr.meta = join(pr.meta, r.meta)
			}
			ms.results = partResults
			return ms, nil
		}
		ms.results = append(ms.results, r)
		return ms, nil
	}
	if err := b.readParts(ms, content, where+".content"); err != nil {
		return nil, err
	}
	if len(t.calls) > 0 {
		calls := f.first(t.calls...)
		if informative(calls) && !calls.IsArray() {
			return nil, b.errorf(where+".tool_calls", "expected an array, got %s", kind(calls))
		}
		each(calls, func(_, c gjson.Result) bool {
			cf := fieldsOf(c)
			ms.calls = append(ms.calls, &call{
				id:   cf.first(t.callID...).String(),
				name: cf.first(t.name...).String(),
				args: args(cf.first(t.args...)),
				meta: cf.rest(t.callMapped...),
			})
			return true
		})
		// The legacy single function_call of Chat Completions.
		if fc := f.get("function_call"); fc.IsObject() {
			ms.calls = append(ms.calls, &call{name: fc.Get("name").String(), args: args(fc.Get("arguments"))})
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

// readParts reads a content value into m: a string is text; an array holds
// content parts: text, reasoning, tool calls and tool results in any of the
// dialects' spellings. Parts it does not know are kept in m's metadata.
func (b *builder) readParts(m *msg, c gjson.Result, where string) error {
	switch {
	case !c.Exists() || c.Type == gjson.Null:
		return nil
	case c.Type == gjson.String:
		if c.Str != "" { // "" is how some SDKs say "no text"
			m.addText(c.Str)
		}
		return nil
	case !c.IsArray():
		return b.errorf(where, "expected a string or an array of content parts, got %s", kind(c))
	}
	var unknown list
	each(c, func(_, p gjson.Result) bool {
		if p.Type == gjson.String {
			m.addText(p.Str)
			return true
		}
		f := fieldsOf(p)
		typ := f.get("type").String()
		switch typ {
		case "text", "input_text", "output_text", "":
			t := f.first("text", "content")
			if t.Type != gjson.String {
				unknown = append(unknown, raw(p))
				return true
			}
			m.addText(t.Str)
			if extra := f.rest("text", "content", "type"); len(extra) > 0 {
				unknown = append(unknown, f.rest("text", "content").raw())
			}
		case "thinking", "reasoning", "reasoning_text", "summary_text":
			t := f.first("thinking", "reasoning", "text", "content")
			if t.Type == gjson.String {
				m.reasoning = append(m.reasoning, t.Str)
			}
			if extra := f.rest("thinking", "reasoning", "text", "content", "type"); len(extra) > 0 {
				unknown = append(unknown, f.rest("thinking", "reasoning", "text", "content").raw())
			}
		case "tool_use", "server_tool_use", "mcp_tool_use", "tool_call":
			m.calls = append(m.calls, &call{
				id:   f.first("call_id", "id").String(),
				name: f.get("name").String(),
				args: args(f.first("input", "arguments")),
				meta: f.rest("call_id", "id", "name", "input", "arguments", "type"),
			})
		case "tool_result", "tool_call_response", "mcp_tool_result":
			r := &result{id: f.first("tool_use_id", "call_id", "id").String()}
			out := f.first("content", "response", "result", "output")
			if out.Exists() {
				part := &msg{}
				if out.IsArray() {
					if err := b.readParts(part, out, where); err == nil {
						r.output, r.hasOut = part.text, true
						r.meta = part.meta
					}
				}
				if !r.hasOut {
					r.setOutput(out)
				}
			}
			if e := f.get("is_error"); e.Type == gjson.True {
				r.isError = true
			}
			r.meta = join(r.meta, f.rest("tool_use_id", "call_id", "id", "content", "response", "result", "output", "is_error", "type"))
			if typ != "tool_result" && typ != "tool_call_response" {
				r.meta.setString("type", typ)
			}
			m.results = append(m.results, r)
		default:
			if strings.HasSuffix(typ, "_tool_result") {
				// Anthropic server tools (web_search_tool_result,
				// web_fetch_tool_result, code_execution_tool_result,
				// bash_code_execution_tool_result, …): the result is in
				// the same message as its server_tool_use.
				m.results = append(m.results, serverToolResult(f, typ))
				return true
			}
			unknown = append(unknown, raw(p))
		}
		return true
	})
	if len(unknown) > 0 {
		m.meta.set("content", unknown.raw())
	}
	joinOwnResults(m)
	return nil
}

// serverToolResult reads the result block of an Anthropic server tool. Its
// content is a list of results or one result object, kept as its JSON
// text; an *_error content (web_search_tool_result_error,
// web_fetch_tool_error, …) or a non-zero return_code marks the call
// failed.
func serverToolResult(f fields, typ string) *result {
	r := &result{id: f.get("tool_use_id").String()}
	out := f.get("content")
	switch {
	case out.Type == gjson.String || out.Type == gjson.Null:
		r.setOutput(out)
	case out.Exists():
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(out.Raw)) == nil {
			r.output, r.hasOut = buf.String(), true
		} else {
			r.setOutput(out)
		}
	}
	ct := out.Get("type").String()
	switch rc := out.Get("return_code"); {
	case strings.HasSuffix(ct, "_error"):
		r.isError = true
		if code := out.Get("error_code"); code.Type == gjson.String {
			r.meta.setString("error_message", code.Str)
		}
	case rc.Type == gjson.Number && rc.Raw != "0":
		r.isError = true
		r.meta.set("exit_code", raw(rc))
	}
	r.meta.setString("type", typ)
	r.meta = join(r.meta, f.rest("tool_use_id", "content", "type"))
	return r
}

// joinOwnResults gives the calls of m the results m itself holds (server
// tools answer within the model's message), so that each call carries its
// output and no result is left waiting for a later message.
func joinOwnResults(m *msg) {
	if len(m.calls) == 0 || len(m.results) == 0 {
		return
	}
	kept := m.results[:0]
	for _, r := range m.results {
		var c *call
		for _, mc := range m.calls {
			if mc.id != "" && mc.id == r.id && mc.output == nil {
				c = mc
				break
			}
		}
		if c == nil {
			kept = append(kept, r)
			continue
		}
		if r.hasOut {
			out := r.text()
			c.output = &out
		} else {
			empty := ""
			c.output = &empty
		}
		c.isError = r.isError
		c.meta = join(c.meta, r.meta)
	}
	m.results = kept
}

// kind names the JSON type of r for messages.
func kind(r gjson.Result) string {
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
