package serve

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// Chat is the OpenAI Chat Completions API (POST /v1/chat/completions).
type Chat struct{}

func (Chat) Name() string { return "openai-chat" }

func (Chat) Parse(_ string, body []byte) (*Conv, error) {
	req := members(body, "messages", "model", "stream")
	if !isArray(req["messages"]) {
		return nil, fmt.Errorf("messages: expected an array")
	}
	c := &Conv{Model: gjson.ParseBytes(req["model"]).String(), Stream: gjson.ParseBytes(req["stream"]).Bool()}
	var ms []msg
	for _, e := range elements(req["messages"]) {
		ms = append(ms, msg{elem: e, model: gjson.GetBytes(e, "role").String() == "assistant"})
	}
	items, err := ends(ms, func(mm msg) ([]Item, error) {
		m := mm.raw
		var items []Item
		switch m.Get("role").String() {
		case "assistant":
			it := Item{Kind: ModelTurn, Text: partsText(m.Get("content"))}
			m.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
				it.CallIDs = append(it.CallIDs, tc.Get("id").String())
				return true
			})
			items = append(items, it)
		case "system", "developer":
			if c.System == "" {
				c.System = partsText(m.Get("content"))
			}
		case "tool":
			items = append(items, Item{Kind: ToolResult, CallID: m.Get("tool_call_id").String(), Text: partsText(m.Get("content"))})
		case "user":
			content := m.Get("content")
			if content.Type == gjson.String {
				items = append(items, Item{Kind: UserText, Text: content.Str})
				break
			}
			content.ForEach(func(_, p gjson.Result) bool {
				if t := p.Get("text"); t.Type == gjson.String {
					items = append(items, Item{Kind: UserText, Text: t.Str})
				}
				return true
			})
		}
		return items, nil
	})
	c.Items = items
	return c, err
}

func (a *Answer) chatFinish() string {
	switch a.Stop {
	case "stop", "length", "tool_calls", "content_filter":
		return a.Stop
	}
	if len(a.Calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func (a *Answer) chatUsage() map[string]any {
	return map[string]any{
		"prompt_tokens": a.Usage.Input, "completion_tokens": a.Usage.Output, "total_tokens": a.Usage.Input + a.Usage.Output,
		"prompt_tokens_details":     map[string]any{"cached_tokens": a.Usage.CacheRead},
		"completion_tokens_details": map[string]any{"reasoning_tokens": a.Usage.Reasoning},
	}
}

func (Chat) Write(w http.ResponseWriter, c *Conv, a *Answer) error {
	id := "chatcmpl-" + strings.TrimPrefix(a.ID, "chatcmpl-")
	model := a.Model
	if model == "" {
		model = c.Model
	}
	var calls []map[string]any
	for _, tc := range a.Calls {
		calls = append(calls, map[string]any{"id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": string(tc.Input)}})
	}
	if !c.Stream {
		msg := map[string]any{"role": "assistant", "content": a.Text}
		if a.Text == "" && len(calls) > 0 {
			msg["content"] = nil
		}
		if a.Reasoning != "" {
			msg["reasoning_content"] = a.Reasoning
		}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		return writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": model,
			"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": a.chatFinish()}}, "usage": a.chatUsage()})
	}
	s := newSSE(w)
	chunk := func(delta map[string]any, finish any) {
		s.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if a.Reasoning != "" {
		chunk(map[string]any{"reasoning_content": a.Reasoning}, nil)
	}
	if a.Text != "" {
		chunk(map[string]any{"content": a.Text}, nil)
	}
	for i, tc := range calls {
		delta := map[string]any{"index": i}
		for k, v := range tc {
			delta[k] = v
		}
		chunk(map[string]any{"tool_calls": []map[string]any{delta}}, nil)
	}
	chunk(map[string]any{}, a.chatFinish())
	s.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
		"choices": []any{}, "usage": a.chatUsage()})
	s.raw("[DONE]")
	return s.err
}

func (Chat) Fail(w http.ResponseWriter, _ *Conv, status int, message string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": message, "type": errorType(status), "code": nil, "param": nil}})
}
