package serve

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// Gemini is the Gemini API (POST /v1beta/models/MODEL:generateContent,
// :streamGenerateContent?alt=sse).
type Gemini struct{}

func (Gemini) Name() string { return "gemini" }

func (Gemini) Parse(path string, body []byte) (*Conv, error) {
	req := members(body, "contents", "systemInstruction")
	if !isArray(req["contents"]) {
		return nil, fmt.Errorf("contents: expected an array")
	}
	c := &Conv{Stream: strings.Contains(path, ":streamGenerateContent"), System: partsText(gjson.GetBytes(req["systemInstruction"], "parts"))}
	if i := strings.Index(path, "/models/"); i >= 0 {
		c.Model, _, _ = strings.Cut(path[i+len("/models/"):], ":")
	}
	var ms []msg
	for _, e := range elements(req["contents"]) {
		ms = append(ms, msg{elem: e, model: gjson.GetBytes(e, "role").String() == "model"})
	}
	items, err := ends(ms, func(mm msg) ([]Item, error) {
		m := mm.raw
		var items []Item
		parts := m.Get("parts")
		if m.Get("role").String() == "model" {
			it := Item{Kind: ModelTurn}
			var texts []string
			parts.ForEach(func(_, p gjson.Result) bool {
				switch {
				case p.Get("functionCall").Exists():
					it.CallIDs = append(it.CallIDs, callKey(p.Get("functionCall")))
				case p.Get("thought").Bool():
				case p.Get("text").Exists():
					texts = append(texts, p.Get("text").String())
				}
				return true
			})
			it.Text = strings.Join(texts, "")
			items = append(items, it)
			return items, nil
		}
		parts.ForEach(func(_, p gjson.Result) bool {
			switch {
			case p.Get("functionResponse").Exists():
				fr := p.Get("functionResponse")
				out := fr.Get("response.output")
				text := out.String()
				if !out.Exists() {
					text = fr.Get("response").Raw
				}
				items = append(items, Item{Kind: ToolResult, CallID: callKey(fr), Text: text})
			case p.Get("text").Exists():
				items = append(items, Item{Kind: UserText, Text: p.Get("text").String()})
			}
			return true
		})
		return items, nil
	})
	c.Items = items
	return c, err
}

// callKey is a Gemini function call's id, or its name where the API
// carries no id ("name:" then the name).
func callKey(fc gjson.Result) string {
	if id := fc.Get("id").String(); id != "" {
		return id
	}
	return "name:" + fc.Get("name").String()
}

func (Gemini) Write(w http.ResponseWriter, c *Conv, a *Answer) error {
	var parts []map[string]any
	if a.Reasoning != "" {
		parts = append(parts, map[string]any{"text": a.Reasoning, "thought": true})
	}
	if a.Text != "" {
		parts = append(parts, map[string]any{"text": a.Text})
	}
	for _, tc := range a.Calls {
		fc := map[string]any{"name": tc.Name, "args": tc.Input}
		if tc.ID != "" && !strings.HasPrefix(tc.ID, "name:") {
			fc["id"] = tc.ID
		}
		parts = append(parts, map[string]any{"functionCall": fc})
	}
	finish := "STOP"
	if a.Stop == "MAX_TOKENS" || a.Stop == "SAFETY" {
		finish = a.Stop
	}
	model := a.Model
	if model == "" {
		model = c.Model
	}
	resp := map[string]any{
		"candidates": []map[string]any{{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": finish, "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": a.Usage.Input, "candidatesTokenCount": a.Usage.Output,
			"cachedContentTokenCount": a.Usage.CacheRead, "thoughtsTokenCount": a.Usage.Reasoning,
			"totalTokenCount": a.Usage.Input + a.Usage.Output + a.Usage.Reasoning},
		"modelVersion": model,
		"responseId":   a.ID,
	}
	if !c.Stream {
		return writeJSON(w, http.StatusOK, resp)
	}
	s := newSSE(w)
	s.event("", resp)
	return s.err
}

func (Gemini) Fail(w http.ResponseWriter, _ *Conv, status int, message string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": message, "status": geminiStatus(status)}})
}

func geminiStatus(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return "INVALID_ARGUMENT"
	case http.StatusNotFound:
		return "NOT_FOUND"
	}
	return "INTERNAL"
}
