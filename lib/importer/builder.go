package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/internal/halves"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// What the builder accumulates. finish turns it into an execlog.Log, the
// one definition of the log: these types only hold what an import is
// still assembling (the raw input literal of an output, joining state).

type prompt struct {
	Role    string
	Content string
	Parts   []execlog.Part // instead of Content, when the message holds more than text
}

type Step struct {
	Index         int
	Type          string
	Tool          string
	Parameters    json.RawMessage
	Output        *string
	OutputParts   []execlog.Part // instead of Output, when it holds more than text
	Reasoning     *string
	Error         *manifest.StepError
	Usage         *manifest.Usage
	Agent         string
	ParentStep    *int
	Deterministic bool
	Timestamp     string

	outLit   string // the output as a JSON string literal, instead of Output
	Meta     Obj    // becomes the step's metadata
	extra    List   // results beyond the first for the same call
	Resolved bool   // a result has been joined
}

type Output struct {
	Name    string
	Content string
	Notes   string
}

type environment struct {
	OS           string
	Runtime      string
	ToolVersions map[string]string
}

func (s *Step) hasOutput() bool { return s.Output != nil || s.outLit != "" || s.OutputParts != nil }

// fail records that the step failed: with a message and an exit code when
// the source gives them.
func (s *Step) Fail(f Failure) {
	s.Error = &manifest.StepError{Message: f.Msg}
	if n, err := strconv.ParseInt(string(f.ExitCode), 10, 64); err == nil {
		s.Error.ExitCode = &n
	}
}

// A failure is what a source says about a failed call.
type Failure struct {
	Msg      string
	ExitCode json.RawMessage // an integer
}

// text returns the output.
func (s *Step) text() string {
	if s.outLit != "" {
		return gjson.Parse(s.outLit).Str
	}
	if s.Output != nil {
		return *s.Output
	}
	return ""
}

// Step types.
const (
	ToolCall = "tool_call"
	LLMCall  = "llm_call"
)

// finalName is the output an importer records the agent's last answer as.
const FinalName = "final.md"

// readOnlyTools are deterministic by default: reading the same workspace
// gives the same output.
var readOnlyTools = []string{
	"Glob", "Grep", "LS", "NotebookRead", "Read",
	"find_file", "glob", "grep", "list_dir", "list_directory", "list_files",
	"ls", "read_file", "read_many_files", "search_files", "view_file",
}

// A msg is one conversation message, whatever its source format.
type Msg struct {
	Role      string // system, user, assistant or tool
	Text      string
	HasText   bool
	Reasoning []string
	Calls     []*Call
	Results   []*Result
	TS        string
	Params    json.RawMessage // request parameters, for a model turn
	Parts     []execlog.Part  // the content as parts, when it holds more than text
	Failed    *Failure        // a model call that failed
	Meta      Obj
	key       string // identity for history deduplication; computed lazily
	// later are metadata members of a model turn made of the input's
	// members (Responses items, Codex token counts), kept as those
	// members until the turn is done (ItemReader.Done), so that until
	// then they are places in the input, which a checkpoint saves as
	// such rather than copies of them.
	later []laterMeta
	// taken is the usage takeUsages took from a model turn's metadata,
	// for turn; nil when it did not.
	taken *takenUsage
}

// takenUsage is a model turn's usage and the metadata left, as turn takes
// them from meta (the turn's metadata they were taken from).
type takenUsage struct {
	meta, left Obj
	usage      *manifest.Usage
}

// laterMeta is a metadata member to make: k set to the object o (or to
// raw, a value of the input), or, with list, o or raw added to the list
// k.
type laterMeta struct {
	k    string
	list bool
	o    Obj
	raw  json.RawMessage
}

// TakeUsages takes the usage of each model turn of msgs from its metadata
// before the turns are added, as turn would take it: a long session's in
// two halves at once, for it has a usage object per turn.
func TakeUsages(msgs []*Msg) {
	halves.Do(len(msgs), func(from, to int) {
		for _, m := range msgs[from:to] {
			if m.Role == "assistant" {
				t := &takenUsage{meta: m.Meta}
				t.usage, t.left = takeUsage(Join(m.Meta))
				m.taken = t
			}
		}
	})
}

// sameObj reports whether a and b are the same members in the same memory.
func sameObj(a, b Obj) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// SetLater sets m's metadata member k to o once the model turn is done
// (ItemReader.Done), after the members set before it.
func (m *Msg) SetLater(k string, o Obj) {
	m.later = append(m.later, laterMeta{k: k, o: o})
}

// AppendLater adds o to m's metadata list k once the model turn is done
// (ItemReader.Done).
func (m *Msg) AppendLater(k string, o Obj) {
	m.later = append(m.later, laterMeta{k: k, list: true, o: o})
}

// HasLater reports whether m has a later member k (SetLater, AppendLater).
func (m *Msg) HasLater(k string) bool {
	return slices.ContainsFunc(m.later, func(l laterMeta) bool { return l.k == k })
}

// doneLater makes m's later members its metadata, in order.
func (m *Msg) doneLater() {
	if len(m.later) == 0 {
		return
	}
	// A turn has few lists (one, "items", as a rule): a slice, not a map.
	type listed struct {
		k     string
		items []laterMeta
	}
	var lists []listed
	for _, l := range m.later {
		if !l.list {
			v := l.raw
			if v == nil {
				v = l.o.Raw()
			}
			m.Meta.Set(l.k, v)
			continue
		}
		i := slices.IndexFunc(lists, func(x listed) bool { return x.k == l.k })
		if i < 0 {
			i = len(lists)
			lists = append(lists, listed{k: l.k})
		}
		lists[i].items = append(lists[i].items, l)
	}
	for _, l := range lists {
		m.Meta.Set(l.k, appendList(m.Meta.Get(l.k), l.items))
	}
	m.later = nil
}

// appendList returns the JSON array of the elements of the array have
// (if any), then of the later members' values, written once. An empty
// element is null, as list.raw writes it.
func appendList(have json.RawMessage, items []laterMeta) json.RawMessage {
	old := ListOf(have)
	n := 2
	for _, v := range old {
		n += len(v) + 5
	}
	for _, l := range items {
		n += len(l.raw) + 5
		for _, m := range l.o {
			n += len(m.K) + len(m.V) + 4
		}
	}
	b := append(make([]byte, 0, n), '[')
	for _, v := range old {
		if len(v) == 0 {
			v = jsonNull
		}
		b = append(append(b, v...), ',')
	}
	for _, l := range items {
		switch {
		case l.raw == nil && len(l.o) > 0:
			b = l.o.appendJSON(b)
		case len(l.raw) > 0:
			b = append(b, l.raw...)
		default:
			b = append(b, jsonNull...)
		}
		b = append(b, ',')
	}
	b[len(b)-1] = ']' // items is never empty: the last comma
	return b
}

// A call is a tool call a model turn makes.
type Call struct {
	ID, Name string
	Args     json.RawMessage
	TS       string
	Meta     Obj
	output   *string // set when the call carries its own result
	noResult bool    // a call whose result no log of its kind holds (a hosted web search)
	isError  bool
	failure  Failure
	Step     *Step // the step it became
}

// A result is a tool's answer to a call.
type Result struct {
	ID, Name string
	Output   string // see text
	lit      string // the output as the input's JSON string literal
	HasOut   bool
	Parts    []execlog.Part // the output as parts, when it holds more than text
	IsError  bool
	Failure  Failure
	TS       string
	Meta     Obj
}

// setOutput sets the output from a JSON value. A string is kept as its
// literal, copied to the log as is and decoded only when compared: tool
// outputs are most of a transcript's bytes.
func (r *Result) SetOutput(v gjson.Result) {
	r.HasOut = true
	if v.Type == gjson.String {
		r.lit, r.Output = v.Raw, ""
		return
	}
	r.Output = Str(v)
}

// Literal returns the output as the input's JSON string literal, as
// SetOutput keeps it; "" once it is decoded (Text), or when the output
// was no string.
func (r *Result) Literal() string { return r.lit }

// SetText sets the output to the text s.
func (r *Result) SetText(s string) {
	r.Output, r.lit, r.HasOut = s, "", true
}

// text returns the output.
func (r *Result) Text() string {
	if r.lit != "" {
		r.Output, r.lit = gjson.Parse(r.lit).Str, ""
	}
	return r.Output
}

// addText adds a text part, on a new line unless a line break already
// separates it from the text before.
func (m *Msg) AddText(s string) {
	switch {
	case !m.HasText:
		m.Text, m.HasText = s, true
	case m.Text == "" || strings.HasSuffix(m.Text, "\n") || strings.HasPrefix(s, "\n"):
		m.Text += s
	default:
		m.Text += "\n" + s
	}
}

// identity is what two copies of a message share when a request repeats
// the conversation so far: role, text, the calls' tools and arguments and
// the results' text. Call ids are left out: clients give their own ids to
// calls a provider sent without one ("id": ""), so the copies of a call
// may differ in nothing else.
func (m *Msg) identity() string {
	if m.key == "" {
		var sb strings.Builder
		sb.WriteString(m.Role)
		sb.WriteByte(0)
		sb.WriteString(m.Text)
		for _, c := range m.Calls {
			sb.WriteString("\x00c")
			sb.WriteString(c.Name)
			sb.WriteByte(0)
			if a, err := canon.Canonicalize(c.Args); err == nil {
				sb.Write(a)
			} else {
				sb.Write(c.Args)
			}
		}
		for _, r := range m.Results {
			sb.WriteString("\x00r")
			sb.WriteString(r.Text())
		}
		m.key = sb.String()
	}
	return m.key
}

// Builder accumulates the execution log.
type Builder struct {
	f      *Format // never saved in a checkpoint (it holds funcs): the import's own
	format string  // f.Name
	opts   Options
	// LinePrefix names the file whose lines are being read, when an
	// import reads more than one ("agent-x.jsonl: ").
	LinePrefix string
	det        map[string]bool

	model       string
	AgentModel  string // the model an agent span names, if no call does
	modelParams Obj
	system      string
	hasSystem   bool
	Prompts     []prompt
	promptMeta  List
	Steps       []*Step
	Calls       map[string]*Step
	open        map[string][]*Step // calls that may still get a result, by tool name
	noID        []*Step            // calls without an id that may still get a result
	early       []*Result          // results whose call has not come yet (joinEarly)
	flushing    bool               // the end of the input: early results are unmatched
	Outputs     []Output
	Last        string // last non-empty assistant text
	earliest    time.Time
	created     string
	env         environment
	Meta        Obj
	metaLists   []string        // names of the list members of meta, in order
	metaList    map[string]List // built by appendMeta
	unmatched   List
	history     []*Msg   // the conversation so far
	Roots       []string // working directories to make path parameters relative to
	attachments map[string]string
	Workspace   *Workspace // files the session read and wrote, for a format that reads them

	resumed         int                // lines a checkpoint covered (resume.go)
	memo            *objectMemo        // the objects of the transcript's literals (resume.go)
	pending         *pendingCheckpoint // the checkpoint to write once the import succeeds
	Records, Mapped int
	skipped         map[string]int
	lost            map[string]map[string]int // kind -> what it held -> records skipped holding work (lose)
	warnings        []string
}

func newBuilder(f Format, opts Options) *Builder {
	b := &Builder{
		f:       &f,
		format:  f.Name,
		opts:    opts,
		det:     map[string]bool{},
		Calls:   map[string]*Step{},
		open:    map[string][]*Step{},
		skipped: map[string]int{},
	}
	for _, t := range readOnlyTools {
		b.det[t] = true
	}
	for _, t := range opts.Deterministic {
		b.det[t] = true
	}
	return b
}

// Format returns the format being imported.
func (b *Builder) Format() *Format { return b.f }

// Options returns the import's options.
func (b *Builder) Options() Options { return b.opts }

func (b *Builder) Errorf(where, format string, a ...any) error {
	return &Error{Format: b.format, Where: where, Msg: fmt.Sprintf(format, a...)}
}

// skip counts a record that has no place in the log.
func (b *Builder) Skip(reason string) {
	b.Records++
	b.skipped[reason]++
}

// mapRecord counts a record that went into the log.
func (b *Builder) MapRecord() {
	b.Records++
	b.Mapped++
}

// appendMeta appends v to the list member k of the log's metadata.
func (b *Builder) AppendMeta(k string, v json.RawMessage) {
	if b.metaList == nil {
		b.metaList = map[string]List{}
	}
	if _, ok := b.metaList[k]; !ok {
		b.metaLists = append(b.metaLists, k)
	}
	b.metaList[k] = append(b.metaList[k], v)
}

func (b *Builder) Warn(format string, a ...any) {
	b.warnings = append(b.warnings, fmt.Sprintf(format, a...))
}

// setModel records the run's model: the first one seen wins.
func (b *Builder) SetModel(id string) {
	if b.model == "" && id != "" {
		b.model = id
	}
}

// Param records a model parameter unless it is already set or carries
// nothing.
func (b *Builder) Param(k string, v json.RawMessage) {
	if len(v) == 0 || !Informative(gjson.ParseBytes(v)) {
		return
	}
	b.modelParams.SetDefault(k, v)
}

func (b *Builder) Tool(name, version string) {
	if name == "" || version == "" {
		return
	}
	if b.env.ToolVersions == nil {
		b.env.ToolVersions = map[string]string{}
	}
	if _, ok := b.env.ToolVersions[name]; !ok {
		b.env.ToolVersions[name] = version
	}
}

// root records a working directory whose absolute paths become relative.
func (b *Builder) Root(dir string) {
	dir = strings.TrimRight(dir, `/\`)
	if strings.Count(dir, "/")+strings.Count(dir, `\`) == 0 || len(dir) < 2 {
		return // "/" or a relative directory: nothing to strip safely
	}
	for _, r := range b.Roots {
		if _, ok := pathUnder(dir, r); ok {
			return
		}
	}
	b.Roots = append(b.Roots, dir)
}

// seen notes a timestamp for the run's start time.
func (b *Builder) Seen(ts string) {
	if ts == "" {
		return
	}
	// A session's timestamps share their form and mostly come in order:
	// one in UTC as long as the earliest that sorts after it is no
	// earlier (RFC 3339 in UTC sorts as it reads), without parsing it.
	if c := b.created; c != "" && len(ts) == len(c) && ts[len(ts)-1] == 'Z' && c[len(c)-1] == 'Z' && ts >= c {
		return
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return
	}
	if b.created == "" || t.Before(b.earliest) {
		b.earliest, b.created = t, ts
	}
}

func (b *Builder) AddStep(s *Step) *Step {
	s.Index = len(b.Steps)
	b.Steps = append(b.Steps, s)
	b.Seen(s.Timestamp)
	return s
}

// systemPrompt sets the system prompt; a later, different system message
// becomes a prompt with role system.
func (b *Builder) SystemPrompt(text string, meta Obj) {
	switch {
	case !b.hasSystem:
		b.system, b.hasSystem = text, true
		if len(meta) > 0 {
			b.Meta.Set("system_prompt", meta.Raw())
		}
	case text != b.system:
		b.Prompt("system", text, meta, "")
	}
}

func (b *Builder) Prompt(role, text string, meta Obj, ts string) {
	b.Seen(ts)
	if ts != "" {
		meta = Join(Obj{{"timestamp", Quote(ts)}}, meta)
	}
	if len(meta) > 0 {
		meta = Join(Obj{{"index", JSONInt(len(b.Prompts))}}, meta)
		b.promptMeta = append(b.promptMeta, meta.Raw())
	}
	b.Prompts = append(b.Prompts, prompt{Role: role, Content: text})
}

// promptParts adds a prompt that holds more than text.
func (b *Builder) promptParts(role string, parts []execlog.Part, meta Obj, ts string) {
	b.Prompt(role, "", meta, ts)
	b.Prompts[len(b.Prompts)-1].Parts = parts
}

// add appends one message to the log.
func (b *Builder) Add(m *Msg) {
	switch m.Role {
	case "system", "developer":
		if m.HasText {
			b.SystemPrompt(m.Text, m.Meta)
		}
	case "assistant":
		b.turn(m)
	default: // user, tool
		switch {
		case m.HasText || len(m.Results) == 0 && len(m.Meta) > 0:
			role := m.Role
			if role == "tool" || role == "" {
				role = "user"
			}
			if len(m.Parts) > 0 {
				b.promptParts(role, m.Parts, m.Meta, m.TS)
			} else {
				b.Prompt(role, m.Text, m.Meta, m.TS)
			}
		case len(m.Meta) > 0:
			for _, r := range m.Results {
				r.Meta = Join(r.Meta, m.Meta)
			}
		}
		for _, r := range m.Results {
			if r.TS == "" {
				r.TS = m.TS
			}
			b.Result(r)
		}
	}
}

// exchange adds one request/response round trip. The request repeats the
// conversation so far; messages already in the log are not added twice.
func (b *Builder) exchange(req, resp []*Msg) {
	k := 0
	for k < len(req) && k < len(b.history) && req[k].identity() == b.history[k].identity() {
		b.sameCalls(b.history[k], req[k])
		k++
	}
	for _, m := range req[k:] {
		b.Add(m)
	}
	for _, m := range resp {
		b.Add(m)
	}
	// The request's copies of the messages already added stand for them
	// from now on: their calls are the same steps.
	b.history = append(b.history[:0], b.history[:k]...)
	b.history = append(b.history, req[k:]...)
	b.history = append(b.history, resp...)
}

// sameCalls notes that the calls of cp, a later copy of m, are those of m,
// already in the log: an id cp gives a call that had none (or another)
// joins its step.
func (b *Builder) sameCalls(m, cp *Msg) {
	for i, c := range cp.Calls {
		if i >= len(m.Calls) || m.Calls[i].Step == nil {
			return
		}
		s := m.Calls[i].Step
		c.Step = s
		if c.ID == "" || c.ID == m.Calls[i].ID {
			continue
		}
		b.Calls[c.ID] = s
		switch have := s.Meta.Get("call_id"); {
		case have == nil:
			s.Meta.SetString("call_id", c.ID)
		case string(have) != string(Quote(c.ID)):
			s.Meta.SetDefault("renamed_call_id", Quote(c.ID))
		}
	}
}

// turn adds a model turn: an llm_call step, then one tool_call step per
// tool call it makes.
func (b *Builder) turn(m *Msg) {
	s := &Step{Type: LLMCall, Timestamp: m.TS, Parameters: m.Params}
	if m.HasText {
		text := m.Text
		s.Output = &text
		if strings.TrimSpace(text) != "" {
			b.Last = text
		}
	}
	if len(m.Reasoning) > 0 {
		r := strings.Join(m.Reasoning, "\n")
		s.Reasoning = &r
	}
	if t := m.taken; t != nil && sameObj(t.meta, m.Meta) {
		s.Usage, s.Meta = t.usage, t.left
	} else {
		s.Usage, s.Meta = takeUsage(Join(s.Meta, m.Meta))
	}
	if m.Failed != nil {
		s.Fail(*m.Failed)
	}
	b.AddStep(s)
	for _, c := range m.Calls {
		b.Call(c, m.TS)
	}
	// Results a model's own message holds for calls made earlier.
	for _, r := range m.Results {
		if r.TS == "" {
			r.TS = m.TS
		}
		b.Result(r)
	}
}

func (b *Builder) Call(c *Call, ts string) *Step {
	if c.TS == "" {
		c.TS = ts
	}
	name := c.Name
	if name == "" {
		name = "unknown"
	}
	s := &Step{Type: ToolCall, Tool: name, Parameters: c.Args, Deterministic: b.det[name], Timestamp: c.TS}
	c.Step = s
	if c.ID != "" {
		s.Meta.SetString("call_id", c.ID)
	}
	s.Meta = Join(s.Meta, c.Meta)
	if c.output != nil {
		s.Output = c.output
		s.Resolved = true
	}
	if c.noResult {
		s.Resolved = true // nothing to wait for: no result is ever written
	}
	if c.isError {
		s.Fail(c.failure) // with or without an output
	}
	b.AddStep(s)
	if c.output == nil && !c.noResult {
		if c.ID != "" {
			b.Calls[c.ID] = s // a reused id means the latest call
		} else {
			b.noID = append(b.noID, s)
		}
		b.open[name] = append(b.open[name], s)
		if c.ID != "" {
			b.joinEarly(c.ID)
		}
	}
	return s
}

// joinEarly gives the call id the results that came before it.
func (b *Builder) joinEarly(id string) {
	kept := b.early[:0]
	var mine []*Result
	for _, r := range b.early {
		if r.ID == id {
			mine = append(mine, r)
		} else {
			kept = append(kept, r)
		}
	}
	b.early = kept
	for _, r := range mine {
		b.Result(r)
	}
}

// flushEarly handles the results whose call never came, in order: kept
// in metadata.unmatched_tool_results, with a warning.
func (b *Builder) flushEarly() {
	b.flushing = true
	for _, r := range b.early {
		b.Result(r)
	}
	b.early = nil
}

// oldestOpen returns the oldest call of tool name still without a result.
func (b *Builder) oldestOpen(name string) *Step {
	q := b.open[name]
	for len(q) > 0 && q[0].Resolved {
		q = q[1:]
	}
	b.open[name] = q
	if len(q) == 0 {
		return nil
	}
	return q[0]
}

// joinByID finds the call a result with an id no call has answers: the
// oldest call still without a result that has no id of its own (a
// provider sent it with "id": "", or it was listed where ids are not
// kept), of the result's tool if it names one. The call takes the id.
func (b *Builder) joinByID(id, name string) *Step {
	for i, s := range b.noID {
		if s.Resolved || s.Meta.Get("call_id") != nil || name != "" && s.Tool != name {
			continue
		}
		b.noID = append(b.noID[:i:i], b.noID[i+1:]...)
		s.Meta.SetString("call_id", id)
		b.Calls[id] = s
		return s
	}
	return nil
}

// newConversation starts an independent conversation (an Inspect sample):
// call ids and history do not carry over.
func (b *Builder) newConversation() {
	b.flushEarly()
	b.flushing = false
	b.Calls = map[string]*Step{}
	b.open = map[string][]*Step{}
	b.noID = nil
	b.history = nil
}

// result joins a tool result to its call by id (or, for calls without ids,
// to the oldest open call of the same tool). A result whose call is not in
// the log becomes a step of its own when it names its tool.
func (b *Builder) Result(r *Result) {
	b.Seen(r.TS)
	var s *Step
	if r.ID != "" {
		s = b.Calls[r.ID]
		if s == nil {
			s = b.joinByID(r.ID, r.Name)
		}
	} else {
		s = b.oldestOpen(r.Name)
	}
	if s != nil && s.Resolved && s.hasOutput() {
		if r.HasOut && r.Text() == s.text() {
			return // the same result again (a later request repeating it)
		}
		extra := Obj{}
		extra.SetString("output", r.Text())
		extra = Join(extra, r.Meta)
		s.extra = append(s.extra, extra.Raw())
		return
	}
	if s == nil && r.ID != "" && r.Name == "" && !b.flushing {
		// Its call may come later in the file (Claude Code 2.1 writes
		// some results a line before their call): joined when it
		// comes, or kept as unmatched at the end.
		b.early = append(b.early, r)
		return
	}
	if s == nil {
		if r.Name == "" {
			u := Obj{}
			u.SetString("call_id", r.ID)
			if r.HasOut {
				u.SetString("output", r.Text())
			}
			u = Join(u, r.Meta)
			b.unmatched = append(b.unmatched, u.Raw())
			b.Warn("a tool result has no matching tool call (kept in metadata.unmatched_tool_results)")
			return
		}
		s = b.Call(&Call{ID: r.ID, Name: r.Name, TS: r.TS}, "")
		s.Meta.Set("unmatched_result", JSONTrue)
	}
	s.Resolved = true
	if len(r.Parts) > 0 && !s.hasOutput() {
		s.OutputParts = r.Parts
	} else if r.HasOut && !s.hasOutput() {
		if r.lit != "" {
			s.outLit = r.lit
		} else {
			out := r.Output
			s.Output = &out
		}
	}
	if r.IsError {
		s.Fail(r.Failure)
	}
	if r.TS != "" && r.TS != s.Timestamp {
		s.Meta.SetString("result_timestamp", r.TS)
	}
	if len(r.Meta) > 0 {
		if prev := s.Meta.Get("result"); prev != nil {
			s.Meta.Set("result", Join(ObjOf(prev), r.Meta).Raw())
		} else {
			s.Meta.Set("result", r.Meta.Raw())
		}
	}
}

// ObjOf parses a raw JSON object back into an obj.
func ObjOf(v json.RawMessage) Obj {
	var o Obj
	Each(gjson.ParseBytes(v), func(k, v gjson.Result) bool {
		o.Set(k.String(), Raw(v))
		return true
	})
	return o
}

// toolRun adds a tool execution recorded on its own (an OTel execute_tool
// span, a LangSmith tool run). It completes the call a model turn made,
// matched by id or, for calls without ids, by tool name; without such a
// call it is a step of its own.
func (b *Builder) toolRun(id, name string, params json.RawMessage, out *string, fail *Failure, ts string, meta Obj) {
	isError := fail != nil
	if fail == nil {
		fail = &Failure{}
	}
	b.Seen(ts)
	var joined *Step
	if id != "" {
		joined = b.Calls[id]
		if joined == nil {
			joined = b.joinByID(id, name)
		}
	} else {
		joined = b.oldestOpen(name)
	}
	if joined != nil && !joined.Resolved {
		r := &Result{ID: id, Name: name, TS: ts, Meta: meta, IsError: isError, Failure: *fail}
		if out != nil {
			r.Output, r.HasOut = *out, true
		}
		switch {
		case joined.Parameters == nil:
			joined.Parameters = params
		case len(params) > 0 && !SameJSON(joined.Parameters, params):
			// The tool saw its input differently from the call (LangChain
			// passes a string): keep both.
			r.Meta = Join(r.Meta, Obj{{"parameters", params}})
		}
		b.Result(r)
		return
	}
	b.Call(&Call{ID: id, Name: name, Args: params, TS: ts, Meta: meta, output: out, isError: isError, failure: *fail}, "")
}

func (b *Builder) report() Report {
	r := Report{Format: b.format, Records: b.Records, Mapped: b.Mapped, Resumed: b.resumed}
	for reason, n := range b.skipped {
		r.Skipped += n
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s: %d", reason, n))
	}
	sort.Strings(r.Reasons)
	seen := map[string]bool{}
	for _, w := range append(b.warnings, b.lostWarnings()...) {
		if !seen[w] {
			seen[w] = true
			r.Warnings = append(r.Warnings, w)
		}
	}
	sort.Strings(r.Warnings)
	return r
}

// log assembles the execution log.
func (b *Builder) log() *execlog.Log {
	b.flushEarly()
	open := 0
	for _, s := range b.Steps {
		if s.Type == ToolCall && !s.Resolved {
			open++
		}
	}
	if open > 0 {
		b.Warn("%d tool call(s) have no result", open)
	}
	l := &execlog.Log{
		Created: b.created,
		Model:   manifest.Model{Identifier: b.model, Parameters: b.portable(b.modelParams.Raw())},
		Steps:   make([]execlog.Step, len(b.Steps)),
	}
	if l.Model.Identifier == "" {
		l.Model.Identifier = b.AgentModel
	}
	if l.Model.Identifier == "" {
		l.Model.Identifier = "unknown"
		b.Warn("the input does not name the model; identifier set to \"unknown\"")
	}
	if b.hasSystem {
		l.SystemPrompt = b.text(b.system)
	}
	for _, p := range b.Prompts {
		pr := execlog.Prompt{Role: p.Role, Parts: p.Parts}
		if p.Parts == nil {
			pr.Content = b.text(p.Content)
		}
		l.Prompts = append(l.Prompts, pr)
	}
	// Each step on its own (a session's are most of the work): two
	// halves at once where there are two CPUs.
	halves.Do(len(b.Steps), func(from, to int) {
		for i := from; i < to; i++ {
			l.Steps[i] = b.logStep(b.Steps[i])
		}
	})
	outputs := b.Outputs
	// An agent session's outputs are the files it wrote: its last answer
	// is the output of its last model call, and stays only that. For a
	// recorded exchange with a model, the answer is the run's result.
	if len(outputs) == 0 && strings.TrimSpace(b.Last) != "" && !b.f.Session {
		outputs = []Output{{Name: FinalName, Content: b.Last}}
	}
	for _, o := range outputs {
		l.Outputs = append(l.Outputs, execlog.Output{Name: o.Name, Content: b.text(o.Content), Notes: o.Notes})
	}
	if b.env.OS != "" || b.env.Runtime != "" || len(b.env.ToolVersions) > 0 {
		l.Environment = manifest.Environment{OS: b.env.OS, Runtime: b.env.Runtime, ToolVersions: b.env.ToolVersions}
	}
	meta := b.Meta
	for _, k := range b.metaLists {
		meta.Set(k, b.metaList[k].Raw())
	}
	meta.Set("prompts", b.promptMeta.Raw())
	meta.Set("unmatched_tool_results", b.unmatched.Raw())
	l.Metadata = b.portable(meta.Raw())
	return l
}

// logStep returns the log's step of s. It reads b, and writes only s and
// b's memo (which locks), so that two steps are made at once.
func (b *Builder) logStep(s *Step) execlog.Step {
	s.Meta.Set("extra_results", s.extra.Raw())
	st := execlog.Step{
		Index: s.Index, Type: s.Type, Tool: s.Tool, Agent: s.Agent, ParentStep: s.ParentStep,
		Parameters:  b.portable(b.relativeParams(s.Parameters)),
		OutputParts: s.OutputParts, Error: s.Error, Usage: s.Usage,
		Deterministic: s.Deterministic, Timestamp: s.Timestamp,
		Metadata: b.portable(s.Meta.Raw()),
	}
	switch {
	case s.outLit != "":
		st.Output = b.quoted(s.outLit)
	case s.Output != nil:
		st.Output = b.text(*s.Output)
	}
	if s.Reasoning != nil {
		st.Reasoning = b.text(*s.Reasoning)
	}
	return st
}

// SameJSON reports whether two JSON values are equal, ignoring layout and
// member order.
func SameJSON(a, b json.RawMessage) bool {
	ca, err1 := canon.Canonicalize(a)
	cb, err2 := canon.Canonicalize(b)
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}
