package importer

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctx-tools/ctx/lib/internal/halves"
	"github.com/tidwall/gjson"
)

// An api describes a request/response API whose recordings are lists of
// exchanges: OpenAI Chat Completions, OpenAI Responses, Anthropic Messages.
type api struct {
	// isResponse tells a bare response object from a bare request.
	isResponse func(rec gjson.Result) bool
	// request reads a request body into the messages it sends and the
	// parameters it sets (everything but the conversation).
	request func(b *Builder, req gjson.Result, where string) ([]*Msg, Obj, error)
	// response reads a response body into the messages it returns. alone
	// says the record has no request, so a response that repeats its
	// request's settings stands in for it.
	response func(b *Builder, resp gjson.Result, where string, alone bool) ([]*Msg, error)
	// conversation are the request members that hold the conversation; a
	// record without any of them and without a response is not an
	// exchange of this API.
	conversation []string
}

// samplingParams are request members that become model parameters.
var samplingParams = []string{
	"temperature", "top_p", "top_k", "seed", "max_tokens", "max_completion_tokens",
	"max_output_tokens", "frequency_penalty", "presence_penalty", "stop",
	"stop_sequences", "n", "reasoning_effort", "reasoning", "thinking",
	"response_format", "logit_bias", "logprobs", "top_logprobs", "verbosity",
}

func (b *Builder) samplingParams(req gjson.Result) {
	for _, k := range samplingParams {
		b.Param(k, Raw(req.Get(k)))
	}
}

// importExchanges reads every exchange of data with API a. A record is a
// {request, response} pair, a nock recording ({scope, method, path, body,
// response}), an OpenAI Batch line, or a bare request or response.
func (b *Builder) importExchanges(data []byte, a *api) error {
	return b.eachRecord(data, func(where string, rec gjson.Result) error {
		req, resp, reqAt, respAt, meta, err := b.splitRecord(rec, where, a)
		if err != nil {
			return err
		}
		var reqMsgs, respMsgs []*Msg
		var params Obj
		if !resp.Exists() && req.IsObject() && !hasAny(req, a.conversation) {
			return b.Errorf(reqAt, "not %s exchange: expected a request with %s, or a response", article(*b.f), strings.Join(a.conversation, " or "))
		}
		if req.Exists() {
			if !req.IsObject() {
				return b.Errorf(reqAt, "expected a request object, got %s", Kind(req))
			}
			if reqMsgs, params, err = a.request(b, req, reqAt); err != nil {
				return err
			}
		}
		if resp.Exists() {
			if !resp.IsObject() {
				return b.Errorf(respAt, "expected a response object, got %s", Kind(resp))
			}
			if respMsgs, err = a.response(b, resp, respAt, !req.Exists()); err != nil {
				return err
			}
		}
		if req.Exists() {
			b.SetModel(req.Get("model").String())
			b.samplingParams(req)
		}
		if turn := firstTurn(respMsgs); turn != nil {
			if req.Exists() {
				turn.Params = params.Raw()
			}
			if turn.TS == "" {
				// ctx-serve --record's exchanges say when each started.
				turn.TS = Timestamp(rec.Get("started"))
			}
			turn.Meta = Join(turn.Meta, meta)
		} else if len(params) > 0 || len(meta) > 0 {
			unanswered := Join(Obj{}, meta)
			unanswered.Set("request", params.Raw())
			b.AppendMeta("unanswered_requests", unanswered.Raw())
			b.Warn("a request has no recorded response")
		}
		b.exchange(reqMsgs, respMsgs)
		b.MapRecord()
		return nil
	})
}

// hasAny reports whether the object o has any of the members keys.
func hasAny(o gjson.Result, keys []string) bool {
	for _, k := range keys {
		if o.Get(k).Exists() {
			return true
		}
	}
	return false
}

// article is the format name with its indefinite article: "an
// openai-chat", "a codex".
func article(f Format) string {
	d := f.Describe()
	return d[:strings.LastIndexByte(d, ' ')]
}

func firstTurn(msgs []*Msg) *Msg {
	for _, m := range msgs {
		if m.Role == "assistant" {
			return m
		}
	}
	return nil
}

// splitRecord finds the request and response of one record.
func (b *Builder) splitRecord(rec gjson.Result, where string, a *api) (req, resp gjson.Result, reqAt, respAt string, meta Obj, err error) {
	body := rec.Get("body")
	switch {
	case body.Exists() && (rec.Get("scope").Exists() || rec.Get("path").Exists() || rec.Get("method").Exists() || rec.Get("url").Exists()):
		// A nock recording or an OpenAI Batch request line.
		req, reqAt = body, At(where, "body")
		if r := rec.Get("response"); r.Exists() {
			resp, respAt = r, At(where, "response")
			if resp, err = b.recordedBody(r, respAt); err != nil {
				return
			}
		}
		meta.Set("http", redactHeaders(Rest(rec, "body", "response")).Raw())
	case rec.Get("response.body").IsObject():
		// An OpenAI Batch output line.
		resp, respAt = rec.Get("response.body"), At(where, "response.body")
		meta.Set("batch", Rest(rec, "response.body").Raw())
	case rec.Get("request").Exists() || rec.Get("response").Exists():
		req, reqAt = rec.Get("request"), At(where, "request")
		resp, respAt = rec.Get("response"), At(where, "response")
		meta = Rest(rec, "request", "response")
	case a.isResponse(rec):
		resp, respAt = rec, where
	default:
		req, reqAt = rec, where
	}
	return
}

// recordedBody decodes a recorded HTTP response body: a JSON value, a
// string holding JSON, or (nock) an array of hex chunks, gzipped or not.
func (b *Builder) recordedBody(r gjson.Result, where string) (gjson.Result, error) {
	var data []byte
	switch {
	case r.IsObject():
		return r, nil
	case r.Type == gjson.String:
		data = []byte(r.Str)
	case r.IsArray():
		var hexText strings.Builder
		ok := true
		Each(r, func(_, c gjson.Result) bool {
			ok = c.Type == gjson.String
			hexText.WriteString(c.Str)
			return ok
		})
		if !ok {
			return r, nil
		}
		d, err := hex.DecodeString(hexText.String())
		if err != nil {
			return gjson.Result{}, b.Errorf(where, "decoding the recorded body: %v", err)
		}
		data = d
	default:
		return r, nil
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return gjson.Result{}, b.Errorf(where, "decoding the recorded body: %v", err)
		}
		const limit = 1 << 30
		data, err = io.ReadAll(io.LimitReader(zr, limit+1))
		if err != nil {
			return gjson.Result{}, b.Errorf(where, "decoding the recorded body: %v", err)
		}
		if len(data) > limit {
			return gjson.Result{}, b.Errorf(where, "decoding the recorded body: larger than 1 GiB")
		}
	}
	if !gjson.ValidBytes(data) || !utf8.Valid(data) || checkSurrogates(data) != nil {
		return gjson.Result{}, b.Errorf(where, "the recorded body is not JSON")
	}
	return Parse(data), nil
}

// OpenAI Chat Completions.

var chatAPI = &api{
	isResponse: func(rec gjson.Result) bool {
		return rec.Get("choices").Exists() || strings.HasPrefix(rec.Get("object").String(), "chat.completion")
	},
	request: func(b *Builder, req gjson.Result, where string) ([]*Msg, Obj, error) {
		msgs, err := b.readMsgs(req.Get("messages"), chatTable, At(where, "messages"))
		if err != nil {
			return nil, nil, err
		}
		if p := req.Get("prompt"); p.Exists() { // legacy completions
			msgs = append(msgs, &Msg{Role: "user", Text: flatText(p), HasText: true})
		}
		return msgs, Rest(req, "messages", "prompt"), nil
	},
	response: func(b *Builder, resp gjson.Result, where string, alone bool) ([]*Msg, error) {
		choices := resp.Get("choices")
		if choices.Exists() && !choices.IsArray() {
			return nil, b.Errorf(At(where, "choices"), "expected an array, got %s", Kind(choices))
		}
		choice := choices.Get("0")
		var m *Msg
		if mm := choice.Get("message"); mm.Exists() {
			var err error
			if m, err = b.readMsg(mm, chatTable, At(where, "choices[0].message"), "assistant"); err != nil {
				return nil, err
			}
		} else {
			m = &Msg{Role: "assistant"}
			if t := choice.Get("text"); t.Exists() {
				m.AddText(t.String())
			}
		}
		m.TS = Timestamp(resp.Get("created"))
		meta := Rest(resp, "choices", "created")
		meta = Join(meta, Rest(choice, "message", "text", "index"))
		meta.Set("other_choices", restOf(choices, 1).Raw())
		m.Meta = Join(meta, m.Meta)
		m.Failed = responseError(resp)
		b.SetModel(resp.Get("model").String())
		b.Param("system_fingerprint", Raw(resp.Get("system_fingerprint")))
		return []*Msg{m}, nil
	},
	conversation: []string{"messages", "prompt"},
}

// responseError reads the error a response reports instead of (or as
// well as) an answer: {"error": {"message", "type", "code"}} in all three
// APIs (Anthropic: "type": "error"; Responses: "status": "failed"). The
// error object itself stays in the step's metadata.
func responseError(resp gjson.Result) *Failure {
	e := resp.Get("error")
	if !Informative(e) {
		return nil
	}
	if e.Type == gjson.String {
		return &Failure{Msg: e.Str}
	}
	return &Failure{Msg: First(e, "message", "type", "code").String()}
}

// restOf returns the array elements from index i on.
func restOf(arr gjson.Result, i int) List {
	var out List
	n := 0
	Each(arr, func(_, v gjson.Result) bool {
		if n >= i {
			out = append(out, Raw(v))
		}
		n++
		return true
	})
	return out
}

func importOpenAIChat(b *Builder, data []byte) error { return b.importExchanges(data, chatAPI) }

// Anthropic Messages.

var anthropicAPI = &api{
	isResponse: func(rec gjson.Result) bool {
		return rec.Get("type").String() == "message" || rec.Get("role").String() == "assistant" && rec.Get("content").Exists()
	},
	request: func(b *Builder, req gjson.Result, where string) ([]*Msg, Obj, error) {
		var msgs []*Msg
		if s := req.Get("system"); s.Exists() {
			m := &Msg{Role: "system"}
			if err := b.ReadParts(m, s, At(where, "system")); err != nil {
				return nil, nil, err
			}
			msgs = append(msgs, m)
		}
		conv, err := b.readMsgs(req.Get("messages"), anthropicTable, At(where, "messages"))
		if err != nil {
			return nil, nil, err
		}
		return append(msgs, conv...), Rest(req, "messages", "system"), nil
	},
	response: func(b *Builder, resp gjson.Result, where string, alone bool) ([]*Msg, error) {
		m := &Msg{Role: "assistant"}
		if err := b.ReadParts(m, resp.Get("content"), At(where, "content")); err != nil {
			return nil, err
		}
		m.Meta = Join(Rest(resp, "content", "role"), m.Meta)
		m.Failed = responseError(resp)
		b.SetModel(resp.Get("model").String())
		return []*Msg{m}, nil
	},
	conversation: []string{"messages", "system"},
}

func importAnthropic(b *Builder, data []byte) error { return b.importExchanges(data, anthropicAPI) }

// OpenAI Responses.

// responseEcho are the request settings a Responses API response repeats.
var responseEcho = []string{
	"instructions", "temperature", "top_p", "max_output_tokens", "reasoning", "text",
	"tools", "tool_choice", "parallel_tool_calls", "truncation", "store", "user",
	"metadata", "previous_response_id", "top_logprobs", "max_tool_calls", "service_tier",
	"prompt", "background", "include",
}

var responsesAPI = &api{
	isResponse: func(rec gjson.Result) bool {
		return rec.Get("object").String() == "response" || rec.Get("output").IsArray() && rec.Get("created_at").Exists()
	},
	request: func(b *Builder, req gjson.Result, where string) ([]*Msg, Obj, error) {
		var msgs []*Msg
		if s := req.Get("instructions"); s.Type == gjson.String {
			msgs = append(msgs, &Msg{Role: "system", Text: s.Str, HasText: true})
		}
		in := req.Get("input")
		switch {
		case in.Type == gjson.String:
			msgs = append(msgs, &Msg{Role: "user", Text: in.Str, HasText: true})
		case in.IsArray():
			items := &ItemReader{b: b}
			var err error
			i := 0
			Each(in, func(_, item gjson.Result) bool {
				err = items.Add(item, At(where, fmt.Sprintf("input[%d]", i)), "")
				i++
				return err == nil
			})
			if err != nil {
				return nil, nil, err
			}
			msgs = append(msgs, items.Done()...)
		case in.Exists() && in.Type != gjson.Null:
			return nil, nil, b.Errorf(At(where, "input"), "expected a string or an array of items, got %s", Kind(in))
		}
		return msgs, Rest(req, "input", "instructions"), nil
	},
	response: func(b *Builder, resp gjson.Result, where string, alone bool) ([]*Msg, error) {
		out := resp.Get("output")
		if out.Exists() && !out.IsArray() {
			return nil, b.Errorf(At(where, "output"), "expected an array, got %s", Kind(out))
		}
		items := &ItemReader{b: b, oneTurn: true}
		var err error
		i := 0
		Each(out, func(_, item gjson.Result) bool {
			err = items.Add(item, At(where, fmt.Sprintf("output[%d]", i)), "")
			i++
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		msgs := items.Done()
		if len(msgs) == 0 {
			msgs = []*Msg{{Role: "assistant"}}
		}
		m := msgs[0]
		m.TS = Timestamp(resp.Get("created_at"))
		skip := []string{"output", "created_at", "output_text"}
		if alone {
			// The response's copy of the request settings is all there is.
			if s := resp.Get("instructions"); s.Type == gjson.String {
				msgs = append([]*Msg{{Role: "system", Text: s.Str, HasText: true}}, msgs...)
			}
			var params Obj
			for _, k := range responseEcho[1:] {
				if v := resp.Get(k); Informative(v) {
					params.Set(k, Raw(v))
				}
			}
			m.Params = params.Raw()
			skip = append(skip, responseEcho...)
		}
		m.Meta = Join(Rest(resp, skip...), m.Meta)
		m.Failed = responseError(resp)
		b.SetModel(resp.Get("model").String())
		b.samplingParams(resp)
		return msgs, nil
	},
	conversation: []string{"input", "instructions"},
}

func importOpenAIResponses(b *Builder, data []byte) error {
	return b.importExchanges(data, responsesAPI)
}

// ItemReader groups Responses API items into messages: consecutive items
// the model produced (messages, reasoning, tool calls) form one model turn.
// A format whose records hold such items (Codex's rollouts) reads them
// with one, which its checkpoints save: it holds no funcs.
type ItemReader struct {
	b       *Builder
	oneTurn bool   // a response's output: every item belongs to one turn
	model   string // the model the turns read from now on are sent to (Codex's turn_context)
	cur     *Msg
	out     []*Msg
}

// NewItemReader returns a reader of items into b.
func NewItemReader(b *Builder) *ItemReader { return &ItemReader{b: b} }

// Resume makes r, as a checkpoint restored it, read into b.
func (r *ItemReader) Resume(b *Builder) { r.b = b }

// Model returns the model the turns read from now on are sent to.
func (r *ItemReader) Model() string { return r.model }

// SetModel names the model the turns read from now on are sent to, in
// their metadata.
func (r *ItemReader) SetModel(model string) { r.model = model }

// Turn returns the model turn being read, nil when none is.
func (r *ItemReader) Turn() *Msg { return r.cur }

// Messages returns the messages read, the model turn being read not
// among them.
func (r *ItemReader) Messages() []*Msg { return r.out }

// Append adds m after the messages read.
func (r *ItemReader) Append(m *Msg) { r.out = append(r.out, m) }

// Insert puts m among the messages read, before the i-th.
func (r *ItemReader) Insert(i int, m *Msg) { r.out = slices.Insert(r.out, i, m) }

func (r *ItemReader) turn(ts string) *Msg {
	if r.cur == nil {
		r.cur = &Msg{Role: "assistant", TS: ts}
		if r.model != "" {
			r.cur.Meta.SetString("model", r.model)
		}
	}
	return r.cur
}

// Flush ends the model turn being read, if any (unless every item
// belongs to one turn).
func (r *ItemReader) Flush() {
	if r.cur != nil && !r.oneTurn {
		r.out = append(r.out, r.cur)
		r.cur = nil
	}
}

// Done ends the reading: the messages read, each model turn with its
// later metadata members made (Msg.SetLater).
func (r *ItemReader) Done() []*Msg {
	if r.cur != nil {
		r.out = append(r.out, r.cur)
		r.cur = nil
	}
	// Each message on its own: a long session's in two halves at once.
	halves.Do(len(r.out), func(from, to int) {
		for _, m := range r.out[from:to] {
			m.doneLater()
		}
	})
	return r.out
}

// itemCalls maps Responses items that are tool calls to where their parts
// live; "" for tool means the item's name member.
var itemCalls = map[string]struct{ tool, id, args, output string }{
	"function_call":         {"", "call_id", "arguments", ""},
	"custom_tool_call":      {"", "call_id", "input", ""},
	"local_shell_call":      {"local_shell", "call_id", "action", ""},
	"computer_call":         {"computer", "call_id", "action", ""},
	"mcp_call":              {"", "id", "arguments", "output"},
	"web_search_call":       {"web_search", "id", "action", ""},
	"file_search_call":      {"file_search", "id", "queries", "results"},
	"code_interpreter_call": {"code_interpreter", "id", "code", "outputs"},
	"image_generation_call": {"image_generation", "id", "", "result"},
	"tool_search_call":      {"tool_search", "call_id", "arguments", ""},
}

// IsItem reports whether a bare record is a Responses API item.
func IsItem(typ string, rec gjson.Result) bool {
	if _, ok := itemCalls[typ]; ok {
		return true
	}
	return typ == "message" || typ == "reasoning" || strings.HasSuffix(typ, "_output")
}

// outputMembers names where an output item other than {call_id, output}
// keeps its output.
var outputMembers = map[string]string{"tool_search_output": "tools"}

// Add reads one item at where (with the timestamp ts, "" when none):
// a message, reasoning, a tool call or its output, or an item this
// package does not know, kept with the turn or in the log's metadata.
func (r *ItemReader) Add(item gjson.Result, where, ts string) error {
	if !item.IsObject() {
		return r.b.Errorf(where, "expected an item object, got %s", Kind(item))
	}
	typ := item.Get("type").String()
	if typ == "" && item.Get("role").Exists() {
		typ = "message"
	}
	switch {
	case typ == "message":
		role := normRole(item.Get("role").String())
		if role == "assistant" {
			m := r.turn(ts)
			if err := r.b.ReadParts(m, item.Get("content"), At(where, "content")); err != nil {
				return err
			}
			if extra := Rest(item, "role", "content", "type"); len(extra) > 0 {
				m.later = append(m.later, laterMeta{k: "items", list: true, o: Rest(item, "role", "content")})
			}
			return nil
		}
		r.Flush()
		m := &Msg{Role: role, TS: ts, Meta: Rest(item, "role", "content", "type")}
		if err := r.b.ReadParts(m, item.Get("content"), At(where, "content")); err != nil {
			return err
		}
		r.out = append(r.out, m)
	case typ == "reasoning":
		m := r.turn(ts)
		n := len(m.Reasoning)
		Each(item.Get("summary"), func(_, s gjson.Result) bool {
			if t := s.Get("text"); t.Type == gjson.String {
				m.Reasoning = append(m.Reasoning, t.Str)
			}
			return true
		})
		Each(item.Get("content"), func(_, s gjson.Result) bool {
			if t := s.Get("text"); t.Type == gjson.String {
				m.Reasoning = append(m.Reasoning, t.Str)
			}
			return true
		})
		if n == len(m.Reasoning) && Informative(item.Get("encrypted_content")) {
			// Only encrypted reasoning: the item's JSON text is the
			// reasoning.
			m.Reasoning = append(m.Reasoning, item.Raw)
			return nil
		}
		if extra := Rest(item, "summary", "content"); len(extra) > 0 {
			m.later = append(m.later, laterMeta{k: "items", list: true, o: extra})
		}
	case strings.HasSuffix(typ, "_output"):
		r.Flush()
		member := "output"
		if m, ok := outputMembers[typ]; ok {
			member = m
		}
		out := item.Get(member)
		res := &Result{ID: item.Get("call_id").String(), TS: ts, Meta: Rest(item, "call_id", member, "type")}
		switch {
		case out.Type == gjson.String:
			res.SetOutput(out)
		case out.IsArray():
			// Content items: an image among them (input_image, a data:
			// URL) makes the output a list of parts, as a message's.
			part := &Msg{}
			if err := r.b.ReadParts(part, out, At(where, "output")); err == nil && len(part.Parts) > 0 {
				res.Output, res.HasOut, res.Parts = part.Text, true, part.Parts
				res.Meta = Join(res.Meta, part.Meta)
			} else {
				res.Output, res.HasOut = OutputText(out), true
			}
		case out.Exists():
			res.Output, res.HasOut = OutputText(out), true
		}
		if typ != "function_call_output" {
			res.Meta.SetString("type", typ)
		}
		r.out = append(r.out, &Msg{Role: "tool", TS: ts, Results: []*Result{res}})
	default:
		spec, ok := itemCalls[typ]
		if !ok {
			// An item this package does not know: kept with the turn it
			// belongs to, or in the log's metadata, not made a turn.
			if m := r.cur; m != nil {
				m.later = append(m.later, laterMeta{k: "items", list: true, raw: Raw(item)})
			} else {
				r.b.AppendMeta("other_items", Raw(item))
			}
			return nil
		}
		c := &Call{ID: item.Get(spec.id).String(), Name: spec.tool, TS: ts}
		if c.Name == "" {
			// A namespaced tool (an MCP server's) is known to the
			// model by the namespace and name together, as Codex
			// flattens them: "mcp__calc" and "add" (0.16x and later;
			// before, the namespace "mcp__calc__") are "mcp__calc__add".
			ns := item.Get("namespace").String()
			if ns != "" && !strings.HasSuffix(ns, "__") {
				ns += "__"
			}
			c.Name = ns + item.Get("name").String()
		}
		mapped := []string{"type", "name", spec.id}
		if spec.args != "" {
			c.Args = Args(item.Get(spec.args))
			mapped = append(mapped, spec.args)
		}
		if spec.output != "" {
			if o := item.Get(spec.output); o.Exists() {
				text := OutputText(o)
				c.output = &text
				mapped = append(mapped, spec.output)
			}
			if e := item.Get("error"); Informative(e) {
				c.isError = true
				if e.Type == gjson.String {
					c.failure.Msg = e.Str
				} else {
					c.failure.Msg = e.Get("message").String()
				}
			}
		}
		c.Meta = Rest(item, mapped...)
		// A hosted web search runs on the provider's side: its results
		// reach the model there and are in no item.
		c.noResult = typ == "web_search_call" && spec.output == ""
		if typ != "function_call" {
			c.Meta.SetString("item_type", typ)
		}
		m := r.turn(ts)
		m.Calls = append(m.Calls, c)
	}
	return nil
}

// OutputText is a tool output as text: a string, the text parts of an
// array of content parts, or the JSON text of anything else.
func OutputText(o gjson.Result) string {
	if o.IsArray() {
		allText := true
		Each(o, func(_, p gjson.Result) bool {
			allText = p.Get("text").Type == gjson.String
			return allText
		})
		if allText {
			return flatText(o)
		}
	}
	return Str(o)
}

// ListOf parses a raw JSON array held in metadata back into a list.
func ListOf(v []byte) List {
	var l List
	Each(gjson.ParseBytes(v), func(_, e gjson.Result) bool {
		l = append(l, Raw(e))
		return true
	})
	return l
}

// secretHeaders are HTTP headers whose values are credentials; recordings
// keep them, packs do not.
var secretHeaders = map[string]bool{
	"authorization": true, "proxy-authorization": true, "cookie": true,
	"set-cookie": true, "x-api-key": true, "api-key": true,
}

// redactHeaders replaces credential header values in a recording's header
// objects with "[redacted]", so that the pack says they were there.
func redactHeaders(rec Obj) Obj {
	for i, m := range rec {
		h := gjson.ParseBytes(m.V)
		if !h.IsObject() || !strings.Contains(strings.ToLower(m.K), "headers") {
			continue
		}
		var out Obj
		Each(h, func(k, v gjson.Result) bool {
			if secretHeaders[strings.ToLower(k.String())] {
				out.Set(k.String(), Quote("[redacted]"))
			} else {
				out.Set(k.String(), Raw(v))
			}
			return true
		})
		rec[i].V = out.Raw()
	}
	return rec
}
