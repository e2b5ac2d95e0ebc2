package importer

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// LangSmith runs, as the SDKs send them ({"post": [runs], "patch":
// [updates]}) or as exported (an array or JSON Lines of runs). A run is
// created by one record and completed by later ones with the same id (or,
// without an id, the same dotted_order); they are merged, later members
// winning. Runs are ordered by dotted_order, which is the trace's
// depth-first order. llm runs are model turns, tool and retriever runs are
// tool calls; other runs (chains, prompts, parsers) only contribute the
// root's final output and are counted as skipped.

type lsRun struct {
	key    string
	where  string
	order  int
	fields Obj
}

func importLangSmith(b *Builder, data []byte) error {
	runs := map[string]*lsRun{}
	var order []*lsRun
	add := func(where string, rec gjson.Result) error {
		if !rec.IsObject() {
			return b.Errorf(where, "expected a run object, got %s", Kind(rec))
		}
		key := rec.Get("id").String()
		if key == "" {
			key = runIDFromDottedOrder(rec.Get("dotted_order").String())
		}
		if key == "" {
			return b.Errorf(where, "run has neither id nor dotted_order")
		}
		r := runs[key]
		if r == nil {
			r = &lsRun{key: key, where: where, order: len(order)}
			runs[key] = r
			order = append(order, r)
		} else {
			b.MapRecord() // an update merged into its run
		}
		Each(rec, func(k, v gjson.Result) bool {
			r.fields.Set(k.String(), Raw(v))
			return true
		})
		return nil
	}
	err := b.eachRecord(data, func(where string, rec gjson.Result) error {
		post, patch := rec.Get("post"), rec.Get("patch")
		if !post.Exists() && !patch.Exists() {
			return add(where, rec)
		}
		for _, part := range []struct {
			name string
			v    gjson.Result
		}{{"post", post}, {"patch", patch}} {
			if !part.v.Exists() {
				continue
			}
			if !part.v.IsArray() {
				return b.Errorf(At(where, part.name), "expected an array of runs, got %s", Kind(part.v))
			}
			for i, r := range Elems(part.v) {
				if err := add(At(where, fmt.Sprintf("%s[%d]", part.name, i)), r); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	parsed := make([]gjson.Result, len(order))
	for i, r := range order {
		parsed[i] = gjson.ParseBytes(r.fields.Raw())
	}
	idx := make([]int, len(order))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, c := parsed[idx[i]].Get("dotted_order").String(), parsed[idx[j]].Get("dotted_order").String()
		if a != c && a != "" && c != "" {
			return a < c
		}
		return idx[i] < idx[j]
	})
	for _, i := range idx {
		if err := b.langSmithRun(parsed[i], order[i].where); err != nil {
			return err
		}
	}
	return nil
}

// runIDFromDottedOrder returns the run id that ends a dotted_order
// ("20241013T070537170001Z<run id>", parents first, dot-separated).
func runIDFromDottedOrder(d string) string {
	if i := strings.LastIndexByte(d, '.'); i >= 0 {
		d = d[i+1:]
	}
	if i := strings.IndexByte(d, 'Z'); i >= 0 {
		return d[i+1:]
	}
	return ""
}

func (b *Builder) langSmithRun(run gjson.Result, where string) error {
	b.langSmithEnv(run.Get("extra.runtime"))
	ts := Timestamp(run.Get("start_time"))
	b.Seen(ts)
	mapped := []string{"inputs", "outputs", "run_type", "start_time", "child_runs"}
	switch rt := run.Get("run_type").String(); rt {
	case "llm":
		in, params, err := b.langSmithInputs(run.Get("inputs"), At(where, "inputs"))
		if err != nil {
			return err
		}
		out, err := b.langSmithOutputs(run.Get("outputs"), At(where, "outputs"))
		if err != nil {
			return err
		}
		md := run.Get("extra.metadata")
		b.SetModel(First(run, "outputs.model", "outputs.llm_output.model_name", "outputs.llm_output.model",
			"extra.metadata.ls_model_name", "inputs.model", "extra.invocation_params.model", "extra.invocation_params.model_name").String())
		b.samplingParams(run.Get("inputs"))
		b.samplingParams(run.Get("extra.invocation_params"))
		b.Param("temperature", Raw(md.Get("ls_temperature")))
		b.Param("max_tokens", Raw(md.Get("ls_max_tokens")))
		turn := firstTurn(out)
		if turn == nil {
			turn = &Msg{Role: "assistant"}
			out = append(out, turn)
		}
		turn.TS = ts
		turn.Params = params.Raw()
		turn.Meta = Join(Rest(run, mapped...), turn.Meta)
		// The model that answered this call, when the outputs name it.
		if m := First(run, "outputs.model", "outputs.llm_output.model_name", "outputs.llm_output.model"); m.Type == gjson.String && m.Str != "" {
			turn.Meta.SetDefault("model", Quote(m.Str))
		}
		if e := run.Get("error"); Informative(e) {
			turn.Failed = &Failure{Msg: e.String()}
		}
		b.exchange(in, out)
		b.MapRecord()
	case "tool", "retriever":
		name := run.Get("name").String()
		var out *string
		if o := run.Get("outputs"); Informative(o) {
			s := Str(o)
			if v := o.Get("output"); v.Exists() && len(o.Map()) == 1 {
				s = Str(v)
			}
			out = &s
		}
		var fail *Failure
		if e := run.Get("error"); Informative(e) {
			fail = &Failure{Msg: e.String()}
		}
		id := First(run, "extra.metadata.tool_call_id", "inputs.tool_call_id").String()
		b.toolRun(id, name, Raw(run.Get("inputs")), out, fail, ts, Rest(run, append(mapped, "name")...))
		b.MapRecord()
	default:
		if run.Get("parent_run_id").String() == "" && !run.Get("trace_id").Exists() || run.Get("trace_id").String() == run.Get("id").String() {
			if o := run.Get("outputs.output"); o.Type == gjson.String && strings.TrimSpace(o.Str) != "" {
				b.Outputs = []Output{{Name: FinalName, Content: o.Str}}
			}
		}
		if rt == "" {
			rt = "none"
		}
		b.SkipKind("run/"+rt, run, fmt.Sprintf("run_type %q (only llm, tool and retriever runs are steps)", rt))
	}
	return nil
}

func (b *Builder) langSmithEnv(rt gjson.Result) {
	if !rt.Exists() {
		return
	}
	b.Tool(rt.Get("sdk").String(), rt.Get("sdk_version").String())
	b.Tool("langchain", rt.Get("langchain_version").String())
	b.Tool("langchain-core", rt.Get("langchain_core_version").String())
	if r := strings.TrimSpace(rt.Get("runtime").String() + " " + rt.Get("runtime_version").String()); r != "" && b.env.Runtime == "" {
		b.env.Runtime = r
	}
	if p := rt.Get("platform").String(); p != "" && b.env.OS == "" {
		b.env.OS = p
	}
}

// langSmithInputs reads an llm run's inputs: OpenAI-shaped messages,
// LangChain serialised messages (possibly a batch: a list of lists), or
// plain prompts.
func (b *Builder) langSmithInputs(in gjson.Result, where string) ([]*Msg, Obj, error) {
	var msgs []*Msg
	m := in.Get("messages")
	if m.IsArray() && m.Get("0").IsArray() {
		m = m.Get("0") // a batch of one conversation
		where = At(where, "messages[0]")
	} else {
		where = At(where, "messages")
	}
	if m.Exists() {
		if !m.IsArray() {
			return nil, nil, b.Errorf(where, "expected an array of messages, got %s", Kind(m))
		}
		var err error
		i := 0
		Each(m, func(_, v gjson.Result) bool {
			var ms *Msg
			ms, err = b.lcMsg(v, fmt.Sprintf("%s[%d]", where, i))
			msgs = append(msgs, ms)
			i++
			return err == nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	Each(in.Get("prompts"), func(_, p gjson.Result) bool {
		msgs = append(msgs, &Msg{Role: "user", Text: p.String(), HasText: true})
		return true
	})
	if p := in.Get("prompt"); p.Type == gjson.String {
		msgs = append(msgs, &Msg{Role: "user", Text: p.Str, HasText: true})
	}
	return msgs, Rest(in, "messages", "prompts", "prompt"), nil
}

// lcMsg reads a message in any of the shapes LangSmith records: OpenAI's,
// LangChain's serialised constructor ({"lc": 1, "id": [..., "HumanMessage"],
// "kwargs": {...}}) or message_to_dict's ({"type": "human", "data": {...}}).
func (b *Builder) lcMsg(v gjson.Result, where string) (*Msg, error) {
	switch {
	case v.Get("lc").Exists() && v.Get("kwargs").IsObject():
		ids := Elems(v.Get("id"))
		role := ""
		if len(ids) > 0 {
			role = normRole(ids[len(ids)-1].String())
		}
		m, err := b.readMsg(v.Get("kwargs"), lcTable, At(where, "kwargs"), role)
		if err == nil && role != "" && m.Role != "tool" {
			m.Role = role
		}
		return m, err
	case v.Get("data").IsObject() && v.Get("type").Type == gjson.String:
		return b.readMsg(v.Get("data"), lcTable, At(where, "data"), normRole(v.Get("type").Str))
	case !v.Get("role").Exists() && v.Get("type").Type == gjson.String:
		return b.readMsg(v, lcTable, where, normRole(v.Get("type").Str))
	}
	return b.readMsg(v, chatTable, where, "")
}

// langSmithOutputs reads an llm run's outputs: an OpenAI chat completion,
// an Anthropic message, LangChain generations, or {"output": text}.
func (b *Builder) langSmithOutputs(out gjson.Result, where string) ([]*Msg, error) {
	switch {
	case !Informative(out):
		return nil, nil
	case out.Get("choices").Exists():
		return chatAPI.response(b, out, where, false)
	case out.Get("content").Exists() && out.Get("role").String() == "assistant":
		return anthropicAPI.response(b, out, where, false)
	case out.Get("generations").IsArray():
		g := out.Get("generations.0")
		if g.IsArray() {
			g = g.Get("0")
		}
		var m *Msg
		if gm := g.Get("message"); gm.IsObject() {
			var err error
			if m, err = b.lcMsg(gm, At(where, "generations[0][0].message")); err != nil {
				return nil, err
			}
			m.Role = "assistant"
		} else {
			m = &Msg{Role: "assistant"}
			if t := g.Get("text"); t.String() != "" {
				m.AddText(t.String())
			}
		}
		m.Meta = Join(Rest(out, "generations"), m.Meta)
		m.Meta.Set("generation", Rest(g, "message", "text").Raw())
		return []*Msg{m}, nil
	case out.Get("output").Exists():
		m := &Msg{Role: "assistant", Meta: Rest(out, "output")}
		m.AddText(Str(out.Get("output")))
		return []*Msg{m}, nil
	}
	m := &Msg{Role: "assistant", Meta: Obj{{"outputs", json.RawMessage(out.Raw)}}}
	return []*Msg{m}, nil
}
