package importer

import (
	"bytes"
	"strings"

	"github.com/tidwall/gjson"
)

// claudeCodeTypes are the line types of Claude Code transcripts.
var claudeCodeTypes = map[string]bool{
	"user": true, "assistant": true, "summary": true, "system": true,
	"progress": true, "file-history-snapshot": true, "queue-operation": true,
}

// codexTypes are the envelope types of Codex rollouts.
var codexTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true,
	"turn_context": true, "compacted": true,
}

// Detect guesses the format of data from its first record (the first line
// of JSON Lines, the first element of an array, or the document itself).
// name is the file name, if any; a .eval name or a zip archive is Inspect.
// When it cannot tell it returns a *DetectError listing the formats.
func Detect(name string, data []byte) (string, error) {
	if bytes.HasPrefix(data, zipMagic) || strings.HasSuffix(name, ".eval") {
		return Inspect, nil
	}
	rec, ok := firstRecord(data)
	if !ok {
		return "", &DetectError{Name: name, Reason: "it is not JSON"}
	}
	if f := classify(rec); f != "" {
		return f, nil
	}
	return "", &DetectError{Name: name, Reason: "its first record matches none of them"}
}

// firstRecord returns the first record of data without parsing the rest.
func firstRecord(data []byte) (gjson.Result, bool) {
	data = bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(data) == 0 {
		return gjson.Result{}, false
	}
	switch data[0] {
	case '[':
		r := gjson.GetBytes(data, "0")
		return r, r.IsObject()
	case '{':
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i]
		}
		if gjson.ValidBytes(line) {
			return gjson.ParseBytes(line), true
		}
		// A document spread over lines: its top-level members are enough.
		r := gjson.ParseBytes(data)
		return r, r.IsObject()
	}
	return gjson.Result{}, false
}

func classify(rec gjson.Result) string {
	has := func(p string) bool { return rec.Get(p).Exists() }
	typ := rec.Get("type").String()
	switch {
	case has("resourceSpans") || has("resourceLogs") || has("resource_spans") || has("resource_logs"):
		return OTelGenAI
	case rec.Get("spans").IsArray() || has("name") && has("context") && (has("attributes") || has("start_time")):
		return OTelGenAI
	case has("post") || has("patch") || has("run_type") && (has("dotted_order") || has("trace_id") || has("id")):
		return LangSmith
	case rec.Get("eval").IsObject() && (has("samples") || has("results") || has("status") || has("plan")):
		return Inspect
	case has("payload") && codexTypes[typ]:
		return Codex
	case claudeCodeTypes[typ] && (has("uuid") || has("sessionId") || has("leafUuid") || has("messageId")):
		return ClaudeCode
	}
	return classifyExchange(rec)
}

// classifyExchange recognises request/response records and tells the
// three APIs apart.
func classifyExchange(rec gjson.Result) string {
	if body := rec.Get("body"); body.Exists() {
		p := rec.Get("path").String() + rec.Get("url").String()
		switch {
		case strings.Contains(p, "/chat/completions"):
			return OpenAIChat
		case strings.Contains(p, "/responses"):
			return OpenAIResponses
		case strings.Contains(p, "/messages") || strings.Contains(rec.Get("scope").String(), "anthropic"):
			return Anthropic
		}
		if f := classifyRequest(body); f != "" {
			return f
		}
	}
	if r := rec.Get("response.body"); r.IsObject() {
		return classifyResponse(r)
	}
	if r := rec.Get("response"); r.IsObject() {
		if f := classifyResponse(r); f != "" {
			return f
		}
	}
	if r := rec.Get("request"); r.IsObject() {
		return classifyRequest(r)
	}
	if f := classifyResponse(rec); f != "" {
		return f
	}
	return classifyRequest(rec)
}

func classifyResponse(r gjson.Result) string {
	obj := r.Get("object").String()
	switch {
	case r.Get("choices").IsArray() || strings.HasPrefix(obj, "chat.completion"):
		return OpenAIChat
	case obj == "response" || r.Get("output").IsArray() && r.Get("created_at").Exists():
		return OpenAIResponses
	case r.Get("type").String() == "message" || r.Get("content").IsArray() && r.Get("stop_reason").Exists():
		return Anthropic
	}
	return ""
}

func classifyRequest(r gjson.Result) string {
	msgs := r.Get("messages")
	switch {
	case r.Get("input").Exists() && !msgs.Exists():
		return OpenAIResponses
	case !msgs.IsArray():
		return ""
	case r.Get("anthropic_version").Exists() || r.Get("system").Exists() || r.Get("tools.0.input_schema").Exists():
		return Anthropic
	}
	// Anthropic content blocks that Chat Completions does not have.
	anthropic := false
	each(msgs, func(_, m gjson.Result) bool {
		each(m.Get("content"), func(_, p gjson.Result) bool {
			switch p.Get("type").String() {
			case "tool_use", "tool_result", "thinking", "redacted_thinking", "document":
				anthropic = true
			case "image":
				anthropic = p.Get("source").Exists()
			}
			return !anthropic
		})
		return !anthropic
	})
	if anthropic {
		return Anthropic
	}
	return OpenAIChat
}
