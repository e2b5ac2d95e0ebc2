package serve

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"
)

// Events splits a server-sent event stream into its events' data, each
// event's data lines joined by "\n" (the SSE rules), with its name.
func Events(stream []byte) (names []string, data [][]byte) {
	stream = bytes.ReplaceAll(stream, []byte("\r\n"), []byte("\n"))
	for _, block := range bytes.Split(stream, []byte("\n\n")) {
		var name string
		var d [][]byte
		for _, line := range bytes.Split(block, []byte("\n")) {
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				name = string(value)
			case "data":
				d = append(d, value)
			}
		}
		if d != nil {
			names = append(names, name)
			data = append(data, bytes.Join(d, []byte("\n")))
		}
	}
	return names, data
}

// Assemble makes one response body of a streamed answer of the API api,
// as the API would have answered without streaming, for the exchange
// importer to read.
func Assemble(api string, stream []byte) ([]byte, error) {
	_, data := Events(stream)
	switch api {
	case "anthropic":
		return assembleAnthropic(data)
	case "openai-responses":
		for i := len(data) - 1; i >= 0; i-- {
			if r := gjson.GetBytes(data[i], "response"); gjson.GetBytes(data[i], "type").String() == "response.completed" && r.IsObject() {
				return []byte(r.Raw), nil
			}
		}
		return nil, fmt.Errorf("no response.completed event")
	case "openai-chat":
		return assembleChat(data)
	case "gemini":
		return assembleGemini(data)
	}
	return nil, fmt.Errorf("unknown API %q", api)
}

func assembleAnthropic(data [][]byte) ([]byte, error) {
	var msg map[string]any
	var blocks []map[string]any
	var inputs []strings.Builder
	for _, d := range data {
		ev := gjson.ParseBytes(d)
		switch ev.Get("type").String() {
		case "message_start":
			if err := json.Unmarshal([]byte(ev.Get("message").Raw), &msg); err != nil {
				return nil, fmt.Errorf("message_start: %w", err)
			}
		case "content_block_start":
			i := int(ev.Get("index").Int())
			for len(blocks) <= i {
				blocks = append(blocks, nil)
				inputs = append(inputs, strings.Builder{})
			}
			var b map[string]any
			if err := json.Unmarshal([]byte(ev.Get("content_block").Raw), &b); err != nil {
				return nil, fmt.Errorf("content_block_start: %w", err)
			}
			blocks[i] = b
		case "content_block_delta":
			i := int(ev.Get("index").Int())
			if i < 0 || i >= len(blocks) || blocks[i] == nil {
				return nil, fmt.Errorf("a delta of block %d before its start", i)
			}
			b, delta := blocks[i], ev.Get("delta")
			switch delta.Get("type").String() {
			case "text_delta":
				b["text"] = fmt.Sprint(b["text"]) + delta.Get("text").String()
			case "thinking_delta":
				b["thinking"] = fmt.Sprint(b["thinking"]) + delta.Get("thinking").String()
			case "signature_delta":
				b["signature"] = delta.Get("signature").String()
			case "input_json_delta":
				inputs[i].WriteString(delta.Get("partial_json").String())
			}
		case "message_delta":
			if msg == nil {
				return nil, fmt.Errorf("message_delta before message_start")
			}
			ev.Get("delta").ForEach(func(k, v gjson.Result) bool {
				msg[k.Str] = v.Value()
				return true
			})
			if u, ok := msg["usage"].(map[string]any); ok {
				ev.Get("usage").ForEach(func(k, v gjson.Result) bool {
					u[k.Str] = v.Value()
					return true
				})
			}
		}
	}
	if msg == nil {
		return nil, fmt.Errorf("no message_start event")
	}
	for i, b := range blocks {
		if in := inputs[i].String(); in != "" {
			b["input"] = jsontext.Value(in)
		}
	}
	if blocks == nil {
		blocks = []map[string]any{}
	}
	msg["content"] = blocks
	return json.Marshal(msg, json.Deterministic(true))
}

func assembleChat(data [][]byte) ([]byte, error) {
	var out map[string]any
	msg := map[string]any{"role": "assistant"}
	var content, reasoning strings.Builder
	var calls []map[string]any
	var args []strings.Builder
	var finish any
	for _, d := range data {
		if string(d) == "[DONE]" {
			continue
		}
		ch := gjson.ParseBytes(d)
		if out == nil {
			out = map[string]any{"id": ch.Get("id").Value(), "object": "chat.completion", "created": ch.Get("created").Value(), "model": ch.Get("model").Value()}
		}
		if u := ch.Get("usage"); u.IsObject() {
			out["usage"] = jsontext.Value(u.Raw)
		}
		ch.Get("choices").ForEach(func(_, c gjson.Result) bool {
			delta := c.Get("delta")
			content.WriteString(delta.Get("content").String())
			reasoning.WriteString(delta.Get("reasoning_content").String())
			delta.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
				i := int(tc.Get("index").Int())
				for len(calls) <= i {
					calls = append(calls, map[string]any{"type": "function", "function": map[string]any{}})
					args = append(args, strings.Builder{})
				}
				if id := tc.Get("id").String(); id != "" {
					calls[i]["id"] = id
				}
				if n := tc.Get("function.name").String(); n != "" {
					calls[i]["function"].(map[string]any)["name"] = n
				}
				args[i].WriteString(tc.Get("function.arguments").String())
				return true
			})
			if f := c.Get("finish_reason"); f.Type == gjson.String {
				finish = f.Str
			}
			return true
		})
	}
	if out == nil {
		return nil, fmt.Errorf("no chunk")
	}
	msg["content"] = content.String()
	if reasoning.Len() > 0 {
		msg["reasoning_content"] = reasoning.String()
	}
	for i := range calls {
		calls[i]["function"].(map[string]any)["arguments"] = args[i].String()
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	out["choices"] = []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}}
	return json.Marshal(out, json.Deterministic(true))
}

func assembleGemini(data [][]byte) ([]byte, error) {
	var parts []any
	var last gjson.Result
	for _, d := range data {
		ch := gjson.ParseBytes(d)
		last = ch
		ch.Get("candidates.0.content.parts").ForEach(func(_, p gjson.Result) bool {
			parts = append(parts, jsontext.Value(p.Raw))
			return true
		})
	}
	if !last.Exists() {
		return nil, fmt.Errorf("no chunk")
	}
	if parts == nil {
		parts = []any{}
	}
	out := map[string]any{
		"candidates": []map[string]any{{"content": map[string]any{"role": "model", "parts": parts},
			"finishReason": last.Get("candidates.0.finishReason").Value(), "index": 0}},
	}
	for _, k := range []string{"usageMetadata", "modelVersion", "responseId"} {
		if v := last.Get(k); v.Exists() {
			out[k] = jsontext.Value(v.Raw)
		}
	}
	return json.Marshal(out, json.Deterministic(true))
}

// quoteJSON is s as a JSON string.
func quoteJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
