package importer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// Record kinds. Each importer reads some kinds of record into the log and
// skips others; Format.Kinds is the one list of them, per format: the
// skip reasons the Report counts come from it, docs/formats.md's table says
// the same (a test compares them), and a test fails when a fixture holds
// a kind that is in no list. A kind is a record's type, or its type and
// subtype joined by "/" ("progress/hook_progress").
//
// A kind the list does not know is not noise by default: when it holds a
// message, a tool call, a tool result, file content or usage (carriesWork)
// it is named on stderr as lost, with its count.

// A RecordKind is one kind of record and what its importer does with it.
type RecordKind struct {
	Kind string
	// Skip says why records of the kind are not imported; "" when
	// they are.
	Skip string
	// Lost is true for a skipped kind that holds work no other record
	// has: its records are named on stderr as lost, with their count.
	Lost bool
}

// The kinds of record each importer knows (Format.Kinds).
var (
	inspectKinds = append(append([]RecordKind{
		{Kind: "event/model"},
		{Kind: "event/tool"},
		{Kind: "event/model without message", Skip: `event "model" without an output message`},
		{Kind: "event/tool without id", Skip: `event "tool" without a call id`},
		{Kind: "event/model unjoined", Skip: `event "model" whose output is not among the messages`},
		{Kind: "event/tool unjoined", Skip: `event "tool" whose call is not among the messages`},
	}, inspectTimelineKinds()...), RecordKind{Kind: "event/subtask", Skip: `event "subtask" (timeline detail)`, Lost: true})
	langSmithKinds = []RecordKind{
		{Kind: "run/llm"},
		{Kind: "run/tool"},
		{Kind: "run/retriever"},
		{Kind: "run/chain", Skip: `run_type "chain" (only llm, tool and retriever runs are steps)`},
		{Kind: "run/prompt", Skip: `run_type "prompt" (only llm, tool and retriever runs are steps)`},
		{Kind: "run/parser", Skip: `run_type "parser" (only llm, tool and retriever runs are steps)`},
		{Kind: "run/embedding", Skip: `run_type "embedding" (only llm, tool and retriever runs are steps)`},
		{Kind: "run/none", Skip: `run_type "none" (only llm, tool and retriever runs are steps)`},
	}
	otelKinds = append(otelSpanKinds(), []RecordKind{
		{Kind: "span", Skip: "span without a GenAI operation"},
		{Kind: "log", Skip: "log record of a skipped span"},
	}...)
)

// inspectTimelineKinds are Inspect's events besides model and tool
// events: the timeline of a sample, what its messages do not say.
func inspectTimelineKinds() []RecordKind {
	var out []RecordKind
	for _, et := range []string{
		"sample_init", "sample_limit", "sandbox", "state", "store", "approval", "input",
		"score", "error", "logger", "info", "span_begin", "span_end", "step", "compaction", "checkpoint",
	} {
		out = append(out, RecordKind{Kind: "event/" + et, Skip: fmt.Sprintf("event %q (timeline detail)", et)})
	}
	return out
}

// otelSpanKinds are the spans of the operations otelOps maps, imported.
func otelSpanKinds() []RecordKind {
	ops := make([]string, 0, len(otelOps))
	for op := range otelOps {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var spans []RecordKind
	for _, op := range ops {
		spans = append(spans, RecordKind{Kind: "span/" + op})
	}
	return spans
}

// KnownKind returns the entry of kind in a format's list: its own, or
// that of every subtype of its type ("attachment/*").
func KnownKind(kinds []RecordKind, kind string) (RecordKind, bool) {
	typ, _, _ := strings.Cut(kind, "/")
	var all RecordKind
	found := false
	for _, k := range kinds {
		switch k.Kind {
		case kind:
			return k, true
		case typ + "/*":
			all, found = k, true
		}
	}
	return all, found
}

// Reason returns why records of kind are skipped, as the format's list
// says.
func (b *Builder) Reason(kind string) string {
	k, ok := KnownKind(b.f.Kinds, kind)
	if !ok || k.Skip == "" {
		panic("importer: no skip reason for " + b.format + " records of kind " + kind)
	}
	return k.Skip
}

// SkipKind counts a record of a kind the format's list says is skipped
// (the reason is the list's). A kind not in the list is skipped with
// unknown as its reason, unless rec holds work: then it is named as lost.
func (b *Builder) SkipKind(kind string, rec gjson.Result, unknown string) {
	// An imported kind skipped here has a shape its importer could not
	// read (no message where one belongs): it is skipped as unknown.
	if k, ok := KnownKind(b.f.Kinds, kind); ok && k.Skip != "" {
		b.Skip(k.Skip)
		if what := carriesWork(rec); k.Lost && what != "" {
			b.lose(kind, what)
		}
		return
	}
	if what := carriesWork(rec); what != "" {
		b.lose(kind, what)
		if s, ok := strings.CutSuffix(unknown, ")"); ok {
			unknown = s + "; it holds " + what + ")"
		} else {
			unknown += "; it holds " + what
		}
	}
	b.Skip(unknown)
}

// lose notes a skipped record that holds work: stderr names it.
func (b *Builder) lose(kind, what string) {
	if b.lost == nil {
		b.lost = map[string]map[string]int{}
	}
	if b.lost[kind] == nil {
		b.lost[kind] = map[string]int{}
	}
	b.lost[kind][what]++
}

// lostWarnings are the warnings naming the records skipped that held work.
func (b *Builder) lostWarnings() []string {
	var out []string
	for kind, whats := range b.lost {
		for what, n := range whats {
			out = append(out, fmt.Sprintf("%d record(s) of kind %q hold %s, which is not imported: lost from the log", n, kind, what))
		}
	}
	sort.Strings(out)
	return out
}

// carriesWork says what work a record holds, if any: "a message", "a
// tool call", "a tool result", "file content" or "usage" (the first found,
// looking a few levels deep); "" when it holds none of them.
func carriesWork(v gjson.Result) string {
	return workIn(v, 0)
}

func workIn(v gjson.Result, depth int) string {
	if depth > 6 || !v.IsObject() && !v.IsArray() {
		return ""
	}
	if v.IsObject() {
		f := FieldsOf(v)
		switch f.Get("type").String() {
		case "tool_use", "server_tool_use", "mcp_tool_use", "function_call", "custom_tool_call", "local_shell_call", "tool_call":
			return "a tool call"
		case "tool_result", "mcp_tool_result", "function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_call_response":
			return "a tool result"
		}
		if f.Get("role").Type == gjson.String && f.Get("content").Exists() {
			return "a message"
		}
		if tc := f.Get("tool_calls"); Informative(tc) {
			return "a tool call"
		}
		if Informative(f.Get("toolUseResult")) {
			return "a tool result"
		}
		if c := f.First("content", "originalFile"); c.Type == gjson.String && f.First("filePath", "file_path").Type == gjson.String {
			return "file content"
		}
		for _, m := range f {
			if strings.HasSuffix(m.K, "_tokens") && m.V.Type == gjson.Number && m.V.Raw != "0" {
				return "usage"
			}
		}
	}
	found := ""
	Each(v, func(_, e gjson.Result) bool {
		found = workIn(e, depth+1)
		return found == ""
	})
	return found
}
