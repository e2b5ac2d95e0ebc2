package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
)

// MaxBody bounds a request's body: larger ones are refused (413).
const MaxBody = 64 << 20

// Options tune a Server.
type Options struct {
	// Workspace is the directory the agent runs in: its paths and the
	// session's recorded working directory read as one, and tool calls'
	// relative paths are answered under it (when empty: under the
	// session's recorded directory).
	Workspace string
	// Upstream, when set, answers what the recording cannot (a miss), and
	// every turn from step *From on (From nil: none).
	Upstream *url.URL
	From     *int
	// Model, when set, replaces the model a request forwarded upstream
	// asks for.
	Model string
	// Record, when set, receives every exchange forwarded upstream.
	Record func(Exchange)
	// Event, when set, receives a report of every request served.
	Event func(Event)
	// Getenv reads the credentials a forwarded request is sent with.
	Getenv func(string) string
	// Client sends forwarded requests (default: http.DefaultClient's
	// transport, without a timeout: answers stream).
	Client *http.Client
}

// An Event reports one request served.
type Event struct {
	Seq         int         `json:"request"`
	API         string      `json:"api"`
	Method      string      `json:"method"`
	Path        string      `json:"path"`
	Status      int         `json:"status"`
	Match       string      `json:"match"` // exact, retry, side, miss, upstream, error
	Pack        string      `json:"pack,omitzero"`
	Step        *int        `json:"step,omitzero"`
	Agent       string      `json:"agent,omitzero"`
	RequestHash string      `json:"request_hash,omitzero"`
	Difference  *Difference `json:"difference,omitzero"`
	Error       string      `json:"error,omitzero"`
	Millis      float64     `json:"ms"`
}

// An Exchange is one request forwarded upstream and its response, as
// the exchange importer reads them: never an authorization header or key.
type Exchange struct {
	API      string
	Request  []byte
	Response []byte // the response body, a stream's events assembled into one
	Status   int
	Started  time.Time
	Duration time.Duration
}

// Line is the exchange as a JSON line the exchange importer reads
// (ctx-pack --from anthropic, openai-responses, openai-chat): {api,
// request, response, status, started, duration_ms}, the bodies as JSON
// where they are JSON.
func (x Exchange) Line() ([]byte, error) {
	body := func(b []byte) any {
		if v := jsontext.Value(b); v.IsValid() {
			return v
		}
		return string(b)
	}
	line, err := canon.Marshal(map[string]any{"api": x.API, "request": body(x.Request), "response": body(x.Response),
		"status": x.Status, "started": x.Started.UTC().Format(time.RFC3339Nano), "duration_ms": x.Duration.Milliseconds()})
	if err != nil {
		return nil, err
	}
	return append(line, '\n'), nil
}

// A Server answers model API requests from a Recording.
type Server struct {
	rec  *Recording
	opts Options

	mu   sync.Mutex
	seq  int
	seen map[string]bool // request hashes answered
}

// New returns a Server answering from rec.
func New(rec *Recording, opts Options) *Server {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	return &Server{rec: rec, opts: opts, seen: map[string]bool{}}
}

// route tells the wire format of a request path, and whether it is a side
// endpoint answered without the recording.
func route(method, path string) (w Wire, side string) {
	p := strings.TrimSuffix(path, "/")
	switch {
	case method == http.MethodGet && (strings.HasSuffix(p, "/models") || p == "/v1beta/models" || strings.HasPrefix(p, "/v1/models/") || strings.HasPrefix(p, "/v1beta/models/")):
		return nil, "models"
	case method != http.MethodPost:
		return nil, ""
	case strings.HasSuffix(p, "/messages/count_tokens"):
		return Anthropic{}, "count_tokens"
	case strings.HasSuffix(p, "/messages"):
		return Anthropic{}, ""
	case strings.HasSuffix(p, "/responses"):
		return Responses{}, ""
	case strings.HasSuffix(p, "/chat/completions"):
		return Chat{}, ""
	case strings.Contains(p, ":countTokens"):
		return Gemini{}, "count_tokens"
	case strings.Contains(p, ":generateContent") || strings.Contains(p, ":streamGenerateContent"):
		return Gemini{}, ""
	}
	return nil, ""
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	s.mu.Lock()
	s.seq++
	ev := Event{Seq: s.seq, Method: r.Method, Path: r.URL.Path}
	s.mu.Unlock()
	defer func() {
		ev.Millis = float64(time.Since(start).Microseconds()) / 1000
		if s.opts.Event != nil {
			s.opts.Event(ev)
		}
	}()
	wire, side := route(r.Method, r.URL.Path)
	if wire != nil {
		ev.API = wire.Name()
	}
	body, err := readBody(r)
	if err == nil && len(body) > MaxBody {
		err = fmt.Errorf("request body larger than %d bytes", MaxBody)
		ev.Status, ev.Match, ev.Error = http.StatusRequestEntityTooLarge, "error", err.Error()
		fail(w, wire, nil, ev.Status, err.Error())
		return
	}
	if err != nil {
		ev.Status, ev.Match, ev.Error = http.StatusBadRequest, "error", "reading the request: "+err.Error()
		fail(w, wire, nil, ev.Status, ev.Error)
		return
	}
	// The request's hash is for the report: made on the other core
	// while the request is matched and answered.
	hashed := make(chan string, 1)
	go func() {
		sum := sha256.Sum256(body)
		hashed <- "sha256:" + hex.EncodeToString(sum[:])
	}()
	defer func() {
		ev.RequestHash = <-hashed
		if ev.Match == "exact" {
			// The same request answered before is a retry.
			s.mu.Lock()
			if s.seen[ev.RequestHash] {
				ev.Match = "retry"
			}
			s.seen[ev.RequestHash] = true
			s.mu.Unlock()
		}
	}()
	if side != "" {
		ev.Match, ev.Status = "side", http.StatusOK
		s.side(w, r, side, body)
		return
	}
	if wire == nil {
		ev.Match, ev.Status = "error", http.StatusNotFound
		ev.Error = "no such endpoint"
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"message": "ctx-serve: no endpoint " + r.Method + " " + r.URL.Path, "code": 404}})
		return
	}
	conv, err := wire.Parse(r.URL.Path, body)
	if err != nil {
		ev.Status, ev.Match, ev.Error = http.StatusBadRequest, "error", "reading the request: "+err.Error()
		wire.Fail(w, nil, ev.Status, "ctx-serve: "+ev.Error)
		return
	}
	ag := agentOf(r, wire)
	if ag != nil && ag.Side != nil {
		// A side request the recording has no answer for is matched
		// as a turn: a miss, or the upstream's.
		if a := s.rec.sideAnswer(ag.Side(conv.System, conv.lastUser()), conv, ag); a != nil {
			ev.Match, ev.Status = "side", http.StatusOK
			if err := wire.Write(w, conv, a); err != nil {
				ev.Error = "writing the answer: " + err.Error()
			}
			return
		}
	}
	turn, diff := s.rec.Find(conv, ag, s.opts.Workspace)
	if turn != nil {
		step := turn.Step
		ev.Pack, ev.Step, ev.Agent = turn.Thread.Pack.Hash.String(), &step, turn.Thread.Agent
	}
	ev.Difference = diff
	live := diff != nil || (s.opts.From != nil && turn != nil && turn.Step >= *s.opts.From)
	if live && s.opts.Upstream != nil {
		ev.Match = "upstream"
		ev.Status, err = s.forward(w, r, wire, body)
		if err != nil {
			ev.Error = err.Error()
		}
		return
	}
	if diff != nil {
		ev.Match, ev.Status = "miss", http.StatusBadRequest
		wire.Fail(w, conv, ev.Status, "ctx-serve: no recorded answer: "+diff.Error())
		return
	}
	if live {
		ev.Match, ev.Status = "miss", http.StatusBadRequest
		ev.Error = fmt.Sprintf("step %d is after --from %d and no upstream is given", turn.Step, *s.opts.From)
		wire.Fail(w, conv, ev.Status, "ctx-serve: "+ev.Error)
		return
	}
	a, err := s.rec.answer(turn, s.opts.Workspace)
	if err != nil {
		ev.Status, ev.Match, ev.Error = http.StatusInternalServerError, "error", err.Error()
		wire.Fail(w, conv, ev.Status, "ctx-serve: "+err.Error())
		return
	}
	ev.Match = "exact"
	ev.Status = http.StatusOK
	if err := wire.Write(w, conv, a); err != nil {
		ev.Error = "writing the answer: " + err.Error()
	}
}

// readBody reads a request's body, at most MaxBody+1 bytes, into a
// buffer of the size it declares.
func readBody(r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	if n := r.ContentLength; n > 0 && n <= MaxBody {
		buf.Grow(int(n) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(io.LimitReader(r.Body, MaxBody+1))
	return buf.Bytes(), err
}

func fail(w http.ResponseWriter, wire Wire, c *Conv, status int, msg string) {
	if wire != nil {
		wire.Fail(w, c, status, "ctx-serve: "+msg)
		return
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": "ctx-serve: " + msg, "code": status}})
}

// side answers the small requests agents make besides their turns.
func (s *Server) side(w http.ResponseWriter, r *http.Request, what string, body []byte) {
	switch what {
	case "count_tokens":
		// An estimate, as no count was recorded: four bytes a token.
		n := int64(len(body)/4 + 1)
		if strings.Contains(r.URL.Path, ":countTokens") {
			writeJSON(w, http.StatusOK, map[string]any{"totalTokens": n})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": n})
	case "models":
		var ids []string
		seen := map[string]bool{}
		for _, p := range s.rec.Packs {
			for _, th := range p.Threads {
				for _, t := range th.Turns {
					if t.Model != "" && !seen[t.Model] {
						seen[t.Model] = true
						ids = append(ids, t.Model)
					}
				}
			}
		}
		if strings.HasPrefix(r.URL.Path, "/v1beta/") {
			var ms []map[string]any
			for _, id := range ids {
				ms = append(ms, map[string]any{"name": "models/" + id, "supportedGenerationMethods": []string{"generateContent", "streamGenerateContent", "countTokens"}})
			}
			writeJSON(w, http.StatusOK, map[string]any{"models": ms})
			return
		}
		data := []map[string]any{}
		for _, id := range ids {
			data = append(data, map[string]any{"id": id, "object": "model", "type": "model", "display_name": id, "owned_by": "ctx-serve", "created": 0, "created_at": "1970-01-01T00:00:00Z"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "has_more": false})
	}
}

// credentials are the headers that carry a key, by API, and the
// environment variable the key is taken from when forwarding.
var credentials = map[string]struct{ header, env, prefix string }{
	"anthropic":        {"X-Api-Key", "ANTHROPIC_API_KEY", ""},
	"openai-responses": {"Authorization", "OPENAI_API_KEY", "Bearer "},
	"openai-chat":      {"Authorization", "OPENAI_API_KEY", "Bearer "},
	"gemini":           {"X-Goog-Api-Key", "GEMINI_API_KEY", ""},
}

// forward sends the request upstream and copies the answer back as it
// comes, stream or not, keeping a copy for Record.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, wire Wire, body []byte) (int, error) {
	if s.opts.Model != "" {
		body = withModel(body, s.opts.Model)
	}
	u := *s.opts.Upstream
	u.Path = strings.TrimSuffix(u.Path, "/") + r.URL.Path
	if s.opts.Model != "" && wire.Name() == "gemini" {
		u.Path = geminiModelPath(u.Path, s.opts.Model)
	}
	u.RawQuery = r.URL.RawQuery
	req, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return http.StatusBadGateway, err
	}
	for k, vs := range r.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Host", "Content-Length", "Connection", "Accept-Encoding":
			continue
		}
		req.Header[k] = vs
	}
	if c, ok := credentials[wire.Name()]; ok {
		if key := s.opts.Getenv(c.env); key != "" {
			req.Header.Set(c.header, c.prefix+key)
		}
	}
	start := time.Now()
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		wire.Fail(w, nil, http.StatusBadGateway, "ctx-serve: forwarding to the upstream: "+err.Error())
		return http.StatusBadGateway, err
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Length", "Connection", "Transfer-Encoding":
			continue
		}
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	var kept bytes.Buffer
	dst := io.Writer(w)
	if s.opts.Record != nil {
		dst = io.MultiWriter(w, &limited{&kept, MaxBody})
	}
	f, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return resp.StatusCode, werr
			}
			if f != nil {
				f.Flush()
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return resp.StatusCode, rerr
		}
	}
	if s.opts.Record != nil {
		respBody := kept.Bytes()
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			respBody, err = Assemble(wire.Name(), respBody)
			if err != nil {
				return resp.StatusCode, fmt.Errorf("assembling the streamed answer: %w", err)
			}
		}
		s.opts.Record(Exchange{API: wire.Name(), Request: body, Response: respBody, Status: resp.StatusCode, Started: start, Duration: time.Since(start)})
	}
	return resp.StatusCode, nil
}

// limited keeps at most n bytes.
type limited struct {
	b *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// withModel returns a JSON request body with its model member set to m.
func withModel(body []byte, m string) []byte {
	if !gjson.GetBytes(body, "model").Exists() {
		return body
	}
	var out bytes.Buffer
	v := gjson.ParseBytes(body)
	out.WriteByte('{')
	first := true
	v.ForEach(func(k, val gjson.Result) bool {
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.WriteString(k.Raw)
		out.WriteByte(':')
		if k.Str == "model" {
			out.Write(quoteJSON(m))
		} else {
			out.WriteString(val.Raw)
		}
		return true
	})
	out.WriteByte('}')
	return out.Bytes()
}

// geminiModelPath replaces the model in a Gemini path
// (/v1beta/models/MODEL:method).
func geminiModelPath(p, m string) string {
	i := strings.Index(p, "/models/")
	j := strings.LastIndexByte(p, ':')
	if i < 0 || j < i {
		return p
	}
	return p[:i+len("/models/")] + m + p[j:]
}
