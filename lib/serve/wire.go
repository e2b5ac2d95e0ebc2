package serve

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/wspath"
)

// A Wire is one model API's request and response format.
type Wire interface {
	// Name is the API's name in reports: "anthropic", "openai-responses",
	// "openai-chat", "gemini".
	Name() string
	// Parse reads a request body into the conversation it holds. path is
	// the request's path (Gemini names the model and streaming there).
	Parse(path string, body []byte) (*Conv, error)
	// Write answers with a recorded turn, streamed when c.Stream.
	Write(w http.ResponseWriter, c *Conv, a *Answer) error
	// Fail answers with an error the agent shows.
	Fail(w http.ResponseWriter, c *Conv, status int, message string)
}

// An Answer is a recorded turn, read and ready to write.
type Answer struct {
	ID        string
	Model     string
	Text      string
	Reasoning string
	Signature string
	Calls     []AnswerCall
	Usage     Usage
	Stop      string
}

// An AnswerCall is a tool call of an Answer, its input with workspace
// paths made absolute.
type AnswerCall struct {
	ID     string
	Name   string
	Input  jsontext.Value // a JSON object, or a JSON string when Custom
	Custom bool
	// Namespace, when set, begins Name (Call.Namespace).
	Namespace string
}

// Usage is an answer's token counts; zero where none was recorded.
type Usage struct {
	Input, Output, CacheRead, CacheCreation, Reasoning int64
}

// answer reads t's content into an Answer, its tool calls' workspace
// paths under workspace, else under the session's recorded directory.
func (r *Recording) answer(t *Turn, workspace string) (*Answer, error) {
	a := &Answer{Model: t.Model, Signature: t.Signature, Stop: t.Stop, ID: t.ID}
	if a.ID == "" {
		// Agents join the blocks of one message id into one turn: each
		// turn needs its own.
		a.ID = fmt.Sprintf("ctx%s%d", t.Thread.Pack.Hash.Hex()[:12], t.Step)
	}
	var err error
	if a.Text, err = r.text(t.Text); err != nil {
		return nil, fmt.Errorf("reading step %d's output: %w", t.Step, err)
	}
	if a.Reasoning, err = r.text(t.Reasoning); err != nil {
		return nil, fmt.Errorf("reading step %d's reasoning: %w", t.Step, err)
	}
	if u := t.Usage; u != nil {
		get := func(p *int64) int64 {
			if p == nil {
				return 0
			}
			return *p
		}
		a.Usage = Usage{Input: get(u.InputTokens), Output: get(u.OutputTokens), CacheRead: get(u.CacheReadTokens),
			CacheCreation: get(u.CacheCreationTokens), Reasoning: get(u.ReasoningTokens)}
	}
	if workspace == "" {
		workspace = t.Thread.Pack.CWD // the session's own directory
	}
	for _, c := range t.Calls {
		in := jsontext.Value(c.Input)
		if workspace != "" && !c.Custom {
			in = absolute(gjson.ParseBytes(c.Input), workspace, false)
		}
		a.Calls = append(a.Calls, AnswerCall{ID: c.ID, Name: c.Name, Input: in, Custom: c.Custom, Namespace: c.Namespace})
	}
	return a, nil
}

// absolute rewrites v, a tool call's parameters, with every relative path
// in a member named like a path (wspath.Key) made absolute under dir: the
// inverse of what the importer did to the session's paths.
func absolute(v gjson.Result, dir string, inPath bool) jsontext.Value {
	switch {
	case v.Type == gjson.String && inPath:
		p := v.Str
		if p == "." {
			p = dir
		} else if p != "" && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") && !strings.Contains(p, "://") {
			p = strings.TrimRight(dir, "/") + "/" + p
		}
		b, _ := json.Marshal(p)
		return b
	case v.IsObject():
		var out []byte
		out = append(out, '{')
		first := true
		v.ForEach(func(k, m gjson.Result) bool {
			if !first {
				out = append(out, ',')
			}
			first = false
			kb, _ := json.Marshal(k.Str)
			out = append(out, kb...)
			out = append(out, ':')
			out = append(out, absolute(m, dir, wspath.Key(k.Str))...)
			return true
		})
		return append(out, '}')
	case v.IsArray() && inPath:
		var out []byte
		out = append(out, '[')
		first := true
		v.ForEach(func(_, e gjson.Result) bool {
			if !first {
				out = append(out, ',')
			}
			first = false
			out = append(out, absolute(e, dir, e.Type == gjson.String)...)
			return true
		})
		return append(out, ']')
	}
	return jsontext.Value(v.Raw)
}

// sse writes server-sent events, each a name and a JSON value: as JSON
// text holds no raw line break, no content can end an event early or
// start one of its own.
type sse struct {
	w   io.Writer
	f   http.Flusher
	err error
}

func newSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// event writes one event; an empty name writes a data line alone.
func (s *sse) event(name string, v any) {
	if s.err != nil {
		return
	}
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		s.err = err
		return
	}
	var buf []byte
	if name != "" {
		buf = append(buf, "event: "...)
		buf = append(buf, name...)
		buf = append(buf, '\n')
	}
	buf = append(buf, "data: "...)
	buf = append(buf, b...)
	buf = append(buf, "\n\n"...)
	if _, s.err = s.w.Write(buf); s.err == nil && s.f != nil {
		s.f.Flush()
	}
}

// raw writes a data line that is not JSON ("[DONE]").
func (s *sse) raw(data string) {
	if s.err != nil {
		return
	}
	if _, s.err = io.WriteString(s.w, "data: "+data+"\n\n"); s.err == nil && s.f != nil {
		s.f.Flush()
	}
}

// writeJSON answers with one JSON document.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, err = w.Write(b)
	return err
}
