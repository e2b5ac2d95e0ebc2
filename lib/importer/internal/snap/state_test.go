package snap

//lint:file-ignore U1000 the fields of these test types are read and written by Encode and Decode through reflection only

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// The types below have the shapes of an importer's state: messages shared
// between a slice and maps (and keys of one), unexported fields, strings
// and raw JSON that are slices of the transcript.

type obj []member

type member struct {
	k string
	v json.RawMessage
}

type list []json.RawMessage

type failure struct {
	msg      string
	exitCode json.RawMessage
}

type call struct {
	id, name string
	args     json.RawMessage
	ts       string
	meta     obj
	output   *string
	noResult bool
	isError  bool
	failure  failure
	step     *step
	msg      *msg // back to the turn that made it
}

type step struct {
	Index         int
	Type          string
	Parameters    json.RawMessage
	Output        *string
	ParentStep    *int
	Deterministic bool
	Usage         map[string]int64
	outLit        string
}

type msg struct {
	role      string
	text      string
	hasText   bool
	reasoning []string
	calls     []*call
	ts        string
	params    json.RawMessage
	meta      obj
	key       string
	line      int
	parent    *msg // the message this one answers
	record    gjson.Result
	at        time.Time
	score     float64
}

type sidechains struct {
	agentOf map[string]string
	of      map[*msg]string
	tasks   []*call
	parents map[string]*call
	pending map[string]list
}

type state struct {
	format   string
	lines    int
	offset   int64
	msgs     []*msg
	byID     map[string]*msg
	merged   map[*msg]list
	steps    []*step
	sc       sidechains
	seen     map[string]bool
	model    string
	warnings []string
	last     *msg
	err      error // nil: a nil interface is saved
}

// alias returns b as a string sharing its memory.
func alias(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// transcript returns about size bytes of JSON lines shaped like a Claude
// Code session, and the byte ranges of its lines.
func transcript(size int) ([]byte, [][2]int) {
	var b strings.Builder
	var lines [][2]int
	for i := 0; b.Len() < size; i++ {
		start := b.Len()
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"u%06d","parentUuid":"u%06d","timestamp":"2026-11-26T01:%02d:%02d.%03dZ",`, i, i-1, i/60%60, i%60, i%1000)
		fmt.Fprintf(&b, `"message":{"id":"msg_%06d","model":"claude-sonnet-4-5","content":[{"type":"text","text":"%s"},`, i, strings.Repeat("lorem ipsum ", 20+i%300))
		fmt.Fprintf(&b, `{"type":"tool_use","id":"toolu_%06d","name":"Bash","input":{"command":"ls -la /tmp/%d","description":"list"}}],`, i, i)
		fmt.Fprintf(&b, `"usage":{"input_tokens":%d,"output_tokens":%d}}}`, 1000+i, 10+i%97)
		lines = append(lines, [2]int{start, b.Len()})
		b.WriteByte('\n')
	}
	return []byte(b.String()), lines
}

// newState builds the state an import of base would have after its lines:
// n messages, each with a tool call, strings slicing base.
func newState(base []byte, lines [][2]int, n int) *state {
	s := &state{
		format: "claude-code",
		byID:   map[string]*msg{},
		merged: map[*msg]list{},
		seen:   map[string]bool{},
		model:  "claude-sonnet-4-5",
		sc: sidechains{
			agentOf: map[string]string{}, of: map[*msg]string{},
			parents: map[string]*call{}, pending: map[string]list{},
		},
	}
	for i := 0; i < n && i < len(lines); i++ {
		ln := base[lines[i][0]:lines[i][1]]
		off := lines[i][0]
		rec := gjson.ParseBytes(ln)
		// gjson.ParseBytes copies what it returns; point the strings
		// back into base, as gjson.Parse of a string made from base does.
		sub := func(r gjson.Result) gjson.Result {
			r.Raw = alias(ln[r.Index : r.Index+len(r.Raw)])
			if r.Type == gjson.String {
				r.Str = r.Raw[1 : len(r.Raw)-1]
			}
			return r
		}
		message := sub(rec.Get("message"))
		content := message.Get("content")
		text := sub(content.Get("0.text"))
		use := content.Get("1")
		m := &msg{
			role:      "assistant",
			text:      text.Str,
			hasText:   true,
			reasoning: []string{text.Str[:10]},
			ts:        sub(rec.Get("timestamp")).Str,
			params:    json.RawMessage(base[off+message.Index : off+message.Index+len(message.Raw)]),
			meta:      obj{{k: "stop_reason", v: json.RawMessage(`"tool_use"`)}, {k: "usage", v: json.RawMessage(base[off : off+10])}},
			key:       sub(rec.Get("uuid")).Str,
			line:      i + 1,
			record:    sub(rec.Get("type")),
			at:        time.Date(2026, 11, 26, 1, i/60%60, i%60, 0, time.UTC),
			score:     float64(i) / 3,
		}
		out := fmt.Sprintf("output %d", i)
		idx := i
		c := &call{
			id: sub(use.Get("id")).Str, name: sub(use.Get("name")).Str,
			args:   json.RawMessage(base[off+use.Index : off+use.Index+len(use.Raw)]),
			ts:     m.ts,
			output: &out,
			msg:    m,
			step: &step{
				Index: i, Type: "tool_call", Parameters: m.params,
				Output: &out, ParentStep: &idx, Usage: map[string]int64{"input_tokens": int64(1000 + i)},
			},
		}
		m.calls = []*call{c}
		if i > 0 {
			m.parent = s.msgs[i-1]
		}
		s.msgs = append(s.msgs, m)
		s.byID[m.key] = m
		s.steps = append(s.steps, c.step)
		s.seen[c.id] = true
		if i%3 == 0 {
			s.merged[m] = list{m.params[:20:20], nil}
		}
		if i%10 == 0 {
			s.sc.of[m] = "agent"
			s.sc.tasks = append(s.sc.tasks, c)
			s.sc.parents[m.key] = c
		}
		s.lines = i + 1
		s.offset = int64(lines[i][1] + 1)
	}
	if len(s.msgs) > 0 {
		s.last = s.msgs[len(s.msgs)-1]
	}
	s.warnings = []string{"a warning", ""}
	return s
}

// checkState fails t unless got restores want: equal values, and the
// pointers shared in want shared in got.
func checkState(t testing.TB, want, got *state) {
	t.Helper()
	// reflect.DeepEqual looks the keys of one map up in the other: maps
	// keyed by pointers are compared by the keys' messages instead.
	w, g := *want, *got
	w.merged, g.merged, w.sc.of, g.sc.of = nil, nil, nil, nil
	if !reflect.DeepEqual(w, g) {
		t.Fatalf("decoded state differs from the encoded one")
	}
	if len(got.merged) != len(want.merged) || len(got.sc.of) != len(want.sc.of) {
		t.Fatalf("merged or sc.of lost entries")
	}
	for m, l := range want.merged {
		if !reflect.DeepEqual(got.merged[got.byID[m.key]], l) {
			t.Fatalf("merged[%q] differs", m.key)
		}
	}
	for m, a := range want.sc.of {
		if got.sc.of[got.byID[m.key]] != a {
			t.Fatalf("sc.of[%q] differs", m.key)
		}
	}
	if len(got.msgs) == 0 {
		return
	}
	if got.last != got.msgs[len(got.msgs)-1] {
		t.Errorf("last is not the last message")
	}
	for i, m := range got.msgs {
		if got.byID[m.key] != m {
			t.Fatalf("byID[%q] is not msgs[%d]", m.key, i)
		}
		if i > 0 && m.parent != got.msgs[i-1] {
			t.Fatalf("msgs[%d].parent is not msgs[%d]", i, i-1)
		}
		if m.calls[0].msg != m || got.steps[i] != m.calls[0].step {
			t.Fatalf("msgs[%d]'s call does not point back at it, or its step is not steps[%d]", i, i)
		}
		if m.calls[0].output != m.calls[0].step.Output {
			t.Fatalf("msgs[%d]: the call and its step do not share their output", i)
		}
	}
	for m := range got.merged {
		if got.byID[m.key] != m {
			t.Fatalf("merged is keyed by a copy of %q, not the message", m.key)
		}
	}
	for m := range got.sc.of {
		if got.byID[m.key] != m {
			t.Fatalf("sc.of is keyed by a copy of %q, not the message", m.key)
		}
	}
}
