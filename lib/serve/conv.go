package serve

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/visible"
)

// A Conv is a request's conversation as the matcher reads it, whatever
// the wire format it came in.
type Conv struct {
	Model  string
	Stream bool
	// System is the request's system prompt (or first system message),
	// by which an agent's side requests are told.
	System string
	Items  []Item
}

// lastUser is the last user text the request sends.
func (c *Conv) lastUser() string {
	for i := len(c.Items) - 1; i >= 0; i-- {
		if c.Items[i].Kind == UserText {
			return c.Items[i].Text
		}
	}
	return ""
}

// Item kinds.
const (
	UserText   = "user"        // text the user (or the agent's harness) sent
	ModelTurn  = "model"       // an earlier answer of the model's
	ToolResult = "tool_result" // what a tool call gave back
)

// An Item is one thing the conversation holds.
type Item struct {
	Kind string
	// Skipped marks a model turn between the request's first and last,
	// counted but not read: its place is known from the others.
	Skipped bool
	Text    string
	// CallIDs are a model turn's tool calls' ids; CallID the call a tool
	// result answers.
	CallIDs []string
	CallID  string
	Error   bool
}

// An Agent is what matching needs to know of one agent's harness: the
// text it adds to a conversation on its own, which differs from run to
// run (dates, reminders, the environment), and is no part of what the
// conversation says.
type Agent struct {
	Name string
	// Harness reports whether a user text is the agent's own.
	Harness func(text string) bool
	// Clean removes from a text what the harness appends to it on every
	// run (a reminder after a tool's output); nil leaves it as it is.
	Clean func(text string) string
	// Side tells a request the agent makes besides its turns by its
	// system prompt and the last user text it sends: "title" (a title for
	// the session), "compact" (a summary of the conversation, to go on
	// from), or "".
	Side func(system, last string) string
	// Summary reports whether a user text is the summary the agent opens
	// a compacted conversation with, and returns the model's answer it
	// was made from (nil: the agent writes none).
	Summary func(text string) (answer string, ok bool)
}

// A Difference is the first place a request's conversation differs from
// the recorded one.
type Difference struct {
	Where string `json:"where"`
	Want  string `json:"want,omitzero"`
	Got   string `json:"got,omitzero"`
}

func (d *Difference) Error() string {
	s := "the request differs from the recording at " + d.Where
	if d.Want != "" || d.Got != "" {
		s += fmt.Sprintf(": recorded %q, got %q", d.Want, d.Got)
	}
	return s
}

// A normalizer compares texts of a request with texts of the recording:
// the working directories (the session's and the replay's) read as one,
// line endings as "\n", the agent's reminders removed, and the ends of
// the text trimmed.
type normalizer struct {
	agent     *Agent
	workspace string
}

func (n normalizer) text(s, cwd string) string {
	if n.agent != nil && n.agent.Clean != nil {
		s = n.agent.Clean(s)
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if n.workspace != "" && n.workspace != "/" {
		s = strings.ReplaceAll(s, n.workspace, "$CWD")
	}
	if cwd != "" && cwd != "/" && cwd != n.workspace {
		s = strings.ReplaceAll(s, cwd, "$CWD")
	}
	return strings.TrimSpace(s)
}

// summary reports whether s is the agent's compaction summary.
func (n normalizer) summary(s string) bool {
	if n.agent == nil || n.agent.Summary == nil {
		return false
	}
	_, ok := n.agent.Summary(s)
	return ok
}

func (n normalizer) harness(s string) bool {
	return n.agent != nil && n.agent.Harness != nil && n.agent.Harness(s)
}

// Find returns the recorded turn that answers c: the thread whose turns
// the request already holds (or whose opening text it starts with), at
// the place after them. It returns a Difference when the conversation
// is not the recorded one: another opening, earlier answers that are not
// the thread's, a tool's output or a user's text the recording does not
// have there. The turn is returned with the difference when the place
// was found, so that a caller can say which step the request diverged
// at.
//
// A compacted conversation (it holds the agent's summary, Agent.Summary)
// has lost the turns before the summary: its first answer is a later
// turn of the thread, found by its ids or text.
func (r *Recording) Find(c *Conv, a *Agent, workspace string) (*Turn, *Difference) {
	n := normalizer{agent: a, workspace: workspace}
	var items []Item
	compacted := false
	for _, it := range c.Items {
		if it.Kind == UserText && n.summary(it.Text) {
			compacted = true
			continue
		}
		if it.Kind == UserText && (strings.TrimSpace(it.Text) == "" || n.harness(it.Text)) {
			continue
		}
		items = append(items, it)
	}
	var turns []int // the model turns' places in items
	for i, it := range items {
		if it.Kind == ModelTurn {
			turns = append(turns, i)
		}
	}
	places, d := r.thread(items, turns, n, compacted)
	var turn *Turn
	for i, pl := range places {
		t, d2 := r.at(pl, items, turns, n)
		if d2 == nil || i == 0 {
			turn, d = t, d2
		}
		if d2 == nil {
			break
		}
	}
	return turn, d
}

// A place is where a request continues a thread: its first answer is
// the thread's turn First.
type place struct {
	th    *Thread
	First int
}

// at returns the turn that answers a request continuing a thread at pl,
// and where the request differs from the recording there.
func (r *Recording) at(pl place, items []Item, turns []int, n normalizer) (*Turn, *Difference) {
	th := pl.th
	pos := pl.First + len(turns)
	if pos >= len(th.Turns) {
		return nil, &Difference{Where: fmt.Sprintf("model turn %d", pos), Want: fmt.Sprintf("the recorded thread ends after %d turns", len(th.Turns))}
	}
	turn := th.Turns[pos]
	for i, at := range turns {
		if items[at].Skipped {
			continue
		}
		if d := n.sameTurn(r, th.Turns[pl.First+i], items[at], th.Pack.CWD); d != nil {
			d.Where = fmt.Sprintf("model turn %d: %s", pl.First+i, d.Where)
			return turn, d
		}
	}
	tail := items
	if len(turns) > 0 {
		tail = items[turns[len(turns)-1]+1:]
	}
	return turn, n.sameInput(r, th, pos, tail)
}

// thread finds where a request continues a thread: the thread whose
// first turn is the request's first answer, or, for a compacted
// conversation, each turn of any thread that is; with no answer yet,
// the thread whose opening the request starts with.
func (r *Recording) thread(items []Item, turns []int, n normalizer, compacted bool) ([]place, *Difference) {
	if len(turns) > 0 {
		first := items[turns[0]]
		var places []place
		for _, p := range r.Packs {
			for _, th := range p.Threads {
				for k, t := range th.Turns {
					if k > 0 && !compacted {
						break
					}
					if n.sameTurn(r, t, first, p.CWD) == nil {
						places = append(places, place{th, k})
						if !compacted {
							return places, nil
						}
					}
				}
			}
		}
		if len(places) > 0 {
			return places, nil
		}
		return nil, &Difference{Where: "model turn 0", Got: excerpt(first.Text), Want: "a recorded first answer"}
	}
	var opening string
	for _, it := range items {
		if it.Kind == UserText {
			opening = it.Text
			break
		}
	}
	for _, p := range r.Packs {
		for _, th := range p.Threads {
			if th.Opening != "" && n.text(opening, p.CWD) == n.text(th.Opening, p.CWD) {
				return []place{{th, 0}}, nil
			}
		}
	}
	return nil, &Difference{Where: "the first user message", Got: excerpt(opening), Want: "a recorded opening prompt"}
}

// sameTurn compares an earlier answer in a request with a recorded turn:
// the same tool call ids when it made calls, else the same text.
func (n normalizer) sameTurn(r *Recording, t *Turn, it Item, cwd string) *Difference {
	if len(t.Calls) > 0 || len(it.CallIDs) > 0 {
		want := make([]string, len(t.Calls))
		same := len(t.Calls) == len(it.CallIDs)
		for i, c := range t.Calls {
			want[i] = c.ID
			same = same && c.answers(it.CallIDs[i])
		}
		if !same {
			return &Difference{Where: "tool call ids", Want: strings.Join(want, ","), Got: strings.Join(it.CallIDs, ",")}
		}
		return nil
	}
	text, err := r.text(t.Text)
	if err != nil {
		return &Difference{Where: "the recorded answer", Want: err.Error()}
	}
	if a, b := n.text(text, cwd), n.text(it.Text, cwd); a != b {
		return lineDifference("the answer's text", a, b)
	}
	return nil
}

// sameInput compares what a request sends after the thread's answer
// pos-1 (tool results, user texts) with the recording.
func (n normalizer) sameInput(r *Recording, th *Thread, pos int, tail []Item) *Difference {
	var calls []*Call
	if pos > 0 {
		calls = th.Turns[pos-1].Calls
	}
	answered := map[string]bool{}
	opening := pos == 0
	for _, it := range tail {
		switch it.Kind {
		case ToolResult:
			i := slices.IndexFunc(calls, func(c *Call) bool { return !answered[c.ID] && c.answers(it.CallID) })
			if i < 0 {
				return &Difference{Where: "tool result " + it.CallID, Want: "no such call in the recorded turn"}
			}
			answered[calls[i].ID] = true
			want, err := r.text(calls[i].Output)
			if err != nil {
				return &Difference{Where: "tool result " + it.CallID, Want: err.Error()}
			}
			if a, b := n.text(want, th.Pack.CWD), n.text(it.Text, th.Pack.CWD); a != b {
				return lineDifference(fmt.Sprintf("tool result %s (step %d)", it.CallID, calls[i].Step), a, b)
			}
		case UserText:
			if opening {
				opening = false // the thread's opening, already matched
				continue
			}
			got := n.text(it.Text, th.Pack.CWD)
			if !slices.ContainsFunc(th.Pack.Prompts, func(p string) bool { return n.text(p, th.Pack.CWD) == got }) {
				return &Difference{Where: "a user message", Got: excerpt(got), Want: "a recorded prompt"}
			}
		}
	}
	for _, c := range calls {
		if !answered[c.ID] {
			return &Difference{Where: "tool result " + c.ID, Want: fmt.Sprintf("the result of step %d", c.Step), Got: "none"}
		}
	}
	return nil
}

// lineDifference names the first line where two texts differ.
func lineDifference(where, want, got string) *Difference {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; ; i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g || i >= len(wl) || i >= len(gl) {
			return &Difference{Where: fmt.Sprintf("%s, line %d", where, i+1), Want: excerpt(w), Got: excerpt(g)}
		}
	}
}

// excerpt shortens a text for a report.
func excerpt(s string) string { return visible.Clip(s, 200) }

// answers reports whether a request's id for a call (or "name:" and its
// name, for an API whose calls carry no id) names c.
func (c *Call) answers(id string) bool {
	return c.ID == id || id == "name:"+c.Name
}

// A msg is one element of a request's conversation list, read as far as
// whether the model wrote it.
type msg struct {
	// elem is the message's raw text; raw is it read, which ends does
	// only for the messages it expands.
	elem  []byte
	raw   gjson.Result
	model bool
	// group is the items of a model turn that is several items
	// (Responses), raw and read.
	groupElems [][]byte
	group      []gjson.Result
}

// ends returns the items of msgs, each message's from expand, but for the
// messages between the first and the last the model wrote: of those only
// the model's are counted, as Skipped model turns. A long session's
// request repeats the whole conversation; what continues it is at its
// ends (the thread's first answer, the last, and what was sent since),
// and the turns between are known by count.
func ends(msgs []msg, expand func(m msg) ([]Item, error)) ([]Item, error) {
	first, last := -1, -1
	for i, m := range msgs {
		if m.model {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	var items []Item
	for i, m := range msgs {
		if first < i && i < last {
			if m.model {
				items = append(items, Item{Kind: ModelTurn, Skipped: true})
			}
			continue
		}
		if m.elem != nil {
			m.raw = gjson.ParseBytes(m.elem)
		}
		for _, g := range m.groupElems {
			m.group = append(m.group, gjson.ParseBytes(g))
		}
		more, err := expand(m)
		if err != nil {
			return nil, err
		}
		items = append(items, more...)
	}
	return items, nil
}
