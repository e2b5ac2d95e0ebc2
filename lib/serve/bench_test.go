package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// bigSession packs a 20 MB Claude Code session, generated as the
// capture benchmark's (internal/packgen), into a new store.
func bigSession(b *testing.B) (*store.Store, digest.Digest) {
	s, _, err := store.Init(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	l, _, err := formats.ImportLog("claude-code", packgen.ClaudeSessionVaried(20<<20), importer.Options{})
	if err == nil {
		err = l.Check(execlog.Options{})
	}
	if err != nil {
		b.Fatal(err)
	}
	m, _, err := l.Pack(s)
	if err != nil {
		b.Fatal(err)
	}
	return s, m.Hash
}

// BenchmarkReady is what ctx-serve does before it listens: read the
// pack's manifest and arrange its turns.
func BenchmarkReady(b *testing.B) {
	s, h := bigSession(b)
	b.ReportAllocs()
	for b.Loop() {
		m, err := manifest.Load(s, h)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Load(s, []*manifest.Manifest{m}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnswer answers the main thread's first and last turns of the
// 20 MB session, its request (Anthropic Messages) already read: the
// whole conversation before it, as an agent sends it.
func BenchmarkAnswer(b *testing.B) {
	s, h := bigSession(b)
	m, err := manifest.Load(s, h)
	if err != nil {
		b.Fatal(err)
	}
	r, err := Load(s, []*manifest.Manifest{m})
	if err != nil {
		b.Fatal(err)
	}
	th := r.Packs[0].Threads[0]
	srv := New(r, Options{})
	for _, c := range []struct {
		name string
		pos  int
	}{{"first", 0}, {"last", len(th.Turns) - 1}} {
		body := requestFor(b, r, th, c.pos)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.ReportMetric(float64(len(body)), "request-bytes")
			var firstByte []time.Duration
			for b.Loop() {
				r := &timedReader{r: bytes.NewReader(body)}
				req := httptest.NewRequest("POST", "/v1/messages", r)
				w := &timedWriter{ResponseRecorder: httptest.NewRecorder()}
				srv.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatalf("status %d: %s", w.Code, w.Body.Bytes())
				}
				firstByte = append(firstByte, w.first.Sub(r.read))
			}
			slices.Sort(firstByte)
			b.ReportMetric(float64(firstByte[len(firstByte)/2].Microseconds())/1000, "first-byte-ms")
		})
	}
}

// requestFor is the Anthropic request an agent sends for turn pos of th:
// the opening prompt, then each earlier turn and its tools' results.
func requestFor(b *testing.B, r *Recording, th *Thread, pos int) []byte {
	text := func(d digest.Digest) string {
		t, err := r.text(d)
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	// As agents write them: the role before the content.
	type message struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	}
	msgs := []any{message{"user", th.Opening}}
	for _, t := range th.Turns[:pos] {
		var content []any
		if s := text(t.Text); s != "" {
			content = append(content, map[string]any{"type": "text", "text": s})
		}
		var results []any
		for _, c := range t.Calls {
			content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Input)})
			results = append(results, map[string]any{"type": "tool_result", "tool_use_id": c.ID, "content": text(c.Output)})
		}
		msgs = append(msgs, message{"assistant", content})
		if len(results) > 0 {
			msgs = append(msgs, message{"user", results})
		}
	}
	body, err := json.Marshal(map[string]any{"model": "m", "max_tokens": 1000, "messages": msgs})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// timedReader notes when the request's body has been read.
type timedReader struct {
	r    io.Reader
	read time.Time
}

func (t *timedReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err == io.EOF && t.read.IsZero() {
		t.read = time.Now()
	}
	return n, err
}

// timedWriter notes when the answer's first byte is written.
type timedWriter struct {
	*httptest.ResponseRecorder
	first time.Time
}

func (t *timedWriter) Write(p []byte) (int, error) {
	if t.first.IsZero() {
		t.first = time.Now()
	}
	return t.ResponseRecorder.Write(p)
}
