package importer

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// firstRecord returns the first record of data without parsing the rest.
func FirstRecord(data []byte) (gjson.Result, bool) {
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

// The first-record matchers of the formats this package declares, and
// of the agents whose record shapes it knows, in the order they were
// told apart before each format had its own (the Registry's order).

func matchATIF(rec gjson.Result) bool {
	return strings.HasPrefix(rec.Get("schema_version").String(), "ATIF-") && rec.Get("steps").Exists()
}

func matchOTel(rec gjson.Result) bool {
	has := func(p string) bool { return rec.Get(p).Exists() }
	return has("resourceSpans") || has("resourceLogs") || has("resource_spans") || has("resource_logs") ||
		rec.Get("spans").IsArray() || has("name") && has("context") && (has("attributes") || has("start_time"))
}

func matchLangSmith(rec gjson.Result) bool {
	has := func(p string) bool { return rec.Get(p).Exists() }
	return has("post") || has("patch") || has("run_type") && (has("dotted_order") || has("trace_id") || has("id"))
}

func matchInspect(rec gjson.Result) bool {
	has := func(p string) bool { return rec.Get(p).Exists() }
	return rec.Get("eval").IsObject() && (has("samples") || has("results") || has("status") || has("plan"))
}

// sniffInspect tells an Inspect .eval archive by its name or its zip
// magic.
func sniffInspect(name string, data []byte) bool {
	return bytes.HasPrefix(data, zipMagic) || strings.HasSuffix(name, ".eval")
}

// matchExchange returns the matcher of one of the three APIs whose
// request/response records classifyExchange tells apart.
func matchExchange(format string) func(gjson.Result) bool {
	return func(rec gjson.Result) bool { return classifyExchange(rec) == format }
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
	Each(msgs, func(_, m gjson.Result) bool {
		Each(m.Get("content"), func(_, p gjson.Result) bool {
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

// Ctx names ctx's own execution log among the formats a caller may be
// given (ctx-pack --from ctx): no import needed.
const Ctx = "ctx"

// Auto asks Choose to detect the format.
const Auto = "auto"

// IsExecLog reports whether data looks like ctx's own execution log: an
// object with model.identifier and a steps array.
func IsExecLog(data []byte) bool {
	r := gjson.GetManyBytes(data, "model.identifier", "steps")
	return r[0].Type == gjson.String && r[1].IsArray()
}

// MismatchError reports data of format Seen given as format Want.
type MismatchError struct {
	Name       string
	Seen, Want string
	// seen and want describe them (Registry.Describe).
	seen, want string
}

// Error says what the input is: "this looks like a claude-code session:
// use --from auto" when ctx's own log was expected, "this is a
// claude-code session, not a codex session" otherwise.
func (e *MismatchError) Error() string {
	if e.Want == Ctx {
		return fmt.Sprintf("this looks like %s: use --from auto", e.seen)
	}
	return fmt.Sprintf("this is %s, not %s", e.seen, e.want)
}

// Hint says which format to use instead.
func (e *MismatchError) Hint() string {
	if e.Want == Ctx {
		return "or --from " + e.Seen
	}
	return "use --from " + e.Seen + " or --from auto"
}

// ExitCode is 1: the input is not a log of the format given.
func (e *MismatchError) ExitCode() int { return 1 }

// UnknownFormatError reports a format name that is none of Formats.
type UnknownFormatError struct {
	Name  string
	Known []string // the formats, sorted
}

// Error lists the formats.
func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("%s: unknown format; use %s, %s, %s", e.Name, Ctx, Auto, strings.Join(e.Known, ", "))
}

// ExitCode is 3: a usage error.
func (e *UnknownFormatError) ExitCode() int { return 3 }

// Logs of formats ctx does not import are recognised, so that they are
// named rather than mistaken for a format that looks alike (a Gemini CLI
// prompt log is a list of records with a session id and a message, as
// other logs are).
// notImportedShapes are their shapes, tried on the first record before
// the formats ctx imports; a format that gets an importer leaves the
// table for classify.
var notImportedShapes = []struct {
	what  string // "a Gemini CLI prompt log", for "this looks like …"
	match func(rec gjson.Result) bool
}{
	// ~/.gemini/tmp/<project hash>/logs.json: the prompts typed, [{sessionId,
	// messageId (a number), type, message (a string), timestamp}].
	{"a Gemini CLI prompt log (logs.json)", func(rec gjson.Result) bool {
		return rec.Get("sessionId").Exists() && rec.Get("messageId").Type == gjson.Number && rec.Get("message").Type == gjson.String
	}},
}

// notImported says what format ctx does not import rec looks like the
// first record of, or "".
func notImported(rec gjson.Result) string {
	for _, s := range notImportedShapes {
		if s.match(rec) {
			return s.what
		}
	}
	return ""
}

// UnsupportedError reports a log of a format ctx does not import.
type UnsupportedError struct {
	Name  string
	What  string   // "a Gemini CLI prompt log (logs.json)"
	Known []string // the formats ctx imports, sorted
}

// Error says what the input looks like: "this looks like a Gemini CLI
// prompt log (logs.json): not supported".
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("this looks like %s: not supported", e.What)
}

// Hint lists the formats ctx imports.
func (e *UnsupportedError) Hint() string {
	return "ctx-pack imports: " + strings.Join(e.Known, ", ")
}

// ExitCode is 1: the input is no log ctx can read.
func (e *UnsupportedError) ExitCode() int { return 1 }
