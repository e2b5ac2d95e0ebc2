package serve

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"
)

// Responses is the OpenAI Responses API (POST /v1/responses).
type Responses struct{}

func (Responses) Name() string { return "openai-responses" }

func (Responses) Parse(_ string, body []byte) (*Conv, error) {
	req := members(body, "input", "model", "stream", "instructions")
	c := &Conv{Model: gjson.ParseBytes(req["model"]).String(), Stream: gjson.ParseBytes(req["stream"]).Bool(),
		System: gjson.ParseBytes(req["instructions"]).String()}
	if input := gjson.ParseBytes(req["input"]); input.Type == gjson.String {
		c.Items = append(c.Items, Item{Kind: UserText, Text: input.Str})
		return c, nil
	}
	if !isArray(req["input"]) {
		return nil, fmt.Errorf("input: expected a string or an array")
	}
	// A model turn is a run of the model's items; each other item is a
	// message of its own.
	var ms []msg
	for _, e := range elements(req["input"]) {
		model := modelItem(e)
		if model && len(ms) > 0 && ms[len(ms)-1].model {
			last := &ms[len(ms)-1]
			last.groupElems = append(last.groupElems, e)
			continue
		}
		ms = append(ms, msg{elem: e, model: model, groupElems: [][]byte{e}})
	}
	var err error
	c.Items, err = ends(ms, func(m msg) ([]Item, error) {
		if m.model {
			it := Item{Kind: ModelTurn}
			for _, x := range m.group {
				if itemType(x) == "message" {
					if it.Text != "" {
						it.Text += "\n"
					}
					it.Text += partsText(x.Get("content"))
				} else if id := x.Get("call_id"); id.Exists() {
					it.CallIDs = append(it.CallIDs, id.String())
				}
			}
			return []Item{it}, nil
		}
		var items []Item
		it := m.raw
		switch itemType(it) {
		case "message":
			if it.Get("role").String() != "user" {
				return nil, nil // developer and system messages: the harness's
			}
			content := it.Get("content")
			if content.Type == gjson.String {
				return []Item{{Kind: UserText, Text: content.Str}}, nil
			}
			content.ForEach(func(_, p gjson.Result) bool {
				if t := p.Get("text"); t.Type == gjson.String {
					items = append(items, Item{Kind: UserText, Text: t.Str})
				}
				return true
			})
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output":
			out := it.Get("output")
			text := out.Str
			if out.Type != gjson.String {
				text = partsText(out)
			}
			items = append(items, Item{Kind: ToolResult, CallID: it.Get("call_id").String(), Text: text})
		}
		return items, nil
	})
	return c, err
}

// itemType is a Responses input item's type ("message" for an item with
// only a role).
func itemType(it gjson.Result) string {
	typ := it.Get("type").String()
	if typ == "" && it.Get("role").Exists() {
		typ = "message"
	}
	return typ
}

// modelItem reports whether the model wrote the input item (its raw
// text): an assistant message, its reasoning, a tool call.
func modelItem(e []byte) bool {
	role := gjson.GetBytes(e, "role")
	switch typ := gjson.GetBytes(e, "type").String(); {
	case typ == "message" || typ == "" && role.Exists():
		return role.String() == "assistant"
	case typ == "reasoning", typ == "function_call", typ == "custom_tool_call", typ == "local_shell_call", typ == "tool_search_call":
		return true
	}
	return false
}

// partsText joins the text of a list of content parts.
func partsText(content gjson.Result) string {
	if content.Type == gjson.String {
		return content.Str
	}
	var texts []string
	content.ForEach(func(_, p gjson.Result) bool {
		if t := p.Get("text"); t.Type == gjson.String {
			texts = append(texts, t.Str)
		}
		return true
	})
	return strings.Join(texts, "\n")
}

// responseItems renders an answer as Responses output items.
func (a *Answer) responseItems(id string) []map[string]any {
	var items []map[string]any
	if a.Reasoning != "" {
		items = append(items, map[string]any{"type": "reasoning", "id": "rs_" + id,
			"summary": []map[string]any{{"type": "summary_text", "text": a.Reasoning}}})
	}
	if a.Text != "" {
		items = append(items, map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []map[string]any{{"type": "output_text", "text": a.Text, "annotations": []any{}}}})
	}
	for i, c := range a.Calls {
		if c.Custom {
			var input string
			if err := jsonString(c.Input, &input); err != nil {
				input = string(c.Input)
			}
			items = append(items, map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%s_%d", id, i), "status": "completed",
				"call_id": c.ID, "name": c.Name, "input": input})
			continue
		}
		item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%s_%d", id, i), "status": "completed",
			"call_id": c.ID, "name": c.Name, "arguments": string(c.Input)}
		if c.Namespace != "" {
			// Sent as the model names it: the namespace apart.
			item["namespace"], item["name"] = c.Namespace, strings.TrimPrefix(strings.TrimPrefix(c.Name, c.Namespace), "__")
		}
		items = append(items, item)
	}
	return items
}

func (a *Answer) responseUsage() map[string]any {
	return map[string]any{
		"input_tokens":          a.Usage.Input,
		"input_tokens_details":  map[string]any{"cached_tokens": a.Usage.CacheRead},
		"output_tokens":         a.Usage.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": a.Usage.Reasoning},
		"total_tokens":          a.Usage.Input + a.Usage.Output,
	}
}

func (Responses) Write(w http.ResponseWriter, c *Conv, a *Answer) error {
	id := strings.TrimPrefix(a.ID, "resp_")
	if id == "" {
		id = "ctx"
	}
	model := a.Model
	if model == "" {
		model = c.Model
	}
	items := a.responseItems(id)
	resp := func(status string, output []map[string]any) map[string]any {
		r := map[string]any{"id": "resp_" + id, "object": "response", "created_at": 0, "status": status, "model": model,
			"output": output}
		if status == "completed" {
			r["usage"] = a.responseUsage()
		}
		return r
	}
	if !c.Stream {
		return writeJSON(w, http.StatusOK, resp("completed", items))
	}
	s := newSSE(w)
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		s.event(typ, fields)
	}
	ev("response.created", map[string]any{"response": resp("in_progress", []map[string]any{})})
	for i, it := range items {
		ev("response.output_item.added", map[string]any{"output_index": i, "item": it})
		switch it["type"] {
		case "message":
			ev("response.output_text.delta", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "delta": a.Text})
			ev("response.output_text.done", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "text": a.Text})
		case "function_call":
			ev("response.function_call_arguments.delta", map[string]any{"item_id": it["id"], "output_index": i, "delta": it["arguments"]})
			ev("response.function_call_arguments.done", map[string]any{"item_id": it["id"], "output_index": i, "arguments": it["arguments"]})
		case "custom_tool_call":
			ev("response.custom_tool_call_input.delta", map[string]any{"item_id": it["id"], "output_index": i, "delta": it["input"]})
			ev("response.custom_tool_call_input.done", map[string]any{"item_id": it["id"], "output_index": i, "input": it["input"]})
		}
		ev("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	ev("response.completed", map[string]any{"response": resp("completed", items)})
	return s.err
}

func (Responses) Fail(w http.ResponseWriter, _ *Conv, status int, message string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": message, "type": errorType(status), "code": nil, "param": nil}})
}

// jsonString decodes a JSON string value.
func jsonString(v jsontext.Value, s *string) error {
	r := gjson.ParseBytes(v)
	if r.Type != gjson.String {
		return fmt.Errorf("not a JSON string")
	}
	*s = r.Str
	return nil
}
