package serve

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"
)

// Anthropic is the Anthropic Messages API (POST /v1/messages).
type Anthropic struct{}

func (Anthropic) Name() string { return "anthropic" }

func (Anthropic) Parse(_ string, body []byte) (*Conv, error) {
	req := members(body, "messages", "model", "stream", "system")
	if !isArray(req["messages"]) {
		return nil, fmt.Errorf("messages: expected an array")
	}
	c := &Conv{Model: gjson.ParseBytes(req["model"]).String(), Stream: gjson.ParseBytes(req["stream"]).Bool(),
		System: partsText(gjson.ParseBytes(req["system"]))}
	var ms []msg
	for _, e := range elements(req["messages"]) {
		ms = append(ms, msg{elem: e, model: gjson.GetBytes(e, "role").String() == "assistant"})
	}
	var err error
	c.Items, err = ends(ms, func(mm msg) ([]Item, error) {
		m := mm.raw
		var items []Item
		content := m.Get("content")
		switch m.Get("role").String() {
		case "assistant":
			it := Item{Kind: ModelTurn}
			var texts []string
			eachBlock(content, func(b gjson.Result) {
				switch b.Get("type").String() {
				case "text":
					texts = append(texts, b.Get("text").String())
				case "tool_use", "server_tool_use":
					it.CallIDs = append(it.CallIDs, b.Get("id").String())
				}
			})
			it.Text = strings.Join(texts, "\n")
			items = append(items, it)
		case "user":
			eachBlock(content, func(b gjson.Result) {
				switch b.Get("type").String() {
				case "text":
					items = append(items, Item{Kind: UserText, Text: b.Get("text").String()})
				case "tool_result":
					items = append(items, Item{Kind: ToolResult, CallID: b.Get("tool_use_id").String(),
						Text: blockText(b.Get("content")), Error: b.Get("is_error").Bool()})
				}
			})
		case "system":
			// Claude Code's environment message: the harness's.
		default:
			return nil, fmt.Errorf("messages: unknown role %q", m.Get("role").String())
		}
		return items, nil
	})
	return c, err
}

// eachBlock calls f for each content block; a string content is one text
// block.
func eachBlock(content gjson.Result, f func(gjson.Result)) {
	if content.Type == gjson.String {
		f(gjson.Parse(`{"type":"text","text":` + content.Raw + `}`))
		return
	}
	content.ForEach(func(_, b gjson.Result) bool {
		f(b)
		return true
	})
}

// blockText is a tool result's text: its string, or its text blocks
// joined by line breaks.
func blockText(content gjson.Result) string {
	if content.Type == gjson.String {
		return content.Str
	}
	var texts []string
	content.ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").String() == "text" {
			texts = append(texts, b.Get("text").String())
		}
		return true
	})
	return strings.Join(texts, "\n")
}

type anthropicUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

type anthropicMessage struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"`
	Role         string           `json:"role"`
	Model        string           `json:"model"`
	Content      []map[string]any `json:"content"`
	StopReason   *string          `json:"stop_reason"`
	StopSequence *string          `json:"stop_sequence"`
	Usage        anthropicUsage   `json:"usage"`
}

func (a *Answer) anthropicBlocks() []map[string]any {
	var blocks []map[string]any
	if a.Reasoning != "" || a.Signature != "" {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": a.Reasoning, "signature": a.Signature})
	}
	if a.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": a.Text})
	}
	for _, c := range a.Calls {
		in := c.Input
		if c.Custom {
			in = jsontext.Value(`{"input":` + string(c.Input) + `}`)
		}
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": in})
	}
	return blocks
}

func (a *Answer) anthropicStop() string {
	switch a.Stop {
	case "end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal":
		return a.Stop
	}
	if len(a.Calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func (Anthropic) Write(w http.ResponseWriter, c *Conv, a *Answer) error {
	stop := a.anthropicStop()
	id := a.ID
	if !strings.HasPrefix(id, "msg_") {
		id = "msg_" + id
	}
	u := anthropicUsage{a.Usage.Input, a.Usage.Output, a.Usage.CacheCreation, a.Usage.CacheRead}
	model := a.Model
	if model == "" {
		model = c.Model
	}
	if !c.Stream {
		return writeJSON(w, http.StatusOK, anthropicMessage{ID: id, Type: "message", Role: "assistant", Model: model,
			Content: a.anthropicBlocks(), StopReason: &stop, Usage: u})
	}
	s := newSSE(w)
	start := u
	start.OutputTokens = 0
	s.event("message_start", map[string]any{"type": "message_start", "message": anthropicMessage{ID: id, Type: "message",
		Role: "assistant", Model: model, Content: []map[string]any{}, Usage: start}})
	for i, b := range a.anthropicBlocks() {
		switch b["type"] {
		case "thinking":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			if a.Reasoning != "" {
				s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "thinking_delta", "thinking": a.Reasoning}})
			}
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "signature_delta", "signature": a.Signature}})
		case "text":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": a.Text}})
		case "tool_use":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in := b["input"].(jsontext.Value)
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": u.OutputTokens}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
	return s.err
}

func (Anthropic) Fail(w http.ResponseWriter, _ *Conv, status int, message string) {
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": errorType(status), "message": message}})
}

func errorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	}
	return "api_error"
}
