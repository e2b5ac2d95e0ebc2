package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// session is a small recorded session: a prompt, a turn with thinking
// that writes a file, its result, and a last answer.
const session = `{
  "created": "2026-11-01T10:00:00Z",
  "model": {"identifier": "claude-test"},
  "prompts": [{"role": "user", "content": "Create hello.txt."}],
  "steps": [
    {"index": 0, "type": "llm_call", "output": "I'll create it.", "reasoning": "A file is wanted.", "deterministic": false,
     "usage": {"input_tokens": 100, "output_tokens": 20, "cache_read_tokens": 5},
     "metadata": {"content": [{"type": "thinking", "signature": "sig-1"}]}},
    {"index": 1, "type": "tool_call", "tool": "Write", "parameters": {"file_path": "hello.txt", "content": "hello\n"},
     "output": "File created successfully at: /home/dev/proj/hello.txt", "deterministic": false,
     "metadata": {"call_id": "toolu_1"}},
    {"index": 2, "type": "llm_call", "output": "Done.", "deterministic": false, "usage": {"input_tokens": 150, "output_tokens": 2}}
  ],
  "metadata": {"session": {"cwd": "/home/dev/proj"}}
}`

func load(t testing.TB, logs ...string) (*Recording, []*manifest.Manifest) {
	t.Helper()
	s, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var ms []*manifest.Manifest
	for _, l := range logs {
		lg, err := execlog.Parse([]byte(l), execlog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := lg.Pack(s)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	r, err := Load(s, ms)
	if err != nil {
		t.Fatal(err)
	}
	return r, ms
}

// post sends body to the server and returns the status and answer.
func post(t testing.TB, h http.Handler, path, ua, body string) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("User-Agent", ua)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, b
}

func anthropicRequest(stream bool, msgs ...string) string {
	return `{"model":"claude-test","stream":` + map[bool]string{true: "true", false: "false"}[stream] +
		`,"system":[{"type":"text","text":"You are helpful."}],"messages":[` + strings.Join(msgs, ",") + `]}`
}

const (
	firstUser   = `{"role":"user","content":[{"type":"text","text":"<system-reminder>\nToday is Tuesday.\n</system-reminder>"},{"type":"text","text":"Create hello.txt."}]}`
	firstAnswer = `{"role":"assistant","content":[{"type":"thinking","thinking":"A file is wanted.","signature":"sig-1"},{"type":"text","text":"I'll create it."},{"type":"tool_use","id":"toolu_1","name":"Write","input":{"file_path":"/tmp/ws/hello.txt","content":"hello\n"}}]}`
)

func toolResult(text string) string {
	b, _ := json.Marshal(text)
	return `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":` + string(b) + `}]}`
}

func TestAnthropicTurns(t *testing.T) {
	t.Parallel()
	r, ms := load(t, session)
	var events []Event
	srv := New(r, Options{Workspace: "/tmp/ws", Event: func(e Event) { events = append(events, e) }})

	code, body := post(t, srv, "/v1/messages", "claude-cli/2.1.328", anthropicRequest(false, firstUser))
	if code != 200 {
		t.Fatalf("first turn: status %d: %s", code, body)
	}
	a := gjson.ParseBytes(body)
	for path, want := range map[string]string{
		"content.0.type": "thinking", "content.0.thinking": "A file is wanted.", "content.0.signature": "sig-1",
		"content.1.text": "I'll create it.", "content.2.type": "tool_use", "content.2.id": "toolu_1",
		"content.2.input.file_path": "/tmp/ws/hello.txt", "stop_reason": "tool_use", "model": "claude-test",
		"usage.input_tokens": "100", "usage.cache_read_input_tokens": "5", "usage.output_tokens": "20",
	} {
		if got := a.Get(path).String(); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	// The tool's answer names the replay's directory: it reads as the
	// session's.
	code, body = post(t, srv, "/v1/messages", "claude-cli/2.1.328",
		anthropicRequest(false, firstUser, firstAnswer, toolResult("File created successfully at: /tmp/ws/hello.txt")))
	if code != 200 || gjson.GetBytes(body, "content.0.text").String() != "Done." || gjson.GetBytes(body, "stop_reason").String() != "end_turn" {
		t.Fatalf("second turn: status %d: %s", code, body)
	}
	if gjson.GetBytes(body, "id").String() == a.Get("id").String() {
		t.Errorf("two turns answered with one message id %s", a.Get("id"))
	}
	// The same request again is a retry of step 2.
	post(t, srv, "/v1/messages", "claude-cli/2.1.328",
		anthropicRequest(false, firstUser, firstAnswer, toolResult("File created successfully at: /tmp/ws/hello.txt")))
	if len(events) != 3 {
		t.Fatalf("%d events, want 3", len(events))
	}
	for i, want := range []struct {
		match string
		step  int
	}{{"exact", 0}, {"exact", 2}, {"retry", 2}} {
		e := events[i]
		if e.Match != want.match || e.Step == nil || *e.Step != want.step || e.Pack != ms[0].Hash.String() {
			t.Errorf("event %d: %+v, want %s at step %d", i, e, want.match, want.step)
		}
	}
}

func TestMiss(t *testing.T) {
	t.Parallel()
	r, _ := load(t, session)
	var events []Event
	srv := New(r, Options{Workspace: "/tmp/ws", Event: func(e Event) { events = append(events, e) }})
	code, body := post(t, srv, "/v1/messages", "claude-cli/2.1.328",
		anthropicRequest(false, firstUser, firstAnswer, toolResult("File created successfully at: /tmp/ws/hello.txt\nand more")))
	if code != 400 || gjson.GetBytes(body, "type").String() != "error" {
		t.Fatalf("status %d: %s", code, body)
	}
	e := events[0]
	if e.Match != "miss" || e.Difference == nil || *e.Step != 2 {
		t.Fatalf("event %+v", e)
	}
	if want := "tool result toolu_1 (step 1), line 2"; e.Difference.Where != want || e.Difference.Got != "and more" {
		t.Errorf("difference %+v, want at %q", e.Difference, want)
	}
	// Another opening is no thread of the recording.
	post(t, srv, "/v1/messages", "claude-cli/2.1.328", anthropicRequest(false, `{"role":"user","content":"Something else."}`))
	if e := events[1]; e.Match != "miss" || e.Step != nil || e.Difference.Where != "the first user message" {
		t.Errorf("event %+v", e)
	}
}

// TestStreams checks that each wire format's stream, assembled as a
// recording proxy assembles it, says what its answer without streaming
// says.
func TestStreams(t *testing.T) {
	t.Parallel()
	r, _ := load(t, session)
	srv := New(r, Options{Workspace: "/tmp/ws"})
	cases := []struct {
		api, path, ua, plain, stream string
	}{
		{"anthropic", "/v1/messages", "claude-cli/x", anthropicRequest(false, firstUser), anthropicRequest(true, firstUser)},
		{"openai-responses", "/v1/responses", "codex_exec/x",
			`{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Create hello.txt."}]}]}`,
			`{"model":"m","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Create hello.txt."}]}]}`},
		{"openai-chat", "/v1/chat/completions", "opencode/x",
			`{"model":"m","messages":[{"role":"user","content":"Create hello.txt."}]}`,
			`{"model":"m","stream":true,"messages":[{"role":"user","content":"Create hello.txt."}]}`},
		{"gemini", "/v1beta/models/m:generateContent", "GeminiCLI/x",
			`{"contents":[{"role":"user","parts":[{"text":"Create hello.txt."}]}]}`, ""},
	}
	for _, c := range cases {
		t.Run(c.api, func(t *testing.T) {
			t.Parallel()
			code, plain := post(t, srv, c.path, c.ua, c.plain)
			if code != 200 {
				t.Fatalf("status %d: %s", code, plain)
			}
			path, body := c.path, c.stream
			if c.api == "gemini" {
				path, body = "/v1beta/models/m:streamGenerateContent", c.plain
			}
			code, stream := post(t, srv, path+"?alt=sse", c.ua, body)
			if code != 200 {
				t.Fatalf("stream status %d: %s", code, stream)
			}
			got, err := Assemble(c.api, stream)
			if err != nil {
				t.Fatalf("assembling %s: %v", stream, err)
			}
			if !sameJSON(t, got, plain) {
				t.Errorf("streamed:\n%s\nplain:\n%s", got, plain)
			}
		})
	}
}

// sameJSON compares two JSON documents as values, leaving out what a
// stream assembles differently by design (Chat Completions' null
// content beside tool calls).
func sameJSON(t *testing.T, a, b []byte) bool {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func TestAbsolute(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"file_path":"a/b.go","content":"x/y"}`:     `{"file_path":"/ws/a/b.go","content":"x/y"}`,
		`{"path":".","pattern":"*.go"}`:              `{"path":"/ws","pattern":"*.go"}`,
		`{"paths":["a","/abs","~/h"],"cmd":"cat a"}`: `{"paths":["/ws/a","/abs","~/h"],"cmd":"cat a"}`,
		// As the importer (lib/importer/paths.go), not inside lists of
		// objects.
		`{"edits":[{"file_path":"c.txt","old":"1"}],"n":3}`:      `{"edits":[{"file_path":"c.txt","old":"1"}],"n":3}`,
		`{"url":"https://x.test/a","workdir":"sub","big":1e400}`: `{"url":"https://x.test/a","workdir":"/ws/sub","big":1e400}`,
	} {
		if got := string(absolute(gjson.Parse(in), "/ws", false)); got != want {
			t.Errorf("absolute(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestSide(t *testing.T) {
	t.Parallel()
	r, _ := load(t, session)
	var events []Event
	srv := New(r, Options{Event: func(e Event) { events = append(events, e) }})
	code, body := post(t, srv, "/v1/chat/completions", "opencode/1.18.33",
		`{"model":"m","messages":[{"role":"system","content":"You are a title generator. You output ONLY a thread title."},{"role":"user","content":"Generate a title"}]}`)
	if code != 200 || gjson.GetBytes(body, "choices.0.message.content").String() != "Create hello.txt." || events[0].Match != "side" {
		t.Errorf("status %d, %s, %+v", code, body, events)
	}
	code, body = post(t, srv, "/v1/messages/count_tokens", "claude-cli/x", anthropicRequest(false, firstUser))
	if code != 200 || gjson.GetBytes(body, "input_tokens").Int() <= 0 {
		t.Errorf("count_tokens: %d %s", code, body)
	}
	req := httptest.NewRequest(http.MethodGet, "/v1/models", nil)
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	if gjson.GetBytes(w.Body.Bytes(), "data.0.id").String() != "claude-test" {
		t.Errorf("models: %s", w.Body.Bytes())
	}
}

func TestBodyBound(t *testing.T) {
	t.Parallel()
	r, _ := load(t, session)
	srv := New(r, Options{})
	body := `{"messages":[{"role":"user","content":"` + strings.Repeat("a", MaxBody) + `"}]}`
	code, _ := post(t, srv, "/v1/messages", "", body)
	if code != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", code)
	}
}

// TestUpstream forks onto a second served pack from step 2, and forwards
// a miss.
func TestUpstream(t *testing.T) {
	t.Parallel()
	alt := strings.Replace(session, `"output": "Done."`, `"output": "All done, from the other model."`, 1)
	upRec, _ := load(t, alt)
	up := httptest.NewServer(New(upRec, Options{Workspace: "/tmp/ws"}))
	defer up.Close()
	r, _ := load(t, session)
	from := 2
	var recorded []Exchange
	srv := New(r, Options{Workspace: "/tmp/ws", Upstream: mustURL(t, up.URL), From: &from,
		Record: func(x Exchange) { recorded = append(recorded, x) }})
	_, body := post(t, srv, "/v1/messages", "claude-cli/x", anthropicRequest(false, firstUser))
	if gjson.GetBytes(body, "content.1.text").String() != "I'll create it." {
		t.Fatalf("step 0 was not the recording's: %s", body)
	}
	_, body = post(t, srv, "/v1/messages", "claude-cli/x",
		anthropicRequest(true, firstUser, firstAnswer, toolResult("File created successfully at: /tmp/ws/hello.txt")))
	asm, err := Assemble("anthropic", body)
	if err != nil || gjson.GetBytes(asm, "content.0.text").String() != "All done, from the other model." {
		t.Fatalf("step 2 was not the upstream's: %s (%v)", body, err)
	}
	if len(recorded) != 1 || gjson.GetBytes(recorded[0].Response, "content.0.text").String() != "All done, from the other model." {
		t.Errorf("recorded %+v", recorded)
	}
}

func mustURL(t testing.TB, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// compacted is session compacted after its first prompt (its
// compaction summary a harness prompt), then given a second prompt.
var compacted = strings.NewReplacer(
	`"prompts": [{"role": "user", "content": "Create hello.txt."}],`,
	`"prompts": [{"role": "user", "content": "Create hello.txt."},
	  {"role": "harness", "content": "This session is being continued from a previous conversation that ran out of context.\n\nSummary:\nhello.txt was created.\n\nIf you need specific details from before compaction, read the full transcript at: /h/s.jsonl"},
	  {"role": "user", "content": "Now say bye."}],`,
	`"metadata": {"session": {"cwd": "/home/dev/proj"}}`,
	`"metadata": {"session": {"cwd": "/home/dev/proj"}, "prompts": [{"index": 1, "harness": "compact-summary"}]}`,
	`{"index": 2, "type": "llm_call", "output": "Done."`,
	`{"index": 2, "type": "llm_call", "output": "Done.", "deterministic": false}, {"index": 3, "type": "llm_call", "output": "Bye."`,
).Replace(session)

// TestCompaction: Claude Code's request for a compaction summary is
// answered with the recorded summary, as the model gave it; the
// compacted conversation that follows continues the thread.
func TestCompaction(t *testing.T) {
	t.Parallel()
	r, _ := load(t, compacted)
	var events []Event
	srv := New(r, Options{Workspace: "/tmp/ws", Event: func(e Event) { events = append(events, e) }})
	instruction := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"File created successfully at: /tmp/ws/hello.txt"},{"type":"text","text":"CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\nYour task is to create a detailed summary of the conversation so far."}]}`
	code, body := post(t, srv, "/v1/messages", "claude-cli/2.1.328", anthropicRequest(false, firstUser, firstAnswer, instruction))
	if want := "<summary>\nhello.txt was created.\n</summary>"; code != 200 || gjson.GetBytes(body, "content.0.text").String() != want || events[0].Match != "side" {
		t.Errorf("the compaction: status %d, %s, %+v; want the text %q", code, body, events, want)
	}
	// After it: the summary, the turns kept, the next prompt.
	summary := `{"role":"user","content":"This session is being continued from a previous conversation that ran out of context.\n\nSummary:\nhello.txt was created.\n\nIf you need specific details from before compaction, read the full transcript at: /h2/t.jsonl"}`
	code, body = post(t, srv, "/v1/messages", "claude-cli/2.1.328", anthropicRequest(false, summary,
		`{"role":"assistant","content":[{"type":"text","text":"Done."}]}`, `{"role":"user","content":"Now say bye."}`))
	if code != 200 || gjson.GetBytes(body, "content.0.text").String() != "Bye." || *events[1].Step != 3 {
		t.Errorf("after the compaction: status %d, %s, %+v", code, body, events[1])
	}
	// With no summary recorded, the compaction is a miss.
	r, _ = load(t, session)
	events = nil
	srv = New(r, Options{Workspace: "/tmp/ws", Event: func(e Event) { events = append(events, e) }})
	if code, _ := post(t, srv, "/v1/messages", "claude-cli/2.1.328", anthropicRequest(false, firstUser, firstAnswer, instruction)); code != 400 || events[0].Match != "miss" {
		t.Errorf("no summary recorded: status %d, %+v", code, events)
	}
}
