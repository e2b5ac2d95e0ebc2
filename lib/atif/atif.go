// Package atif writes an execution log as an ATIF trajectory (Agent
// Trajectory Interchange Format, Harbor RFC 0001, ATIF-v1.7), the form
// evaluation tools (Harbor, Inspect Scout, Docent, NeMo Agent Toolkit)
// read.
//
// The log is read in its printed form (ctx-show --resolve, ctx-fork):
// content inline. Each model turn (an llm_call step) is an agent step
// holding the tool calls after it and, in its observation, their
// results; prompts are user or system steps, in their place in time;
// the steps of each subagent are an embedded trajectory of
// subagent_trajectories, named by its trajectory_id from the result of
// the step that started it. A log imported from ATIF (lib/importer,
// which keeps what the log has no field for under "atif" in metadata)
// is written back as it was: see Export for what cannot be.
package atif

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// Version is the ATIF version Export writes for a log that did not come
// from ATIF.
const Version = "ATIF-v1.7"

// Options tune Export.
type Options struct {
	// Pack is the pack the log is, recorded in the root extra of a
	// trajectory not imported from ATIF ("sha256:…").
	Pack string
}

// metricsKeys are the members of ATIF metrics.
var metricsKeys = []string{"prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd",
	"prompt_token_ids", "completion_token_ids", "logprobs", "extra"}

// imageTypes are the media types an ATIF ImageSource may have.
var imageTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

// A Media file is an image a trajectory names by a path relative to its
// own directory ("images/step_4_screenshot.png"), with its bytes: what
// must be written beside the document for the trajectory to be whole.
type Media struct {
	Path string
	Data []byte
}

// ExportMedia is Export for a trajectory written to a file: an image the
// trajectory the log was imported from named by a path (a clean relative
// one, under its directory) keeps that path, and is returned to be
// written there, beside the document. Every other image is embedded.
func ExportMedia(logJSON []byte, opts Options) ([]byte, []Media, []string, error) {
	return export(logJSON, opts, true)
}

// Export writes the execution log logJSON as an ATIF trajectory, in
// canonical JSON, every image in it embedded as a data: URL (a
// trajectory that leaves on its own names no file it does not carry).
// Warnings name what ATIF cannot hold (a document part, an image of
// another media type, inputs and outputs).
//
// A trajectory imported from ATIF comes back with every member it had,
// except: observation results are written in the order of their calls,
// those joined to no call after them; a tool call's arguments that are
// no object become {"value": …}; and step_id is renumbered from 1 in
// order, as ATIF requires (the same numbers, for a log not edited).
func Export(logJSON []byte, opts Options) ([]byte, []string, error) {
	out, _, warnings, err := export(logJSON, opts, false)
	return out, warnings, err
}

func export(logJSON []byte, opts Options, files bool) ([]byte, []Media, []string, error) {
	if !gjson.ValidBytes(logJSON) {
		return nil, nil, nil, fmt.Errorf("the execution log is not valid JSON")
	}
	l := gjson.ParseBytes(logJSON)
	e := &exporter{log: l, meta: l.Get("metadata")}
	if files {
		e.files = map[string][]byte{}
	}
	doc, err := e.root(opts)
	if err != nil {
		return nil, nil, e.warnings, err
	}
	out, err := canon.Marshal(doc)
	return out, e.media, e.warnings, err
}

type object = map[string]any

type exporter struct {
	log, meta gjson.Result
	steps     []gjson.Result
	kids      map[int64][]string // the subagents each step started, by its index
	warnings  []string
	// files, when not nil, are the images named by a path so far, by
	// path (ExportMedia); media lists them in order.
	files map[string][]byte
	media []Media
}

// imagePath returns where the trajectory names an image: the path it was
// named by when it came from a file (ExportMedia) and that path names no
// other bytes, else a data: URL.
func (e *exporter) imagePath(part gjson.Result, mt, recorded string) string {
	var data []byte
	if b64 := part.Get("content_base64"); b64.Exists() {
		data, _ = base64.StdEncoding.DecodeString(b64.String())
	} else {
		data = []byte(part.Get("content").String())
	}
	if e.files != nil && recorded != "" && manifest.CheckName(recorded) == nil {
		if have, ok := e.files[recorded]; !ok {
			e.files[recorded] = data
			e.media = append(e.media, Media{Path: recorded, Data: data})
			return recorded
		} else if bytes.Equal(have, data) {
			return recorded
		}
	}
	return "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(data)
}

func (e *exporter) warn(format string, a ...any) {
	w := fmt.Sprintf(format, a...)
	if !slices.Contains(e.warnings, w) {
		e.warnings = append(e.warnings, w)
	}
}

// members copies the members of a JSON object.
func members(r gjson.Result) object {
	if !r.IsObject() {
		return nil
	}
	o := object{}
	r.ForEach(func(k, v gjson.Result) bool {
		o[k.Str] = json.RawMessage(v.Raw)
		return true
	})
	return o
}

// A group is one ATIF agent step: a model turn (llm, absent for tool
// calls no recorded turn made) and the tool calls after it.
type group struct {
	llm   *gjson.Result
	tools []gjson.Result
	first int // the index of its first step
}

// item is a prompt step of a trajectory in the making (trajectory merges
// items with groups): a prompt, or a subagent's recorded step.
type item struct {
	prompt *gjson.Result // a prompt, or a recorded non-agent step
	pmeta  gjson.Result  // the prompt's metadata
	role   string
	raw    json.RawMessage // a subagent's recorded system or user step
	id     int64           // the step_id it had, 0 if none
	ts     string
}

func (e *exporter) root(opts Options) (object, error) {
	e.steps = e.log.Get("steps").Array()
	rec := e.meta.Get("atif")
	doc := members(rec)
	if doc == nil {
		doc = object{"schema_version": Version, "agent": object{"name": "unknown", "version": "unknown"}}
		extra := object{}
		if opts.Pack != "" {
			extra["pack"] = opts.Pack
		}
		for _, k := range []string{"inputs", "outputs"} {
			var names []string
			for _, f := range e.log.Get(k).Array() {
				names = append(names, f.Get("name").String())
			}
			if len(names) > 0 {
				extra[k] = names
				e.warn("ATIF has no place for a run's %s: only their names are in extra.ctx.%s", k, k)
			}
		}
		if len(extra) > 0 {
			doc["extra"] = object{"ctx": extra}
		}
	}
	model := e.log.Get("model.identifier").String()
	agent := members(rec.Get("agent"))
	if agent == nil {
		agent = object{"name": "unknown", "version": "unknown"}
		if model != "unknown" && model != "" {
			agent["model_name"] = model
		}
	} else if _, ok := agent["model_name"]; ok {
		agent["model_name"] = model
	}
	doc["agent"] = agent
	if p := e.log.Get("model.parameters"); p.Exists() && !rec.Exists() {
		agent["extra"] = object{"ctx_model_parameters": json.RawMessage(p.Raw)}
	}

	// Steps by agent: "" is the run's own.
	groups := map[string][]*group{}
	var agents []string
	open := map[string]*group{}
	for i, s := range e.steps {
		a := s.Get("agent").String()
		if _, ok := groups[a]; !ok && a != "" {
			agents = append(agents, a)
		}
		if s.Get("type").String() == "tool_call" {
			if g := open[a]; g != nil {
				g.tools = append(g.tools, s)
				continue
			}
			g := &group{tools: []gjson.Result{s}, first: i}
			groups[a] = append(groups[a], g)
			open[a] = g
			continue
		}
		st := s
		g := &group{llm: &st, first: i}
		groups[a] = append(groups[a], g)
		open[a] = g
	}

	var items []item
	if sp := e.log.Get("system_prompt"); sp.Exists() {
		pm := e.meta.Get("system_prompt")
		items = append(items, item{prompt: &sp, pmeta: pm, role: "system", id: pm.Get("atif.step_id").Int(), ts: pm.Get("timestamp").String()})
	}
	pmeta := map[int64]gjson.Result{}
	for _, m := range e.meta.Get("prompts").Array() {
		pmeta[m.Get("index").Int()] = m
	}
	for i, p := range e.log.Get("prompts").Array() {
		pm := pmeta[int64(i)]
		items = append(items, item{prompt: &p, pmeta: pm, role: p.Get("role").String(), id: pm.Get("atif.step_id").Int(), ts: pm.Get("timestamp").String()})
	}
	steps, err := e.trajectory(items, groups[""], "")
	if err != nil {
		return nil, err
	}
	doc["steps"] = steps

	// Subagents, each under the trajectory of the agent that started it.
	subRec := map[string]gjson.Result{}
	for _, r := range e.meta.Get("atif_subagents").Array() {
		subRec[r.Get("agent").String()] = r
	}
	// Recorded subagents in the order their parent listed them.
	slices.SortStableFunc(agents, func(a, b string) int {
		return int(subRec[a].Get("index").Int() - subRec[b].Get("index").Int())
	})
	trajs := map[string]object{"": doc}
	for _, a := range agents {
		rec := subRec[a]
		t := members(rec.Get("trajectory"))
		parent := e.parentAgent(groups[a])
		id := strings.TrimPrefix(a, parent+"/")
		if parent == "" {
			id = a
		}
		if t == nil {
			t = object{"schema_version": doc["schema_version"], "trajectory_id": id,
				"agent": object{"name": a, "version": agent["version"]}}
		}
		var its []item
		for _, s := range rec.Get("steps").Array() {
			its = append(its, item{raw: json.RawMessage(s.Raw), id: s.Get("step_id").Int()})
		}
		steps, err := e.trajectory(its, groups[a], a)
		if err != nil {
			return nil, err
		}
		t["steps"] = steps
		trajs[a] = t
	}
	// Embed children before their parents are embedded, deepest first.
	for i := len(agents) - 1; i >= 0; i-- {
		a := agents[i]
		p := trajs[e.parentAgent(groups[a])]
		if p == nil {
			p = doc
		}
		var list []any
		if l, ok := p["subagent_trajectories"].([]any); ok {
			list = l
		}
		p["subagent_trajectories"] = append([]any{trajs[a]}, list...)
	}
	return doc, nil
}

// parentAgent is the agent of the step that started a subagent's steps.
func (e *exporter) parentAgent(gs []*group) string {
	for _, g := range gs {
		s := g.tools
		if g.llm != nil {
			s = append([]gjson.Result{*g.llm}, s...)
		}
		for _, st := range s {
			if p := st.Get("parent_step"); p.Exists() {
				i := int(p.Int())
				if i >= 0 && i < len(e.steps) {
					return e.steps[i].Get("agent").String()
				}
			}
		}
	}
	return ""
}

// trajectory orders prompts and groups into ATIF steps: by their recorded
// step_id when both have one, else by time, prompts first.
func (e *exporter) trajectory(prompts []item, gs []*group, agent string) ([]any, error) {
	var out []any
	i, j := 0, 0
	for i < len(prompts) || j < len(gs) {
		takePrompt := j == len(gs)
		if !takePrompt && i < len(prompts) {
			p, g := prompts[i], gs[j]
			gid, gts := groupKey(g)
			switch {
			case p.id > 0 && gid > 0:
				takePrompt = p.id < gid
			case p.ts != "" && gts != "":
				takePrompt = p.ts <= gts
			default:
				takePrompt = true
			}
		}
		n := len(out) + 1
		if takePrompt {
			s, err := e.promptStep(prompts[i], n)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
			i++
			continue
		}
		s, err := e.agentStep(gs[j], n, agent)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		j++
	}
	return out, nil
}

func groupKey(g *group) (int64, string) {
	s := g.tools
	if g.llm != nil {
		s = append([]gjson.Result{*g.llm}, s...)
	}
	return s[0].Get("metadata.atif.step_id").Int(), s[0].Get("timestamp").String()
}

// promptStep writes a prompt as a system or user step.
func (e *exporter) promptStep(it item, n int) (object, error) {
	if it.raw != nil {
		var s object
		if err := json.Unmarshal(it.raw, &s); err != nil {
			return nil, err
		}
		s["step_id"] = n
		return s, nil
	}
	p := *it.prompt
	rec := it.pmeta.Get("atif")
	s := members(rec)
	if s == nil {
		s = object{}
	}
	s["step_id"] = n
	switch it.role {
	case "system", "user":
		s["source"] = it.role
	default:
		s["source"] = "user"
		e.extra(s)["ctx_role"] = it.role
	}
	if _, ok := s["timestamp"]; !ok {
		if ts := it.pmeta.Get("timestamp"); ts.Exists() {
			s["timestamp"] = ts.Str
		}
	}
	if p.Type == gjson.String { // a system prompt given as a string
		s["message"] = p.Str
	} else {
		msg, err := e.message(p, "content", rec, s)
		if err != nil {
			return nil, err
		}
		s["message"] = msg
	}
	if !rec.Exists() {
		if m := members(it.pmeta); len(m) > 0 {
			delete(m, "index")
			delete(m, "timestamp")
			if len(m) > 0 {
				e.extra(s)["ctx_metadata"] = m
			}
		}
	}
	delete(s, "pending_parts")
	delete(s, "part_paths")
	return s, nil
}

// extra returns the step's extra object, made if need be.
func (e *exporter) extra(s object) object {
	switch x := s["extra"].(type) {
	case object:
		return x
	case json.RawMessage:
		var o object
		if json.Unmarshal(x, &o) == nil && o != nil {
			s["extra"] = o
			return o
		}
	}
	o := object{}
	s["extra"] = o
	return o
}

// message returns the content of p (under key: content, output) as an
// ATIF message: a string, or ContentParts when it has parts or the
// trajectory recorded parts it could not hold.
func (e *exporter) message(p gjson.Result, key string, rec gjson.Result, s object) (any, error) {
	partsKey := "parts"
	if key == "output" {
		partsKey = "output_parts"
	}
	pending := rec.Get("pending_parts").Array()
	parts := p.Get(partsKey)
	if !parts.Exists() && len(pending) == 0 {
		text, ok := content(p, key)
		if !ok {
			e.warn("a %s is not UTF-8 text: ATIF cannot hold it; left out", key)
		}
		return text, nil
	}
	paths := map[int64]string{}
	for _, pp := range rec.Get("part_paths").Array() {
		paths[pp.Get("index").Int()] = pp.Get("path").String()
	}
	var out []any
	for i, part := range parts.Array() {
		typ := part.Get("type").String()
		mt := part.Get("media_type").String()
		switch {
		case typ == "text":
			text, ok := content(part, "content")
			if !ok {
				e.warn("a text part is not UTF-8 text: ATIF cannot hold it; left out")
				continue
			}
			out = append(out, object{"type": "text", "text": text})
		case typ == "image" && slices.Contains(imageTypes, mt):
			path := e.imagePath(part, mt, paths[int64(i)])
			out = append(out, object{"type": "image", "source": object{"media_type": mt, "path": path}})
		default:
			e.warn("ATIF holds text and image parts (of %s): a %s part of type %q is left out (extra.ctx_parts_left_out)", strings.Join(imageTypes, ", "), typ, mt)
			x := e.extra(s)
			left, _ := x["ctx_parts_left_out"].([]any)
			x["ctx_parts_left_out"] = append(left, object{"type": typ, "media_type": mt, "index": i})
		}
	}
	for _, pp := range pending {
		i := int(pp.Get("index").Int())
		part := json.RawMessage(pp.Get("part").Raw)
		if i > len(out) {
			i = len(out)
		}
		out = slices.Insert(out, i, any(part))
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}

// content returns the text of p's content under key, as text or base64
// of UTF-8; ok is false for bytes that are no UTF-8.
func content(p gjson.Result, key string) (string, bool) {
	if v := p.Get(key); v.Type == gjson.String {
		return v.Str, true
	}
	if v := p.Get(key); v.IsObject() { // a system prompt: {"content"} or {"content_base64"}
		return content(v, "content")
	}
	if v := p.Get(key + "_base64"); v.Exists() {
		b, err := base64.StdEncoding.DecodeString(v.Str)
		if err != nil || !utf8.Valid(b) {
			return "", false
		}
		return string(b), true
	}
	return "", true
}

// agentStep writes a group as an agent step.
func (e *exporter) agentStep(g *group, n int, agent string) (object, error) {
	var llm gjson.Result
	if g.llm != nil {
		llm = *g.llm
	}
	rec := llm.Get("metadata.atif")
	s := members(rec)
	if s == nil {
		s = object{}
	}
	s["step_id"] = n
	s["source"] = "agent"
	if _, ok := s["timestamp"]; !ok {
		ts := llm.Get("timestamp")
		if g.llm == nil && len(g.tools) > 0 {
			ts = g.tools[0].Get("timestamp")
		}
		if ts.Exists() {
			s["timestamp"] = ts.Str
		}
	}
	if g.llm == nil {
		s["message"] = ""
		s["llm_call_count"] = 0 // tool calls no recorded model turn made
	} else {
		params := members(llm.Get("parameters"))
		if v, ok := params["model"]; ok {
			s["model_name"] = v
			delete(params, "model")
		}
		if v, ok := params["reasoning_effort"]; ok {
			s["reasoning_effort"] = v
			delete(params, "reasoning_effort")
		}
		if len(params) > 0 {
			e.extra(s)["ctx_parameters"] = params
		}
		if _, ok := s["no_message"]; ok {
			delete(s, "no_message")
		} else {
			msg, err := e.message(llm, "output", rec, s)
			if err != nil {
				return nil, err
			}
			s["message"] = msg
		}
		if _, ok := s["reasoning_content"]; !ok && (llm.Get("reasoning").Exists() || llm.Get("reasoning_base64").Exists()) {
			text, ok := content(llm, "reasoning")
			if ok {
				s["reasoning_content"] = text
			} else {
				e.warn("a step's reasoning is not UTF-8 text: ATIF cannot hold it; left out")
			}
		}
		if m := e.metrics(llm); m != nil {
			if _, recorded := s["metrics"]; !recorded {
				s["metrics"] = m
			}
		}
		if err := llm.Get("error"); err.Exists() {
			e.extra(s)["ctx_error"] = json.RawMessage(err.Raw)
		}
		if !rec.Exists() {
			if m := members(llm.Get("metadata")); m != nil {
				delete(m, "usage")
				if len(m) > 0 {
					e.extra(s)["ctx_metadata"] = m
				}
			}
		}
		if a := llm.Get("agent"); a.Exists() && agent == "" {
			e.extra(s)["ctx_agent"] = a.Str
		}
	}
	delete(s, "pending_parts")
	delete(s, "part_paths")

	var calls, results []any
	for _, t := range g.tools {
		idx := t.Get("index").Int()
		id := t.Get("metadata.call_id").String()
		if id == "" {
			id = "call_" + strconv.FormatInt(idx, 10)
		}
		c := members(t.Get("metadata.atif"))
		if c == nil {
			c = object{}
		}
		c["tool_call_id"] = id
		c["function_name"] = t.Get("tool").String()
		switch p := t.Get("parameters"); {
		case t.Get("metadata.no_arguments").Exists():
		case !p.Exists():
			c["arguments"] = object{}
		case p.IsObject():
			c["arguments"] = json.RawMessage(p.Raw)
		default:
			c["arguments"] = object{"value": json.RawMessage(p.Raw)}
			e.warn("a tool call's parameters that are no object are written as {\"value\": …}")
		}
		if !t.Get("metadata.atif").Exists() {
			if m := members(t.Get("metadata")); m != nil {
				delete(m, "call_id")
				delete(m, "result")
				if len(m) > 0 {
					c["extra"] = object{"ctx_metadata": m}
				}
			}
		}
		calls = append(calls, c)
		r, err := e.result(t, id)
		if err != nil {
			return nil, err
		}
		if r != nil {
			results = append(results, r)
		}
	}
	if len(calls) > 0 {
		s["tool_calls"] = calls
	}
	for _, r := range rec.Get("observation_results").Array() {
		results = append(results, json.RawMessage(r.Raw))
	}
	delete(s, "observation_results")
	if len(results) > 0 || rec.Get("observation").Exists() {
		obs := members(rec.Get("observation"))
		if obs == nil {
			obs = object{}
		}
		if results == nil {
			results = []any{}
		}
		obs["results"] = results
		s["observation"] = obs
	}
	return s, nil
}

// result writes the result of tool step t, nil when it has none.
func (e *exporter) result(t gjson.Result, id string) (object, error) {
	rec := t.Get("metadata.result.atif")
	hasOut := t.Get("output").Exists() || t.Get("output_base64").Exists() || t.Get("output_parts").Exists()
	children := e.children(t.Get("index").Int())
	if !rec.Exists() && !hasOut && !t.Get("error").Exists() && len(children) == 0 {
		return nil, nil
	}
	r := members(rec)
	if r == nil {
		r = object{}
	}
	if _, placed := r["joined_by_place"]; placed {
		delete(r, "joined_by_place")
	} else {
		r["source_call_id"] = id
	}
	if hasOut {
		msg, err := e.message(t, "output", rec, r)
		if err != nil {
			return nil, err
		}
		r["content"] = msg
	}
	delete(r, "pending_parts")
	delete(r, "part_paths")
	if errv := t.Get("error"); errv.Exists() && !rec.Get("extra.is_error").Exists() {
		x := e.extra(r)
		x["is_error"] = true
		if m := errv.Get("message"); m.Exists() {
			x["error"] = m.Str
		}
		if c := errv.Get("exit_code"); c.Exists() {
			x["exit_code"] = json.RawMessage(c.Raw)
		}
	}
	if !rec.Get("subagent_trajectory_ref").Exists() && len(children) > 0 {
		var refs []any
		for _, c := range children {
			refs = append(refs, object{"trajectory_id": c})
		}
		r["subagent_trajectory_ref"] = refs
	}
	return r, nil
}

// children are the trajectory ids of the subagents step i started.
func (e *exporter) children(i int64) []string {
	if e.kids == nil {
		e.kids = map[int64][]string{}
		for _, s := range e.steps {
			p, a := s.Get("parent_step"), s.Get("agent").String()
			if !p.Exists() || a == "" || p.Int() < 0 || p.Int() >= int64(len(e.steps)) {
				continue
			}
			id := a
			if parent := e.steps[p.Int()].Get("agent").String(); parent != "" {
				id = strings.TrimPrefix(a, parent+"/")
			}
			if !slices.Contains(e.kids[p.Int()], id) {
				e.kids[p.Int()] = append(e.kids[p.Int()], id)
			}
		}
	}
	return e.kids[i]
}

// metrics writes a step's usage as ATIF metrics: input_tokens as
// prompt_tokens, output_tokens as completion_tokens, cache_read_tokens as
// cached_tokens, as the source recorded them; the other counters in
// metrics.extra; metadata.usage (cost_usd, token ids, …) as it is.
func (e *exporter) metrics(s gjson.Result) object {
	u := s.Get("usage")
	left := s.Get("metadata.usage")
	if !u.Exists() && !left.Exists() {
		return nil
	}
	m := object{}
	left.ForEach(func(k, v gjson.Result) bool {
		if slices.Contains(metricsKeys, k.Str) {
			m[k.Str] = json.RawMessage(v.Raw)
		} else {
			e.extra(m)[k.Str] = json.RawMessage(v.Raw)
		}
		return true
	})
	names := map[string]string{"input_tokens": "prompt_tokens", "output_tokens": "completion_tokens", "cache_read_tokens": "cached_tokens"}
	u.ForEach(func(k, v gjson.Result) bool {
		if n, ok := names[k.Str]; ok {
			m[n] = json.RawMessage(v.Raw)
			return true
		}
		x := e.extra(m)
		x[k.Str] = json.RawMessage(v.Raw)
		return true
	})
	return m
}
