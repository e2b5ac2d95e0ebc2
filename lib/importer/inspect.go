package importer

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Inspect AI eval logs: a .json log ({version, status, eval, plan,
// results, stats, samples}) or a .eval zip archive of header.json and
// samples/<id>_epoch_<n>.json. Each sample's messages are the conversation;
// its model and tool events add timestamps, per-call settings and tool
// timings, joined on message id and tool call id. Strings of the form
// attachment://<hash> are replaced by the sample's attachment.

// evalLimit bounds what the members of a .eval archive may inflate to,
// all together: a small archive can hold a huge amount of text.
var evalLimit int64 = 1 << 30

// evalRatio is how many times its own size an archive's members may
// inflate to, all together, beyond evalFloor: JSON logs deflate some 5
// to 30 times, and deflate can reach 1,000, so that an archive of 1 MiB
// would otherwise make 1 GiB of text to read before being refused.
var (
	evalRatio int64 = 100
	evalFloor int64 = 64 << 20
)

// evalBudget is what the members of an archive of size bytes may inflate
// to, all together.
func evalBudget(size int64) int64 {
	return min(evalLimit, max(evalFloor, size*evalRatio))
}

// sizeText writes n bytes in MiB when it is a whole number of them.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// zipMagic starts every zip archive.
var zipMagic = []byte("PK\x03\x04")

func importInspect(b *Builder, data []byte) error {
	if bytes.HasPrefix(data, zipMagic) || strings.HasSuffix(b.opts.Name, ".eval") {
		return b.inspectArchive(data)
	}
	doc, whole, err := b.WholeDoc(data)
	if err != nil {
		return err
	}
	if !whole || !doc.IsObject() {
		return b.Errorf("", "expected an Inspect log object")
	}
	requested := b.inspectHeader(doc, "")
	defer b.SetModel(requested)
	samples := doc.Get("samples")
	if samples.Exists() && !samples.IsArray() {
		return b.Errorf("samples", "expected an array, got %s", Kind(samples))
	}
	arr := Elems(samples)
	for i, s := range arr {
		if err := b.inspectSample(s, fmt.Sprintf("samples[%d]", i), len(arr) > 1); err != nil {
			return err
		}
	}
	if len(arr) == 0 {
		b.Warn("the log has no samples")
	}
	return nil
}

// inspectArchive reads a .eval archive.
func (b *Builder) inspectArchive(data []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return b.Errorf("", "reading the .eval archive: %v", err)
	}
	members := map[string]*zip.File{}
	var samples []string
	for _, f := range zr.File {
		members[f.Name] = f
		if strings.HasPrefix(f.Name, "samples/") && strings.HasSuffix(f.Name, ".json") {
			samples = append(samples, f.Name)
		}
	}
	sort.Slice(samples, func(i, j int) bool { return naturalLess(samples[i], samples[j]) })
	limit := evalBudget(int64(len(data)))
	budget := limit // bytes the members may still inflate to
	tooLarge := func(name string) error {
		return b.Errorf(name, "the archive's members inflate to more than %s, the most read from an archive of %s: refused", sizeText(limit), sizeText(int64(len(data))))
	}
	read := func(name string) (gjson.Result, error) {
		f := members[name]
		// The size the archive declares is checked before inflating; the
		// reader is bounded too, since the declaration may lie.
		if f.UncompressedSize64 > uint64(budget) {
			return gjson.Result{}, tooLarge(name)
		}
		rc, err := f.Open()
		if err != nil {
			return gjson.Result{}, b.Errorf(name, "reading the archive member: %v", err)
		}
		defer rc.Close()
		body, err := io.ReadAll(io.LimitReader(rc, budget+1))
		if err != nil {
			return gjson.Result{}, b.Errorf(name, "reading the archive member: %v", err)
		}
		if int64(len(body)) > budget {
			return gjson.Result{}, tooLarge(name)
		}
		budget -= int64(len(body))
		if !gjson.ValidBytes(body) {
			return gjson.Result{}, b.Errorf(name, "invalid JSON: %s", jsonError(body))
		}
		if !utf8.Valid(body) {
			return gjson.Result{}, b.Errorf(name, "invalid UTF-8")
		}
		if err := checkSurrogates(body); err != nil {
			return gjson.Result{}, b.Errorf(name, "%v", err)
		}
		return gjson.ParseBytes(body), nil
	}
	header := "header.json"
	if members[header] == nil {
		header = "_journal/start.json" // a log still being written
	}
	if members[header] == nil {
		return b.Errorf("", "the .eval archive has neither header.json nor _journal/start.json")
	}
	h, err := read(header)
	if err != nil {
		return err
	}
	requested := b.inspectHeader(h, header)
	defer b.SetModel(requested)
	if f := members["reductions.json"]; f != nil {
		r, err := read(f.Name)
		if err != nil {
			return err
		}
		b.Meta.Set("reductions", Raw(r))
	}
	for _, name := range samples {
		s, err := read(name)
		if err != nil {
			return err
		}
		if err := b.inspectSample(s, name, len(samples) > 1); err != nil {
			return err
		}
	}
	if len(samples) == 0 {
		b.Warn("the log has no samples")
	}
	return nil
}

// naturalLess orders names with their digit runs compared as numbers, so
// samples/2_epoch_1.json comes before samples/10_epoch_1.json.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// inspectHeader maps the eval-level fields. It returns the model the eval
// requested, which the model events' answering model takes precedence
// over.
func (b *Builder) inspectHeader(h gjson.Result, where string) string {
	ev := h.Get("eval")
	Each(ev.Get("model_generate_config"), func(k, v gjson.Result) bool {
		b.Param(k.String(), Raw(v))
		return true
	})
	Each(ev.Get("packages"), func(k, v gjson.Result) bool {
		b.Tool(k.String(), v.String())
		return true
	})
	b.Seen(Timestamp(ev.Get("created")))
	b.Seen(Timestamp(h.Get("stats.started_at")))
	b.Meta.Set("eval", Rest(ev, "model_generate_config", "packages").Raw())
	for _, k := range []string{"version", "status", "plan", "results", "stats", "error", "reductions"} {
		if v := h.Get(k); Informative(v) {
			b.Meta.Set(k, Raw(v))
		}
	}
	return ev.Get("model").String()
}

// inspectSample adds one sample's conversation.
func (b *Builder) inspectSample(s gjson.Result, where string, several bool) error {
	if !s.IsObject() {
		return b.Errorf(where, "expected a sample object, got %s", Kind(s))
	}
	b.newConversation()
	Each(s.Get("attachments"), func(k, v gjson.Result) bool {
		if b.attachments == nil {
			b.attachments = map[string]string{}
		}
		b.attachments[k.String()] = v.String()
		return true
	})
	// Index the model and tool events by what they join on. Older logs
	// have no message ids: their model events join the assistant message
	// they produced by its content, in order.
	models, unnamed, tools := b.inspectIndex(s.Get("events"))
	msgs, err := b.readMsgs(s.Get("messages"), inspectTable, At(where, "messages"))
	if err != nil {
		return err
	}
	start := len(b.Steps)
	last := ""
	// The model that answered the sample (its output's), for the turns
	// whose model event is not in the log.
	answered := s.Get("output.model").String()
	b.SetModel(answered)
	for _, m := range msgs {
		b.MapRecord()
		if m.Role == "assistant" {
			b.inspectAssistant(m, models, &unnamed, tools, answered)
			if m.HasText && strings.TrimSpace(m.Text) != "" {
				last = m.Text
			}
		}
		if m.Role == "tool" {
			for _, r := range m.Results {
				if e, ok := tools[r.ID]; ok && r.ID != "" {
					// A tool event whose call is not among the messages.
					b.MapRecord()
					delete(tools, r.ID)
					r.TS = Timestamp(e.Get("timestamp"))
					r.Meta.Set("event", Rest(e, "event", "type", "id", "function", "result", "view", "timestamp").Raw())
				}
			}
		}
		b.Add(m)
	}
	// Events that joined nothing are counted, not lost silently.
	for range len(models) + len(unnamed) {
		b.Skip(b.Reason("event/model unjoined"))
	}
	for range tools {
		b.Skip(b.Reason("event/tool unjoined"))
	}
	b.inspectSampleEnd(s, where, several, start, last)
	return nil
}

// inspectIndex indexes a sample's model events by their output message's
// id (unnamed: those whose message has no id) and its tool events by their
// call's id, counting the other events as skipped.
func (b *Builder) inspectIndex(events gjson.Result) (models map[string]gjson.Result, unnamed []gjson.Result, tools map[string]gjson.Result) {
	models = map[string]gjson.Result{}
	tools = map[string]gjson.Result{}
	Each(events, func(_, e gjson.Result) bool {
		switch e.Get("event").String() {
		case "model":
			// The model that answered, before the one requested.
			b.SetModel(e.Get("output.model").String())
			switch id := e.Get("output.choices.0.message.id").String(); {
			case id != "":
				models[id] = e
			case e.Get("output.choices.0.message").IsObject():
				unnamed = append(unnamed, e)
			default:
				b.Skip(b.Reason("event/model without message"))
			}
		case "tool":
			if id := e.Get("id").String(); id != "" {
				tools[id] = e
			} else {
				b.Skip(b.Reason("event/tool without id"))
			}
		default:
			et := e.Get("event").String()
			b.SkipKind("event/"+et, e, fmt.Sprintf("event %q (timeline detail)", et))
		}
		return true
	})
	return models, unnamed, tools
}

// inspectAssistant joins an assistant message to the model event that
// produced it and its calls to their tool events, taking them out of the
// index, and names the model that answered it.
func (b *Builder) inspectAssistant(m *Msg, models map[string]gjson.Result, unnamed *[]gjson.Result, tools map[string]gjson.Result, answered string) {
	id := gjson.ParseBytes(m.Meta.Get("id")).String()
	e, ok := models[id]
	if ok {
		delete(models, id)
	} else if id == "" {
		e, ok = b.producedBy(m, unnamed)
	}
	// Each turn names the model that answered it: its model
	// event's output.model, else the sample's; the message's own
	// model member, when it says otherwise, is kept beside it.
	model := answered
	if ok && e.Get("output.model").String() != "" {
		model = e.Get("output.model").String()
	}
	if own := gjson.ParseBytes(m.Meta.Get("model")).String(); model != "" && own != model {
		if own != "" {
			m.Meta.Set("message_model", m.Meta.Get("model"))
		}
		m.Meta.SetString("model", model)
	}
	if ok {
		b.MapRecord()
		m.TS = Timestamp(e.Get("timestamp"))
		var params Obj
		for _, k := range []string{"tools", "tool_choice", "config"} {
			if v := e.Get(k); Informative(v) {
				params.Set(k, Raw(v))
			}
		}
		m.Params = params.Raw()
		m.Meta.Set("usage", Raw(e.Get("output.usage")))
		m.Meta.Set("stop_reason", Raw(e.Get("output.choices.0.stop_reason")))
		m.Meta.Set("event", Rest(e, "event", "model", "input", "input_refs", "tools", "tool_choice", "config", "output", "timestamp").Raw())
	}
	for _, c := range m.Calls {
		e, ok := tools[c.ID]
		if !ok {
			continue
		}
		b.MapRecord()
		delete(tools, c.ID)
		c.TS = Timestamp(e.Get("timestamp"))
		c.Meta.Set("event", Rest(e, "event", "type", "id", "function", "arguments", "result", "view", "timestamp").Raw())
	}
}

// inspectSampleEnd keeps a sample's own members as an entry of the
// samples metadata, tags its steps with the sample when the log holds
// several, and adds its final answer as an output.
func (b *Builder) inspectSampleEnd(s gjson.Result, where string, several bool, start int, last string) {
	info := Rest(s, "messages", "events", "attachments", "message_pool", "input", "output")
	if out := s.Get("output.choices.0.message.content"); out.Exists() {
		m := &Msg{}
		if b.ReadParts(m, out, At(where, "output")) == nil && strings.TrimSpace(m.Text) != "" {
			last = m.Text
		}
	}
	info.Set("output", Rest(s.Get("output"), "choices.0.message", "completion").Raw())
	id, epoch := s.Get("id").String(), s.Get("epoch").String()
	n := len(b.metaList["samples"]) // the sample's position in the log
	if several {
		for _, st := range b.Steps[start:] {
			if id != "" {
				st.Meta.SetString("sample_id", id)
			} else {
				st.Meta.Set("sample_index", JSONInt(n))
			}
			st.Meta.Set("epoch", Raw(s.Get("epoch")))
		}
	}
	// One entry per sample, in order, even for a sample that holds nothing
	// but its messages.
	if len(info) == 0 {
		b.AppendMeta("samples", json.RawMessage("{}"))
	} else {
		b.AppendMeta("samples", info.Raw())
	}
	if strings.TrimSpace(last) != "" {
		name := FinalName
		if several {
			dir := safeName(id) + "_epoch_" + safeName(epoch)
			if id == "" {
				// A sample without an id is named by its position.
				dir = "sample_" + strconv.Itoa(n+1)
			}
			name = path.Join("samples", dir, FinalName)
		}
		b.Outputs = append(b.Outputs, Output{Name: name, Content: last})
	}
}

// producedBy finds, among the model events of an older log (whose messages
// have no ids), the first one whose output message is m: the same text
// and tool calls. It is taken out of events.
func (b *Builder) producedBy(m *Msg, events *[]gjson.Result) (gjson.Result, bool) {
	for i, e := range *events {
		out, err := b.readMsg(e.Get("output.choices.0.message"), inspectTable, "", "assistant")
		if err != nil || out.Text != m.Text || len(out.Calls) != len(m.Calls) {
			continue
		}
		same := true
		for k, c := range out.Calls {
			same = same && c.ID == m.Calls[k].ID && c.Name == m.Calls[k].Name
		}
		if same {
			*events = append((*events)[:i:i], (*events)[i+1:]...)
			return e, true
		}
	}
	return gjson.Result{}, false
}

// safeName makes a sample id usable as one path component.
func safeName(s string) string {
	if s == "" || s == "." || s == ".." {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, s)
}
