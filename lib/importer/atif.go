package importer

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// ATIF trajectories (Agent Trajectory Interchange Format, Harbor RFC 0001,
// "schema_version": "ATIF-v1.0" … "ATIF-v1.7"): one JSON object whose
// steps are system, user and agent turns. An agent step is one model turn
// with its tool calls and, in its observation, their results joined by
// source_call_id. Embedded subagent trajectories (v1.7) are the steps of
// the agent their trajectory_id names.
//
// Every member the log has no field for is kept under "atif" in the
// metadata of the prompt or step it belongs to (step_id, extra,
// is_copied_context, llm_call_count, …), and the trajectory's own members
// (schema_version, session_id, agent, notes, final_metrics, …) in the
// log's metadata.atif, so that lib/atif can write the trajectory back.
// Empty objects are kept too: "extra": {} is a field a producer wrote.

// atifAgentKeys are the members of an agent step the log maps.
var atifAgentKeys = []string{"source", "message", "timestamp", "model_name", "reasoning_effort",
	"reasoning_content", "tool_calls", "observation", "metrics"}

func importATIF(b *Builder, data []byte) error {
	doc, whole, err := b.WholeDoc(data)
	if err != nil {
		return err
	}
	if !whole || !doc.IsObject() {
		return b.Errorf("", "an ATIF trajectory is one JSON object")
	}
	a := &atifImport{b: b}
	return a.trajectory(doc, "", "", nil, 0, 0)
}

// MaxSubagentDepth is how deep embedded subagent trajectories may nest:
// far more than agents spawn, and the bound keeps an import linear (each
// level's name, path and members hold the levels above it).
const MaxSubagentDepth = 64

type atifImport struct {
	b *Builder
}

// trajectory adds the steps of trajectory t. agent is "" for the root
// trajectory, else the name of the subagent it is (its trajectory_id,
// after its parent's: "a/b"); parent the step that started it.
// index is its place in its parent's subagent_trajectories; depth how
// many trajectories embed it.
func (a *atifImport) trajectory(t gjson.Result, where, agent string, parent *int, index, depth int) error {
	b := a.b
	if depth > MaxSubagentDepth {
		return b.Errorf(where, "subagent trajectories nested more than %d deep: not imported", MaxSubagentDepth)
	}
	sv := t.Get("schema_version")
	if sv.Type != gjson.String || !strings.HasPrefix(sv.Str, "ATIF-v1.") {
		return b.Errorf(At(where, "schema_version"), "expected an ATIF v1 version such as \"ATIF-v1.7\", got %s", kindOrValue(sv))
	}
	steps := t.Get("steps")
	if !steps.IsArray() {
		return b.Errorf(At(where, "steps"), "expected an array of steps, got %s", Kind(steps))
	}
	model := t.Get("agent.model_name").String()
	b.SetModel(model)
	meta := keepAll(t, "steps", "subagent_trajectories")
	subs := map[string]gjson.Result{}
	var subOrder []string
	subWhere := map[string]string{}
	subIndex := map[string]int{}
	for i, s := range Elems(t.Get("subagent_trajectories")) {
		id := s.Get("trajectory_id").String()
		w := At(where, fmt.Sprintf("subagent_trajectories[%d]", i))
		if id == "" {
			return b.Errorf(At(w, "trajectory_id"), "an embedded subagent trajectory needs a trajectory_id")
		}
		if _, dup := subs[id]; dup {
			return b.Errorf(At(w, "trajectory_id"), "trajectory_id %q is not unique", id)
		}
		subs[id], subWhere[id], subIndex[id] = s, w, i
		subOrder = append(subOrder, id)
	}
	var sub Obj // the record of this subagent trajectory
	var subSteps List
	if agent == "" {
		b.Meta.Set("atif", meta.Raw())
	}
	started := map[string]bool{}
	for i, st := range Elems(steps) {
		w := At(where, fmt.Sprintf("steps[%d]", i))
		if !st.IsObject() {
			return b.Errorf(w, "expected a step object, got %s", Kind(st))
		}
		source := st.Get("source").String()
		switch {
		case source == "agent":
			refs, err := a.agentStep(st, w, agent, parent, model)
			if err != nil {
				return err
			}
			for _, r := range refs {
				s, ok := subs[r.id]
				if !ok || started[r.id] {
					continue
				}
				started[r.id] = true
				p := r.step
				if err := a.trajectory(s, subWhere[r.id], subName(agent, r.id), &p, subIndex[r.id], depth+1); err != nil {
					return err
				}
			}
		case source != "system" && source != "user":
			return b.Errorf(At(w, "source"), "expected \"system\", \"user\" or \"agent\", got %s", kindOrValue(st.Get("source")))
		case agent != "":
			// A subagent's own prompts are no prompts of the run: they
			// stay with its trajectory's record.
			b.MapRecord()
			subSteps = append(subSteps, Raw(st))
		default:
			if err := a.prompt(st, w, source); err != nil {
				return err
			}
		}
	}
	if agent != "" {
		sub.SetString("agent", agent)
		sub.Set("index", JSONInt(index))
		sub.Set("trajectory", meta.Raw())
		sub.Set("steps", subSteps.Raw())
		b.AppendMeta("atif_subagents", sub.Raw())
	}
	for _, id := range subOrder {
		if started[id] {
			continue
		}
		b.Warn("embedded subagent trajectory %q is referenced by no observation: its steps are after its parent's, without a parent step", id)
		if err := a.trajectory(subs[id], subWhere[id], subName(agent, id), nil, subIndex[id], depth+1); err != nil {
			return err
		}
	}
	return nil
}

func subName(parent, id string) string {
	if parent == "" {
		return id
	}
	return parent + "/" + id
}

// kindOrValue describes a value for an error: a string is quoted.
func kindOrValue(r gjson.Result) string {
	if r.Type == gjson.String {
		return strconv.Quote(r.Str)
	}
	return Kind(r)
}

// keepAll returns every member of o but those in skip, empty ones too.
func keepAll(o gjson.Result, skip ...string) Obj {
	var out Obj
	Each(o, func(k, v gjson.Result) bool {
		for _, s := range skip {
			if k.Str == s {
				return true
			}
		}
		out = append(out, Member{k.Str, Raw(v)})
		return true
	})
	return out
}

// stepTime returns a step's time as RFC 3339 in UTC, and the members of
// meta to keep it as written when that differs.
func (a *atifImport) stepTime(st gjson.Result, w string, meta *Obj) string {
	v := st.Get("timestamp")
	if !v.Exists() || v.Type == gjson.Null {
		if v.Exists() {
			meta.Set("timestamp", Raw(v))
		}
		return ""
	}
	ts := Timestamp(v)
	if ts == "" {
		a.b.Warn("%s: timestamp %s is not ISO 8601; kept in metadata", At(w, "timestamp"), kindOrValue(v))
	}
	if ts != v.Str || v.Type != gjson.String {
		meta.Set("timestamp", Raw(v))
	}
	return ts
}

// prompt adds a system or user step of the root trajectory.
func (a *atifImport) prompt(st gjson.Result, w, role string) error {
	b := a.b
	b.MapRecord()
	meta := keepAll(st, "source", "message", "timestamp")
	ts := a.stepTime(st, w, &meta)
	c, err := a.content(st.Get("message"), At(w, "message"))
	if err != nil {
		return err
	}
	c.keep(&meta)
	var m Obj
	m.Set("atif", meta.Raw())
	if role == "system" && !b.hasSystem && c.parts == nil && c.pending == nil {
		b.Seen(ts)
		if ts != "" {
			m = Join(Obj{{"timestamp", Quote(ts)}}, m)
		}
		b.system, b.hasSystem = c.text, true
		b.Meta.Set("system_prompt", m.Raw())
		return nil
	}
	if c.parts != nil {
		b.promptParts(role, c.parts, m, ts)
	} else {
		b.Prompt(role, c.text, m, ts)
	}
	return nil
}

// atifRef is a subagent trajectory an observation names, and the step
// that started it.
type atifRef struct {
	id   string
	step int
}

// agentStep adds an agent step: an llm_call step, then a tool_call step
// per tool call, each with the result its observation holds.
func (a *atifImport) agentStep(st gjson.Result, w, agent string, parent *int, defModel string) ([]atifRef, error) {
	b := a.b
	b.MapRecord()
	meta := keepAll(st, atifAgentKeys...)
	ts := a.stepTime(st, w, &meta)
	s := &Step{Type: LLMCall, Timestamp: ts, Agent: agent, ParentStep: parent}
	var params Obj
	if v := st.Get("model_name"); v.Exists() {
		params.Set("model", Raw(v))
		b.SetModel(v.String())
	}
	if v := st.Get("reasoning_effort"); v.Exists() {
		params.Set("reasoning_effort", Raw(v))
	}
	s.Parameters = params.Raw()
	if msg := st.Get("message"); msg.Exists() {
		c, err := a.content(msg, At(w, "message"))
		if err != nil {
			return nil, err
		}
		switch {
		case c.parts != nil:
			s.OutputParts = c.parts
		default:
			text := c.text
			s.Output = &text
			if strings.TrimSpace(text) != "" && agent == "" {
				b.Last = text
			}
		}
		c.keep(&meta)
	} else {
		meta.Set("no_message", JSONTrue)
	}
	if r := st.Get("reasoning_content"); r.Exists() {
		if r.Type != gjson.String {
			meta.Set("reasoning_content", Raw(r))
		} else {
			text := r.Str
			s.Reasoning = &text
		}
	}
	if m := st.Get("metrics"); m.Exists() {
		var left Obj
		s.Usage, left = atifUsage(m)
		s.Meta.Set("usage", left.Raw())
		if s.Usage == nil && left == nil {
			meta.Set("metrics", Raw(m)) // {} or not an object
		}
	}
	b.AddStep(s)
	// Tool calls, joined to their results within the step (ATIF requires
	// a result's source_call_id to name a call of its own step: ids need
	// not be unique across steps or trajectories).
	calls := map[string]*Step{}
	var order []*Step
	for i, tc := range Elems(st.Get("tool_calls")) {
		cw := At(w, fmt.Sprintf("tool_calls[%d]", i))
		if !tc.IsObject() {
			return nil, b.Errorf(cw, "expected a tool call object, got %s", Kind(tc))
		}
		id := tc.Get("tool_call_id").String()
		var cm Obj
		if extra := keepAll(tc, "tool_call_id", "function_name", "arguments"); extra != nil {
			cm.Set("atif", extra.Raw())
		}
		argv := tc.Get("arguments")
		var params json.RawMessage
		if argv.Exists() {
			params = Raw(argv)
		} else {
			cm = Join(cm, Obj{{"no_arguments", JSONTrue}})
		}
		c := b.Call(&Call{ID: id, Name: tc.Get("function_name").String(), Args: params, Meta: cm}, ts)
		c.Agent, c.ParentStep = agent, parent
		order = append(order, c)
		if id != "" {
			calls[id] = c
		}
	}
	if t := st.Get("tool_calls"); t.Exists() && !t.IsArray() {
		return nil, b.Errorf(At(w, "tool_calls"), "expected an array, got %s", Kind(t))
	}
	var refs []atifRef
	var loose List
	obs := st.Get("observation")
	if obs.Exists() && !obs.IsObject() {
		return nil, b.Errorf(At(w, "observation"), "expected an object, got %s", Kind(obs))
	}
	if o := keepAll(obs, "results"); o != nil {
		meta.Set("observation", o.Raw())
	}
	for i, r := range Elems(obs.Get("results")) {
		rw := At(w, fmt.Sprintf("observation.results[%d]", i))
		if !r.IsObject() {
			return nil, b.Errorf(rw, "expected a result object, got %s", Kind(r))
		}
		id := r.Get("source_call_id").String()
		c := calls[id]
		switch {
		case id != "" && c == nil:
			b.Warn("%s: source_call_id %q names no tool call of its step; kept in the step's metadata", rw, id)
		case id == "":
			// Producers leave source_call_id out of the results of their
			// calls (Harbor's own computer-use agents): such a result is
			// the next call's of its step that has none yet.
			for _, o := range order {
				if !o.Resolved {
					c = o
					break
				}
			}
		}
		if c == nil || c.Resolved {
			// A result of no call (an action without tool calling), or a
			// second result for one call: kept as it is.
			loose = append(loose, Raw(r))
			for _, ref := range Elems(r.Get("subagent_trajectory_ref")) {
				if id := ref.Get("trajectory_id").String(); id != "" {
					refs = append(refs, atifRef{id, s.Index})
				}
			}
			continue
		}
		if err := a.result(c, r, rw, id == ""); err != nil {
			return nil, err
		}
		for _, ref := range Elems(r.Get("subagent_trajectory_ref")) {
			if id := ref.Get("trajectory_id").String(); id != "" {
				refs = append(refs, atifRef{id, c.Index})
			} else if p := ref.Get("trajectory_path").String(); p != "" {
				b.Warn("%s: the subagent trajectory %q is another file; it is not read", rw, p)
			}
		}
	}
	if loose != nil {
		meta.Set("observation_results", loose.Raw())
	}
	var am Obj
	am.Set("atif", meta.Raw())
	s.Meta = Join(am, s.Meta)
	return refs, nil
}

// result sets the output of call step c from observation result r.
// joined says it was joined by its place, having no source_call_id.
func (a *atifImport) result(c *Step, r gjson.Result, w string, joined bool) error {
	c.Resolved = true
	rm := keepAll(r, "source_call_id", "content")
	if joined {
		rm.Set("source_call_id", Raw(r.Get("source_call_id"))) // null, if given
		rm.Set("joined_by_place", JSONTrue)
	}
	if v := r.Get("content"); v.Exists() && v.Type != gjson.Null {
		cont, err := a.content(v, At(w, "content"))
		if err != nil {
			return err
		}
		if cont.parts != nil {
			c.OutputParts = cont.parts
		} else {
			out := cont.text
			c.Output = &out
		}
		cont.keep(&rm)
	} else if v.Exists() {
		rm.Set("content", Raw(v))
	}
	// No ATIF field says a call failed; producers write it in extra.
	if extra := r.Get("extra"); extra.Get("is_error").Type == gjson.True {
		f := Failure{}
		if e := extra.Get("error"); e.Type == gjson.String {
			f.Msg = e.Str
		}
		if e := extra.Get("exit_code"); e.Type == gjson.Number && IsDigits(strings.TrimPrefix(e.Raw, "-")) {
			f.ExitCode = Raw(e)
		}
		c.Fail(f)
	}
	var res Obj
	res.Set("atif", rm.Raw())
	c.Meta.Set("result", res.Raw())
	return nil
}

// atifUsage maps ATIF metrics to the step's usage: prompt_tokens (all
// input tokens, cached ones included), completion_tokens and
// cached_tokens, as recorded. The other members (cost_usd, token ids,
// logprobs, extra) are returned to stay in metadata.
func atifUsage(m gjson.Result) (*manifest.Usage, Obj) {
	u := &manifest.Usage{}
	var left Obj
	found := false
	Each(m, func(k, v gjson.Result) bool {
		var dst **int64
		switch k.Str {
		case "prompt_tokens":
			dst = &u.InputTokens
		case "completion_tokens":
			dst = &u.OutputTokens
		case "cached_tokens":
			dst = &u.CacheReadTokens
		}
		if dst != nil && v.Type == gjson.Number && IsDigits(v.Raw) {
			if n, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
				*dst, found = &n, true
				return true
			}
		}
		left = append(left, Member{k.Str, Raw(v)})
		return true
	})
	if !found {
		u = nil
	}
	return u, left
}

// atifContent is a message or result content: text, or parts when it is
// a list of ContentParts. pending are the parts whose media is not in the
// trajectory (an image at a URL, or a file that cannot be read), by index.
type atifContent struct {
	text    string
	parts   []execlog.Part
	pending List
	paths   List // the file each part read from a file was, by index
}

// keep records in meta what the log's content cannot say.
func (c atifContent) keep(meta *Obj) {
	meta.Set("pending_parts", c.pending.Raw())
	meta.Set("part_paths", c.paths.Raw())
}

func (a *atifImport) content(v gjson.Result, w string) (atifContent, error) {
	var c atifContent
	switch {
	case v.Type == gjson.String:
		c.text = v.Str
		return c, nil
	case !v.IsArray():
		return c, a.b.Errorf(w, "expected a string or an array of content parts, got %s", Kind(v))
	}
	c.parts = []execlog.Part{}
	for i, p := range Elems(v) {
		pw := fmt.Sprintf("%s[%d]", w, i)
		typ := p.Get("type").String()
		switch typ {
		case "text":
			t := p.Get("text")
			if t.Type != gjson.String {
				return c, a.b.Errorf(At(pw, "text"), "expected a string, got %s", Kind(t))
			}
			c.parts = append(c.parts, execlog.Part{Type: manifest.PartText, Content: execlog.Text(t.Str)})
			if len(keepAll(p, "type", "text")) == 0 {
				continue
			}
		case "image", "audio":
			if part, file, ok := a.media(p, typ, pw); ok {
				if file != "" {
					c.paths = append(c.paths, Obj{{"index", JSONInt(len(c.parts))}, {"path", Quote(file)}}.Raw())
				}
				c.parts = append(c.parts, part)
				continue
			}
		}
		c.pending = append(c.pending, Obj{{"index", JSONInt(i)}, {"part", Raw(p)}}.Raw())
	}
	if len(c.parts) == 0 {
		c.parts = nil
	}
	return c, nil
}

// media reads an image or audio part whose source is a base64 data: URL
// or a file beside the trajectory (Options.Dir); file is the file's path.
// A part with members the log cannot carry (audio's duration_sec) is
// left in metadata whole.
func (a *atifImport) media(p gjson.Result, typ, w string) (part execlog.Part, file string, ok bool) {
	src := p.Get("source")
	mt, where := src.Get("media_type"), src.Get("path")
	if mt.Type != gjson.String || where.Type != gjson.String ||
		len(keepAll(p, "type", "source")) > 0 || len(keepAll(src, "media_type", "path")) > 0 {
		return part, "", false
	}
	if dmt, data, isURL := DataURL(where.Str); isURL {
		if _, err := base64.StdEncoding.DecodeString(data); err != nil || dmt != mt.Str {
			a.b.Warn("%s: the data: URL is not base64 of the part's media type; the part is kept in metadata", w)
			return part, "", false
		}
		return execlog.Part{Type: typ, MediaType: mt.Str, Content: execlog.Base64(data)}, "", true
	}
	data, err := a.readFile(where.Str)
	if err != nil {
		a.b.Warn("%s: %s %q is not in the trajectory (%v); the part is kept in metadata", w, typ, where.Str, err)
		return part, "", false
	}
	return execlog.Part{Type: typ, MediaType: mt.Str, Content: execlog.Bytes(data)}, where.Str, true
}

// readFile reads a file named relative to Options.Dir, never outside it
// (symlinks resolved) and only a regular file of a bounded size.
func (a *atifImport) readFile(name string) ([]byte, error) {
	if a.b.opts.Dir == "" {
		return nil, fmt.Errorf("no directory to read it from")
	}
	if name == "" || path.IsAbs(name) || strings.Contains(name, "://") || strings.ContainsRune(name, '\\') ||
		!CleanRelative(path.Clean(name)) {
		return nil, fmt.Errorf("not a relative file path under the trajectory's directory")
	}
	return found.ReadFile(filepath.Join(a.b.opts.Dir, filepath.FromSlash(path.Clean(name))),
		found.Rule{What: "the image the trajectory names", Max: MaxTranscript, Within: a.b.opts.Dir})
}
