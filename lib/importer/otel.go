package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// OpenTelemetry GenAI telemetry. Two shapes are read:
//
//   - OTLP JSON ({"resourceSpans": …} and {"resourceLogs": …}, one document
//     or one per line as the file exporter writes them; traces and logs may
//     be mixed and are joined by span id). Attribute lists of key/value
//     AnyValues are flattened first.
//   - SDK span dumps: objects with name, context, parent, start_time,
//     attributes (flat), as Python's span.to_json() writes them, alone, in
//     an array, or under "spans" (with an optional "final_output").
//
// Message content is read from the current conventions (gen_ai.input.messages
// and gen_ai.output.messages, as attributes or in
// gen_ai.client.inference.operation.details events), from the older
// per-message events (gen_ai.system.message, gen_ai.user.message,
// gen_ai.assistant.message, gen_ai.tool.message, gen_ai.choice), from the
// older prompt/completion attributes (gen_ai.prompt.0.content,
// gen_ai.completion.0.tool_calls.0.name, …) and from gen_ai.content.prompt /
// gen_ai.content.completion events.

type span struct {
	where     string
	order     int
	traceID   string
	spanID    string
	parentID  string
	name      string
	start     string // RFC 3339
	startKey  string // for ordering: nanoseconds, zero-padded
	end       string
	attrs     attrs
	events    []*event
	resource  attrs
	scope     string
	scopeVer  string
	rest      Obj
	synthetic bool // made up from log records whose span is not in the input
}

type event struct {
	where string
	name  string
	ts    string
	attrs attrs
	body  gjson.Result
	rest  Obj
	used  bool
	log   bool // a log record, counted as an input record
}

// attrs is a flattened attribute list: lookups by key, output in input order.
type attrs struct {
	keys []string
	vals map[string]gjson.Result
}

func (a *attrs) set(k string, v json.RawMessage) {
	if a.vals == nil {
		a.vals = map[string]gjson.Result{}
	}
	if _, ok := a.vals[k]; !ok {
		a.keys = append(a.keys, k)
	}
	a.vals[k] = gjson.ParseBytes(v)
}

func (a *attrs) get(k string) gjson.Result { return a.vals[k] }

// str returns an attribute as a string ("" when absent).
func (a *attrs) str(k string) string {
	v := a.vals[k]
	if !v.Exists() {
		return ""
	}
	return Str(v)
}

// obj returns the attributes not named in skip (or starting with a skip
// entry ending in ".").
func (a *attrs) obj(skip map[string]bool) Obj {
	var o Obj
	for _, k := range a.keys {
		if skip[k] || skipPrefix(k, skip) {
			continue
		}
		if v := a.vals[k]; Informative(v) {
			o.Set(k, Raw(v))
		}
	}
	return o
}

func skipPrefix(k string, skip map[string]bool) bool {
	for p := range skip {
		if strings.HasSuffix(p, ".") && strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// anyValue flattens an OTLP AnyValue into plain JSON.
func anyValue(v gjson.Result) json.RawMessage {
	if v.Type != gjson.JSON {
		return Raw(v) // already plain (some exporters write plain values)
	}
	if s := First(v, "stringValue", "string_value"); s.Exists() {
		return Quote(s.String())
	}
	if i := First(v, "intValue", "int_value"); i.Exists() {
		lit := i.String()
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil && n <= 1<<53 && n >= -(1<<53) {
			return json.RawMessage(strconv.FormatInt(n, 10))
		}
		return Quote(lit)
	}
	if d := First(v, "doubleValue", "double_value"); d.Exists() {
		if d.Type == gjson.Number {
			return Raw(d)
		}
		return Quote(d.String())
	}
	if bv := First(v, "boolValue", "bool_value"); bv.Exists() {
		return jsonBool(bv.Bool())
	}
	if by := First(v, "bytesValue", "bytes_value"); by.Exists() {
		return Quote(by.String())
	}
	if arr := First(v, "arrayValue", "array_value"); arr.Exists() {
		var l List
		Each(arr.Get("values"), func(_, e gjson.Result) bool {
			l = append(l, anyValue(e))
			return true
		})
		if l == nil {
			return json.RawMessage("[]")
		}
		return l.Raw()
	}
	if kv := First(v, "kvlistValue", "kvlist_value"); kv.Exists() {
		var o Obj
		Each(kv.Get("values"), func(_, e gjson.Result) bool {
			o.Set(e.Get("key").String(), anyValue(e.Get("value")))
			return true
		})
		if o == nil {
			return json.RawMessage("{}")
		}
		return o.Raw()
	}
	return json.RawMessage("null")
}

// keyValues flattens an OTLP attribute list.
func (b *Builder) keyValues(list gjson.Result, where string) (attrs, error) {
	var a attrs
	if !list.Exists() || list.Type == gjson.Null {
		return a, nil
	}
	if list.IsObject() { // SDK dumps: already flat
		Each(list, func(k, v gjson.Result) bool {
			a.set(k.String(), Raw(v))
			return true
		})
		return a, nil
	}
	if !list.IsArray() {
		return a, b.Errorf(where, "expected an array of attributes, got %s", Kind(list))
	}
	var err error
	i := 0
	Each(list, func(_, kv gjson.Result) bool {
		k := kv.Get("key")
		if k.Type != gjson.String {
			err = b.Errorf(fmt.Sprintf("%s[%d]", where, i), "attribute has no key")
			return false
		}
		a.set(k.Str, anyValue(kv.Get("value")))
		i++
		return true
	})
	return a, err
}

// otelInput is everything read from the input before mapping.
type otelInput struct {
	spans  []*span
	byID   map[string]*span
	logs   []*event
	logIDs []string // span id of each log record
	final  gjson.Result
}

func importOTel(b *Builder, data []byte) error {
	in := &otelInput{byID: map[string]*span{}}
	err := b.eachRecord(data, func(where string, rec gjson.Result) error {
		return b.otelRecord(in, where, rec)
	})
	if err != nil {
		return err
	}
	// Attach log records to their spans; those whose span is absent form
	// a span of their own per span id.
	for i, e := range in.logs {
		id := in.logIDs[i]
		s := in.byID[id]
		if s == nil {
			s = &span{where: e.where, order: len(in.spans), spanID: id, start: e.ts, startKey: sortKey(e.ts), synthetic: true}
			in.spans = append(in.spans, s)
			if id != "" {
				in.byID[id] = s
			}
		}
		s.events = append(s.events, e)
	}
	sort.SliceStable(in.spans, func(i, j int) bool {
		if in.spans[i].startKey != in.spans[j].startKey {
			return in.spans[i].startKey < in.spans[j].startKey
		}
		return in.spans[i].order < in.spans[j].order
	})
	for _, s := range in.spans {
		if err := b.otelSpan(s); err != nil {
			return err
		}
	}
	if f := in.final; Informative(f) {
		text := f.String()
		if f.Type == gjson.JSON {
			var buf bytes.Buffer
			if json.Compact(&buf, []byte(f.Raw)) == nil {
				text = buf.String()
			}
		}
		b.Outputs = append(b.Outputs, Output{Name: FinalName, Content: text})
	}
	return nil
}

// sortKey orders RFC 3339 UTC times (all normalised the same way).
func sortKey(ts string) string {
	if ts == "" {
		return ""
	}
	// Pad the fraction so that lexical order is time order.
	date, frac, ok := strings.Cut(strings.TrimSuffix(ts, "Z"), ".")
	if !ok {
		frac = ""
	}
	return date + "." + (frac + "000000000")[:9]
}

func (b *Builder) otelRecord(in *otelInput, where string, rec gjson.Result) error {
	switch {
	case rec.Get("resourceSpans").Exists() || rec.Get("resource_spans").Exists():
		return b.otlpTraces(in, where, First(rec, "resourceSpans", "resource_spans"))
	case rec.Get("resourceLogs").Exists() || rec.Get("resource_logs").Exists():
		return b.otlpLogs(in, where, First(rec, "resourceLogs", "resource_logs"))
	case rec.Get("spans").IsArray():
		in.final = rec.Get("final_output")
		var err error
		i := 0
		Each(rec.Get("spans"), func(_, s gjson.Result) bool {
			err = b.sdkSpan(in, At(where, fmt.Sprintf("spans[%d]", i)), s)
			i++
			return err == nil
		})
		return err
	case rec.Get("name").Exists() && (rec.Get("context").Exists() || rec.Get("attributes").Exists()):
		return b.sdkSpan(in, where, rec)
	}
	return b.Errorf(where, "not OpenTelemetry data: expected resourceSpans, resourceLogs or span objects")
}

func (b *Builder) otlpTraces(in *otelInput, where string, rss gjson.Result) error {
	if !rss.IsArray() {
		return b.Errorf(At(where, "resourceSpans"), "expected an array, got %s", Kind(rss))
	}
	for i, rs := range Elems(rss) {
		rsAt := At(where, fmt.Sprintf("resourceSpans[%d]", i))
		res, err := b.keyValues(rs.Get("resource.attributes"), At(rsAt, "resource.attributes"))
		if err != nil {
			return err
		}
		for j, ss := range Elems(First(rs, "scopeSpans", "scope_spans", "instrumentationLibrarySpans")) {
			ssAt := At(rsAt, fmt.Sprintf("scopeSpans[%d]", j))
			scope := First(ss, "scope", "instrumentationLibrary")
			spans := ss.Get("spans")
			if spans.Exists() && !spans.IsArray() {
				return b.Errorf(At(ssAt, "spans"), "expected an array, got %s", Kind(spans))
			}
			for k, sp := range Elems(spans) {
				spAt := At(ssAt, fmt.Sprintf("spans[%d]", k))
				if !sp.IsObject() {
					return b.Errorf(spAt, "expected a span object, got %s", Kind(sp))
				}
				a, err := b.keyValues(sp.Get("attributes"), At(spAt, "attributes"))
				if err != nil {
					return err
				}
				s := &span{
					where: spAt, order: len(in.spans), attrs: a, resource: res,
					traceID:  First(sp, "traceId", "trace_id").String(),
					spanID:   First(sp, "spanId", "span_id").String(),
					parentID: First(sp, "parentSpanId", "parent_span_id").String(),
					name:     sp.Get("name").String(),
					start:    Timestamp(First(sp, "startTimeUnixNano", "start_time_unix_nano")),
					end:      Timestamp(First(sp, "endTimeUnixNano", "end_time_unix_nano")),
					scope:    scope.Get("name").String(),
					scopeVer: scope.Get("version").String(),
					rest: Rest(sp, "traceId", "trace_id", "spanId", "span_id", "parentSpanId", "parent_span_id",
						"name", "startTimeUnixNano", "start_time_unix_nano", "endTimeUnixNano", "end_time_unix_nano",
						"attributes", "events"),
				}
				s.startKey = sortKey(s.start)
				for e, ev := range Elems(sp.Get("events")) {
					evAt := At(spAt, fmt.Sprintf("events[%d]", e))
					ea, err := b.keyValues(ev.Get("attributes"), At(evAt, "attributes"))
					if err != nil {
						return err
					}
					s.events = append(s.events, &event{
						where: evAt, name: ev.Get("name").String(), attrs: ea,
						ts:   Timestamp(First(ev, "timeUnixNano", "time_unix_nano")),
						rest: Rest(ev, "name", "attributes", "timeUnixNano", "time_unix_nano"),
					})
				}
				b.addSpan(in, s)
			}
		}
	}
	return nil
}

func (b *Builder) addSpan(in *otelInput, s *span) {
	in.spans = append(in.spans, s)
	if s.spanID != "" {
		if old := in.byID[s.spanID]; old != nil && old.synthetic {
			s.events = append(old.events, s.events...)
		}
		in.byID[s.spanID] = s
	}
}

func (b *Builder) otlpLogs(in *otelInput, where string, rls gjson.Result) error {
	if !rls.IsArray() {
		return b.Errorf(At(where, "resourceLogs"), "expected an array, got %s", Kind(rls))
	}
	for i, rl := range Elems(rls) {
		rlAt := At(where, fmt.Sprintf("resourceLogs[%d]", i))
		for j, sl := range Elems(First(rl, "scopeLogs", "scope_logs")) {
			slAt := At(rlAt, fmt.Sprintf("scopeLogs[%d]", j))
			recs := First(sl, "logRecords", "log_records")
			if recs.Exists() && !recs.IsArray() {
				return b.Errorf(At(slAt, "logRecords"), "expected an array, got %s", Kind(recs))
			}
			for k, lr := range Elems(recs) {
				lrAt := At(slAt, fmt.Sprintf("logRecords[%d]", k))
				if !lr.IsObject() {
					return b.Errorf(lrAt, "expected a log record object, got %s", Kind(lr))
				}
				a, err := b.keyValues(lr.Get("attributes"), At(lrAt, "attributes"))
				if err != nil {
					return err
				}
				name := First(lr, "eventName", "event_name").String()
				if name == "" {
					name = a.str("event.name")
				}
				e := &event{
					where: lrAt, name: name, attrs: a, log: true,
					ts: Timestamp(First(lr, "timeUnixNano", "time_unix_nano", "observedTimeUnixNano")),
					rest: Rest(lr, "eventName", "event_name", "attributes", "body", "timeUnixNano", "time_unix_nano",
						"observedTimeUnixNano", "traceId", "trace_id", "spanId", "span_id"),
				}
				if body := lr.Get("body"); body.Exists() {
					e.body = gjson.ParseBytes(anyValue(body))
				}
				in.logs = append(in.logs, e)
				in.logIDs = append(in.logIDs, First(lr, "spanId", "span_id").String())
			}
		}
	}
	return nil
}

// sdkSpan reads a span as the OpenTelemetry SDKs dump it (span.to_json()).
func (b *Builder) sdkSpan(in *otelInput, where string, sp gjson.Result) error {
	if !sp.IsObject() {
		return b.Errorf(where, "expected a span object, got %s", Kind(sp))
	}
	a, err := b.keyValues(sp.Get("attributes"), At(where, "attributes"))
	if err != nil {
		return err
	}
	res, err := b.keyValues(sp.Get("resource.attributes"), At(where, "resource.attributes"))
	if err != nil {
		return err
	}
	s := &span{
		where: where, order: len(in.spans), attrs: a, resource: res,
		traceID:  sdkID(First(sp, "context.trace_id", "trace_id"), 32),
		spanID:   sdkID(First(sp, "context.span_id", "span_id"), 16),
		parentID: sdkID(First(sp, "parent.span_id", "parent_id"), 16),
		name:     sp.Get("name").String(),
		start:    Timestamp(sp.Get("start_time")),
		end:      Timestamp(sp.Get("end_time")),
		scope:    sp.Get("instrumentation_scope.name").String(),
		scopeVer: sp.Get("instrumentation_scope.version").String(),
		rest:     Rest(sp, "context", "parent", "name", "start_time", "end_time", "attributes", "events", "resource", "instrumentation_scope", "parent_id"),
	}
	s.startKey = sortKey(s.start)
	for e, ev := range Elems(sp.Get("events")) {
		evAt := At(where, fmt.Sprintf("events[%d]", e))
		ea, err := b.keyValues(ev.Get("attributes"), At(evAt, "attributes"))
		if err != nil {
			return err
		}
		s.events = append(s.events, &event{where: evAt, name: ev.Get("name").String(), attrs: ea,
			ts: Timestamp(ev.Get("timestamp")), rest: Rest(ev, "name", "attributes", "timestamp")})
	}
	b.addSpan(in, s)
	return nil
}

// sdkID renders an SDK trace or span id: a decimal integer (often beyond
// 2^64) becomes the usual hex form; a string is kept.
func sdkID(v gjson.Result, digits int) string {
	switch v.Type {
	case gjson.Number:
		n, ok := new(big.Int).SetString(v.Raw, 10)
		if !ok || n.Sign() < 0 {
			return v.Raw
		}
		return fmt.Sprintf("%0*x", digits, n)
	case gjson.String:
		return strings.TrimPrefix(v.Str, "0x")
	}
	return ""
}

// otelOps maps operation names to what they become.
var otelOps = map[string]string{
	"chat": LLMCall, "text_completion": LLMCall, "generate_content": LLMCall,
	"call_llm": LLMCall, "completion": LLMCall, "LLM": LLMCall,
	"execute_tool": ToolCall, "TOOL": ToolCall,
	"invoke_agent": "agent", "create_agent": "agent", "AGENT": "agent",
}

// otelMessageEvents are the older per-message event names and their roles.
var otelMessageEvents = map[string]string{
	"gen_ai.system.message":    "system",
	"gen_ai.user.message":      "user",
	"gen_ai.assistant.message": "assistant",
	"gen_ai.tool.message":      "tool",
}

func (b *Builder) otelSpan(s *span) error {
	op := s.attrs.str("gen_ai.operation.name")
	if op == "" {
		op = s.attrs.str("openinference.span.kind")
	}
	if op == "" {
		if name, _, _ := strings.Cut(s.name, " "); otelOps[name] != "" {
			op = name
		}
	}
	kind := otelOps[op]
	if kind == "" && s.synthetic {
		kind = LLMCall // log records about a span not in the input
	}
	if s.resource.vals != nil {
		b.otelResource(s)
	}
	switch kind {
	case LLMCall:
		return b.otelLLM(s)
	case ToolCall:
		b.otelTool(s)
	case "agent":
		meta := b.spanMeta(s, nil)
		b.AppendMeta("agents", meta.Raw())
		if b.AgentModel == "" {
			b.AgentModel = s.attrs.str("gen_ai.request.model")
		}
		b.Seen(s.start)
		b.countSpan(s, true, "")
	default:
		reason := b.Reason("span")
		if op != "" {
			reason = fmt.Sprintf("span with GenAI operation %q", op)
		}
		b.countSpan(s, false, reason)
	}
	return nil
}

// countSpan counts a span and its log records.
func (b *Builder) countSpan(s *span, mapped bool, reason string) {
	if !s.synthetic {
		if mapped {
			b.MapRecord()
		} else {
			b.Skip(reason)
		}
	}
	for _, e := range s.events {
		if !e.log {
			continue
		}
		if mapped {
			b.MapRecord() // read as a message, or kept in the step's metadata
		} else {
			b.Skip(b.Reason("log"))
		}
	}
}

func (b *Builder) otelResource(s *span) {
	r := &s.resource
	if os := r.str("os.type"); os != "" {
		b.env.OS = os
	}
	if rt := strings.TrimSpace(r.str("process.runtime.name") + " " + r.str("process.runtime.version")); rt != "" && b.env.Runtime == "" {
		b.env.Runtime = rt
	}
	if sdk := r.str("telemetry.sdk.name"); sdk != "" {
		name := sdk
		if lang := r.str("telemetry.sdk.language"); lang != "" {
			name += "-" + lang
		}
		b.Tool(name, r.str("telemetry.sdk.version"))
	}
	b.Tool(s.scope, s.scopeVer)
	b.Meta.SetDefault("resource", r.obj(nil).Raw())
}

// spanMeta is a span's metadata: ids, timing, status and the attributes
// the mapping did not use.
func (b *Builder) spanMeta(s *span, used map[string]bool) Obj {
	var m Obj
	if s.name != "" {
		m.SetString("span_name", s.name)
	}
	if s.traceID != "" {
		m.SetString("trace_id", s.traceID)
	}
	if s.spanID != "" {
		m.SetString("span_id", s.spanID)
	}
	if s.parentID != "" {
		m.SetString("parent_span_id", s.parentID)
	}
	if s.end != "" {
		m.SetString("end_time", s.end)
	}
	m.Set("attributes", s.attrs.obj(used).Raw())
	m = append(m, s.rest...)
	var evs, usedEvs List
	for _, e := range s.events {
		if e.used {
			// The content went into messages; keep the rest of the record.
			var eo Obj
			eo.SetString("name", e.name)
			if e.ts != "" {
				eo.SetString("timestamp", e.ts)
			}
			eo = append(eo, e.rest...)
			usedEvs = append(usedEvs, eo.Raw())
			continue
		}
		var eo Obj
		eo.SetString("name", e.name)
		if e.ts != "" {
			eo.SetString("timestamp", e.ts)
		}
		eo.Set("attributes", e.attrs.obj(nil).Raw())
		if Informative(e.body) {
			eo.Set("body", Raw(e.body))
		}
		eo = append(eo, e.rest...)
		evs = append(evs, eo.Raw())
	}
	m.Set("events", evs.Raw())
	m.Set("message_events", usedEvs.Raw())
	return m
}

func (b *Builder) otelLLM(s *span) error {
	used := map[string]bool{
		"gen_ai.operation.name": true, "gen_ai.request.model": true, "gen_ai.response.model": true,
		"gen_ai.input.messages": true, "gen_ai.output.messages": true, "gen_ai.system_instructions": true,
		"gen_ai.output": true, "gen_ai.prompt.": true, "gen_ai.completion.": true, "gen_ai.prompt": true,
		"gen_ai.completion": true, "gen_ai.request.": true, "openinference.span.kind": true,
	}
	model := s.attrs.str("gen_ai.response.model")
	if model == "" {
		model = s.attrs.str("gen_ai.request.model")
	}
	b.SetModel(model)
	var params Obj
	for _, k := range s.attrs.keys {
		if p, ok := strings.CutPrefix(k, "gen_ai.request."); ok {
			v := s.attrs.get(k)
			params.Set(p, Raw(v))
			if p != "model" {
				b.Param(p, Raw(v))
			}
		}
	}
	for _, k := range []string{"gen_ai.openai.request.seed", "gen_ai.openai.response.system_fingerprint", "gen_ai.response.system_fingerprint"} {
		if v := s.attrs.get(k); v.Exists() {
			b.Param(k[strings.LastIndexByte(k, '.')+1:], Raw(v))
		}
	}
	if p := s.attrs.str("gen_ai.system"); p != "" {
		b.Meta.SetDefault("provider", Quote(p))
	} else if p := s.attrs.str("gen_ai.provider.name"); p != "" {
		b.Meta.SetDefault("provider", Quote(p))
	}

	in, out, err := b.otelMessages(s)
	if err != nil {
		return err
	}
	turn := firstTurn(out)
	if turn == nil {
		turn = &Msg{Role: "assistant"}
		out = append(out, turn)
	}
	turn.TS = s.start
	turn.Params = params.Raw()
	// gen_ai.usage.input_tokens, gen_ai.usage.cache_read.input_tokens, …:
	// the step's usage (costs and other counters stay with it in metadata).
	var usage Obj
	for _, k := range s.attrs.keys {
		if name, ok := strings.CutPrefix(k, "gen_ai.usage."); ok {
			usage.Set(strings.ReplaceAll(name, ".", "_"), Raw(s.attrs.get(k)))
			used[k] = true
		}
	}
	turn.Meta = Join(b.spanMeta(s, used), turn.Meta)
	// The model that answered this call, as the other formats' model
	// turns name it (the run's model is the first one).
	if rm := s.attrs.str("gen_ai.response.model"); rm != "" {
		turn.Meta.SetDefault("model", Quote(rm))
	}
	turn.Meta.SetDefault("usage", usage.Raw())
	turn.Failed = spanFailure(s)
	b.Seen(s.start)
	b.exchange(in, out)
	b.countSpan(s, true, "")
	return nil
}

// otelMessages finds a model call's input and output messages.
func (b *Builder) otelMessages(s *span) (in, out []*Msg, err error) {
	where := At(s.where, "attributes")
	read := func(v gjson.Result, at string) ([]*Msg, error) {
		if v.Type == gjson.String && gjson.Valid(v.Str) {
			v = gjson.Parse(v.Str)
		}
		if !v.IsArray() {
			return nil, nil
		}
		return b.readMsgs(v, otelTable, at)
	}
	// Current conventions: attributes, or the operation details event.
	sys := s.attrs.get("gen_ai.system_instructions")
	inV, outV := s.attrs.get("gen_ai.input.messages"), s.attrs.get("gen_ai.output.messages")
	for _, e := range s.events {
		if e.name == "gen_ai.client.inference.operation.details" {
			e.used = true
			if v := e.attrs.get("gen_ai.input.messages"); v.Exists() {
				inV = v
			}
			if v := e.attrs.get("gen_ai.output.messages"); v.Exists() {
				outV = v
			}
			if v := e.attrs.get("gen_ai.system_instructions"); v.Exists() {
				sys = v
			}
		}
	}
	if sys.Exists() {
		m := &Msg{Role: "system"}
		if sys.Type == gjson.String && gjson.Valid(sys.Str) && strings.HasPrefix(strings.TrimSpace(sys.Str), "[") {
			sys = gjson.Parse(sys.Str)
		}
		if err := b.ReadParts(m, sys, At(where, "gen_ai.system_instructions")); err != nil {
			return nil, nil, err
		}
		in = append(in, m)
	}
	if inV.Exists() {
		msgs, err := read(inV, At(where, "gen_ai.input.messages"))
		if err != nil {
			return nil, nil, err
		}
		in = append(in, msgs...)
	}
	if outV.Exists() {
		msgs, err := read(outV, At(where, "gen_ai.output.messages"))
		if err != nil {
			return nil, nil, err
		}
		out = append(out, msgs...)
	}
	// Older conventions: one event per message.
	for _, e := range s.events {
		body := e.body
		if !body.Exists() {
			body = gjson.ParseBytes(e.attrs.obj(nil).Raw())
		}
		if role, ok := otelMessageEvents[e.name]; ok {
			e.used = true
			m, err := b.readMsg(body, otelTable, e.where, role)
			if err != nil {
				return nil, nil, err
			}
			m.Role = role
			in = append(in, m)
			continue
		}
		switch e.name {
		case "gen_ai.choice":
			e.used = true
			m, err := b.readMsg(First(body, "message"), otelTable, e.where, "assistant")
			if err != nil {
				return nil, nil, err
			}
			m.Meta = Join(Rest(body, "message"), m.Meta)
			out = append(out, m)
		case "gen_ai.content.prompt":
			e.used = true
			msgs, err := read(e.attrs.get("gen_ai.prompt"), At(e.where, "gen_ai.prompt"))
			if err != nil {
				return nil, nil, err
			}
			in = append(in, msgs...)
		case "gen_ai.content.completion":
			e.used = true
			msgs, err := read(e.attrs.get("gen_ai.completion"), At(e.where, "gen_ai.completion"))
			if err != nil {
				return nil, nil, err
			}
			out = append(out, msgs...)
		}
	}
	// Older conventions: indexed attributes.
	if len(in) == 0 {
		in = indexedMsgs(&s.attrs, "gen_ai.prompt.")
	}
	if len(out) == 0 {
		out = indexedMsgs(&s.attrs, "gen_ai.completion.")
		for _, m := range out {
			if m.Role == "" || m.Role == "user" {
				m.Role = "assistant"
			}
		}
	}
	// any-agent: gen_ai.output holds the text, or the tool calls as JSON.
	if len(out) == 0 {
		if o := s.attrs.get("gen_ai.output"); o.Exists() {
			out = append(out, agentOutput(o, s.attrs.str("gen_ai.output.type")))
		}
	}
	return in, out, nil
}

// indexedMsgs rebuilds messages from attributes such as
// gen_ai.prompt.0.role, gen_ai.prompt.0.content and
// gen_ai.completion.0.tool_calls.1.arguments.
func indexedMsgs(a *attrs, prefix string) []*Msg {
	byIndex := map[int]*Msg{}
	var order []int
	calls := map[[2]int]*Call{}
	for _, k := range a.keys {
		p, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		idx, field, ok := strings.Cut(p, ".")
		i, err := strconv.Atoi(idx)
		if !ok || err != nil {
			continue
		}
		m := byIndex[i]
		if m == nil {
			m = &Msg{Role: "user"}
			byIndex[i] = m
			order = append(order, i)
		}
		v := a.get(k)
		switch {
		case field == "role":
			m.Role = normRole(v.String())
		case field == "content":
			m.AddText(Str(v))
		case field == "tool_call_id":
			m.Results = append(m.Results, &Result{ID: v.String()})
		case strings.HasPrefix(field, "tool_calls."):
			ci, f, _ := strings.Cut(strings.TrimPrefix(field, "tool_calls."), ".")
			n, err := strconv.Atoi(ci)
			if err != nil {
				m.Meta.Set(field, Raw(v))
				continue
			}
			c := calls[[2]int{i, n}]
			if c == nil {
				c = &Call{}
				calls[[2]int{i, n}] = c
				m.Calls = append(m.Calls, c)
			}
			switch f {
			case "id":
				c.ID = v.String()
			case "name":
				c.Name = v.String()
			case "arguments":
				c.Args = Args(v)
			default:
				c.Meta.Set(f, Raw(v))
			}
		default:
			m.Meta.Set(field, Raw(v))
		}
	}
	sort.Ints(order)
	var out []*Msg
	for _, i := range order {
		m := byIndex[i]
		if m.Role == "tool" && len(m.Results) > 0 {
			r := m.Results[0]
			r.Output, r.HasOut = m.Text, m.HasText
			m.Text, m.HasText = "", false
		}
		out = append(out, m)
	}
	return out
}

// agentOutput reads any-agent's gen_ai.output: text, or (type json) a list
// of {"tool.name", "tool.args"} calls.
func agentOutput(o gjson.Result, typ string) *Msg {
	m := &Msg{Role: "assistant"}
	text := Str(o)
	if typ == "json" && gjson.Valid(text) {
		v := gjson.Parse(text)
		if v.IsArray() && v.Get("0.tool\\.name").Exists() {
			Each(v, func(_, c gjson.Result) bool {
				m.Calls = append(m.Calls, &Call{Name: c.Get("tool\\.name").String(), Args: Args(c.Get("tool\\.args")),
					Meta: Rest(c, "tool.name", "tool.args")})
				return true
			})
			return m
		}
	}
	m.AddText(text)
	return m
}

// spanFailure says whether a span records a failed operation: an error
// status (with its message) or the semantic conventions' error.type.
func spanFailure(s *span) *Failure {
	status := gjson.ParseBytes(s.rest.Get("status"))
	if code := First(status, "code", "status_code"); code.String() == "2" || strings.EqualFold(code.String(), "error") || code.String() == "STATUS_CODE_ERROR" {
		msg := First(status, "message", "description").String()
		if msg == "" {
			msg = s.attrs.str("error.type")
		}
		return &Failure{Msg: msg}
	}
	if et := s.attrs.str("error.type"); et != "" {
		return &Failure{Msg: et}
	}
	return nil
}

func (b *Builder) otelTool(s *span) {
	used := map[string]bool{
		"gen_ai.operation.name": true, "gen_ai.tool.name": true, "gen_ai.tool.call.id": true,
		"gen_ai.tool.call.arguments": true, "gen_ai.tool.args": true, "gen_ai.tool.call.result": true,
		"gen_ai.output": true, "tool.name": true, "input.value": true, "output.value": true,
		"openinference.span.kind": true,
	}
	name := s.attrs.str("gen_ai.tool.name")
	if name == "" {
		name = s.attrs.str("tool.name")
	}
	if name == "" {
		name = strings.TrimSpace(strings.TrimPrefix(s.name, "execute_tool"))
	}
	id := s.attrs.str("gen_ai.tool.call.id")
	var argv gjson.Result
	for _, k := range []string{"gen_ai.tool.call.arguments", "gen_ai.tool.args", "input.value"} {
		if v := s.attrs.get(k); v.Exists() {
			argv = v
			break
		}
	}
	r := &Result{ID: id, Name: name, TS: s.start}
	for _, k := range []string{"gen_ai.tool.call.result", "gen_ai.output", "output.value"} {
		if v := s.attrs.get(k); v.Exists() {
			r.Output, r.HasOut = Str(v), true
			break
		}
	}
	fail := spanFailure(s)
	var out *string
	if r.HasOut {
		out = &r.Output
	}
	b.toolRun(id, name, Args(argv), out, fail, s.start, b.spanMeta(s, used))
	b.countSpan(s, true, "")
}
