package claudecode

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/importer"
)

// What Claude Code (2.1.3xx) writes of the requests it sends, beside the
// conversation:
//
//   - "api-request": one per request, its id the requestRef of the
//     assistant records that answer it. Its params (model, max_tokens,
//     thinking, output_config, betas, …) are the llm_call step's
//     parameters, and the first request's, but the model, the log's
//     model.parameters; the rest (how to rebuild the messages sent: the
//     request it builds on, "base", how many of that request's messages it
//     keeps, "keep", and the hashes of the messages after them, "tail";
//     the shape's hash, cache control, the request's digest) is the step's
//     metadata.request. A request no turn answered is kept in the log's
//     metadata.requests.
//   - "api-request-blob": a message sent (the "# Environment" system
//     turn, the reminders before a prompt), content-addressed by hash:
//     the log's metadata.request_blobs, by hash.
//   - "api-request-shape": the system prompt blocks and the tools sent,
//     by shapeHash: the log's metadata.request_shapes. The main agent's
//     first shape gives the system prompt, its blocks read as the
//     Anthropic importer reads a request's "system" (ccSystem).
//   - the "prompt_snapshot" attachment: the system prompt (cliPrefix, then
//     the systemPrompt sections joined by a blank line, as the shape holds
//     it) and the tools, before each request. Its system prompt is the
//     log's when no shape says it (older 2.1.3xx), else kept in
//     metadata.prompt_snapshot.system_prompts when it says another; its
//     tools are the shape's, and kept there only when no shape holds
//     them; its other members (rendering switches) are
//     metadata.prompt_snapshot.
//   - "cost-state": the session's running cost, as Claude Code computes
//     it (totalCostUSD, per-model usage and costUSD): the last one is the
//     log's metadata.cost.
//   - "atis-latch": a latch value, kept in metadata.session.atis when it
//     holds one; "tools-used": the names of the tools a turn called,
//     which its tool calls say.

// ccRequests is what a Claude Code import gathers of the requests.
type ccRequests struct {
	requests map[string]importer.Obj // api-request by id, without its params
	params   map[string]json.RawMessage
	order    []string                 // the request ids, in the order read
	reqOf    map[*importer.Msg]string // the request a model turn answered (requestRef)
	blobs    importer.Obj
	shapes   importer.Obj
	system   *importer.Msg // the main agent's first system prompt (a shape's)
	snapSys  []ccSnapshot  // the main agent's prompt_snapshot system prompts
	// shapePrefix is the first of the system blocks of the shape, when
	// there are others: the prefix a snapshot does not always repeat.
	shapePrefix string
	snapshot    *distinct
	snapTools   json.RawMessage
	cost        json.RawMessage
}

func newCCRequests() ccRequests {
	return ccRequests{requests: map[string]importer.Obj{}, params: map[string]json.RawMessage{}, reqOf: map[*importer.Msg]string{}, snapshot: &distinct{}}
}

// request reads a record of the kinds above, if it is one (the line c
// scanned); false when it is not.
func (c *ccImport) request(b *importer.Builder, where string) (bool, error) {
	f := importer.Fields(c.other)
	ts := importer.Timestamp(c.tsv)
	typ := c.typ.String()
	main := b.LinePrefix == "" // not a subagent's transcript
	switch typ {
	case "api-request":
		id := f.Get("id").String()
		if id == "" {
			return false, nil
		}
		meta := f.Rest("params")
		if ts != "" {
			meta = importer.Join(importer.Obj{{K: "timestamp", V: importer.Quote(ts)}}, meta)
		}
		if _, ok := c.rq.requests[id]; !ok {
			c.rq.order = append(c.rq.order, id)
		}
		c.rq.requests[id] = meta
		if p := f.Get("params"); p.IsObject() {
			c.rq.params[id] = importer.Raw(p)
			if len(c.rq.order) == 1 {
				importer.Each(p, func(k, v gjson.Result) bool {
					if k.Str != "model" {
						b.Param(k.Str, importer.Raw(v))
					}
					return true
				})
			}
		}
	case "api-request-blob":
		h := f.Get("hash").String()
		if h == "" {
			return false, nil
		}
		c.rq.blobs.Set(h, importer.Raw(c.message)) // scan took the member out
	case "api-request-shape":
		h := f.Get("shapeHash").String()
		shape := f.Get("shape")
		if h == "" || !shape.IsObject() {
			return false, nil
		}
		c.rq.shapes.Set(h, importer.Raw(shape))
		if main && c.rq.system == nil {
			m, err := ccSystem(b, shape.Get("system"), importer.At(where, "shape.system"))
			if err != nil {
				return true, err
			}
			c.rq.system = m
			if blocks := shape.Get("system"); blocks.IsArray() && blocks.Get("#").Int() > 1 {
				c.rq.shapePrefix = blocks.Get("0.text").String()
			}
		}
	case "attachment":
		att := f.Get("attachment")
		if att.Get("type").String() != "prompt_snapshot" {
			return false, nil
		}
		if main {
			if sp := att.Get("systemPrompt"); sp.IsArray() {
				var sections []string
				importer.Each(sp, func(_, s gjson.Result) bool {
					sections = append(sections, s.String())
					return true
				})
				c.rq.snapSys = append(c.rq.snapSys, ccSnapshot{att.Get("cliPrefix").String(), strings.Join(sections, "\n\n"), where})
			}
			if t := att.Get("tools"); importer.Informative(t) && c.rq.snapTools == nil {
				c.rq.snapTools = importer.Raw(t)
			}
		}
		importer.Each(att, func(k, v gjson.Result) bool {
			switch k.Str {
			case "type", "systemPrompt", "tools":
			default:
				c.rq.snapshot.add(k.Str, v)
			}
			return true
		})
	case "cost-state":
		c.rq.cost = f.Rest().Raw()
	case "atis-latch":
		a := f.Get("atis")
		if !importer.Informative(a) || a.Type == gjson.String && a.Str == "" {
			b.Seen(ts)
			b.Skip(b.Reason("atis-latch empty"))
			return true, nil
		}
		c.session.add("atis", a)
	case "tools-used":
		b.Seen(ts)
		b.Skip(b.Reason("tools-used"))
		return true, nil
	default:
		return false, nil
	}
	b.Seen(ts)
	b.MapRecord()
	return true, nil
}

// A ccSnapshot is the system prompt a prompt_snapshot holds: the
// prefix (cliPrefix, which not every snapshot repeats) and the sections
// joined.
type ccSnapshot struct{ prefix, sections, where string }

// ccSystem reads a list of system prompt blocks as the Anthropic importer
// reads a request's "system": one rule for both records that hold it.
func ccSystem(b *importer.Builder, blocks gjson.Result, where string) (*importer.Msg, error) {
	m := &importer.Msg{Role: "system"}
	if err := b.ReadParts(m, blocks, where); err != nil {
		return nil, err
	}
	return m, nil
}

// answered notes the request the model turn m answers, from its line's
// requestRef.
func (c *ccImport) answered(m *importer.Msg) {
	if ref := importer.Fields(c.other).Get("requestRef").String(); ref != "" && c.rq.reqOf[m] == "" {
		c.rq.reqOf[m] = ref
	}
}

// done puts what was gathered in the log: each model turn's request, the
// system prompt and the log's metadata.
func (rq *ccRequests) done(b *importer.Builder, msgs []*importer.Msg) error {
	used := map[string]bool{}
	for _, m := range msgs {
		id := rq.reqOf[m]
		req, ok := rq.requests[id]
		if !ok {
			continue
		}
		used[id] = true
		m.Params = rq.params[id]
		m.Meta.Set("request", importer.Join(importer.Obj{{K: "id", V: importer.Quote(id)}}, req).Raw())
	}
	var unanswered importer.List
	for _, id := range rq.order {
		if !used[id] {
			r := importer.Join(importer.Obj{{K: "id", V: importer.Quote(id)}}, rq.requests[id])
			r.Set("params", rq.params[id])
			unanswered = append(unanswered, r.Raw())
		}
	}
	b.Meta.Set("requests", unanswered.Raw())
	prefix := rq.snapshot.get("cliPrefix").String()
	var snaps []*importer.Msg
	for _, s := range rq.snapSys {
		blocks := importer.List{}
		if p := cmp.Or(s.prefix, prefix, rq.shapePrefix); p != "" {
			blocks = append(blocks, importer.Quote(p))
		}
		blocks = append(blocks, importer.Quote(s.sections))
		m, err := ccSystem(b, gjson.ParseBytes(blocks.Raw()), importer.At(s.where, "attachment.systemPrompt"))
		if err != nil {
			return err
		}
		snaps = append(snaps, m)
	}
	sys := rq.system
	if sys == nil && len(snaps) > 0 {
		sys = snaps[0]
	}
	if sys != nil && sys.HasText {
		b.SystemPrompt(sys.Text, sys.Meta)
	}
	var other importer.List
	seen := map[string]bool{}
	if sys != nil {
		seen[sys.Text] = true
	}
	for _, m := range snaps {
		if !seen[m.Text] {
			seen[m.Text] = true
			other = append(other, importer.Quote(m.Text))
		}
	}
	snap := importer.ObjOf(rq.snapshot.raw())
	snap.Set("system_prompts", other.Raw())
	if len(rq.shapes) == 0 {
		snap.Set("tools", rq.snapTools)
	}
	b.Meta.Set("prompt_snapshot", snap.Raw())
	b.Meta.Set("request_shapes", rq.shapes.Raw())
	b.Meta.Set("request_blobs", rq.blobs.Raw())
	b.Meta.Set("cost", rq.cost)
	return nil
}
