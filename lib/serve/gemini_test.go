package serve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// geminiLog is a Gemini CLI session that ran a failing command: the
// shell tool's answer ends with the process group, which differs from
// run to run.
const geminiLog = `{"created":"2026-11-01T10:00:00Z","model":{"identifier":"gemini-2.5-pro"},
"prompts":[{"role":"user","content":"Run false."}],
"steps":[
 {"index":0,"type":"llm_call","output":"Running it.","reasoning":"The user wants false run.","deterministic":false,"usage":{"input_tokens":100,"output_tokens":20,"reasoning_tokens":5}},
 {"index":1,"type":"tool_call","tool":"run_shell_command","parameters":{"command":"false"},"deterministic":false,"metadata":{"call_id":"call_s1"},
  "output":"<untrusted_context>\nOutput: (empty)\nExit Code: 1\nProcess Group PGID: 4242\n</untrusted_context>","error":{"exit_code":1}},
 {"index":2,"type":"llm_call","output":"It failed.","deterministic":false,"usage":{"input_tokens":150,"output_tokens":10}}],
"metadata":{"session":{"cwd":"/home/dev/proj"}}}`

func geminiServer(t *testing.T) (*Server, *[]Event) {
	t.Helper()
	s, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l, err := execlog.Parse([]byte(geminiLog), execlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := l.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Load(s, []*manifest.Manifest{m})
	if err != nil {
		t.Fatal(err)
	}
	var events []Event
	return New(rec, Options{Workspace: t.TempDir(), Event: func(e Event) { events = append(events, e) }}), &events
}

func geminiPost(t *testing.T, srv *Server, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/v1beta/models/gemini-2.5-pro:generateContent", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GeminiCLI/0.61.0 (linux; x64)")
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	return w
}

// TestGeminiShellPGID: the Gemini CLI's run_shell_command answer matches
// the recording whatever process group the command ran in this time.
func TestGeminiShellPGID(t *testing.T) {
	t.Parallel()
	srv, events := geminiServer(t)
	first := geminiPost(t, srv, `{"contents":[{"role":"user","parts":[{"text":"Run false."}]}]}`)
	if first.Code != http.StatusOK {
		t.Fatalf("first turn: %d %s", first.Code, first.Body)
	}
	parts := gjson.Get(first.Body.String(), "candidates.0.content.parts")
	if parts.Get("0.thought").Bool() != true || parts.Get("0.text").String() != "The user wants false run." ||
		parts.Get("1.text").String() != "Running it." || parts.Get("2.functionCall.id").String() != "call_s1" {
		t.Errorf("first turn's parts: %s", parts.Raw)
	}
	for _, tc := range []struct {
		pgid string
		want int
	}{{"98765", http.StatusOK}, {"98765 extra", http.StatusBadRequest}} {
		pgid, want := tc.pgid, tc.want
		second := geminiPost(t, srv, `{"contents":[{"role":"user","parts":[{"text":"Run false."}]},
{"role":"model","parts":[{"text":"Running it."},{"functionCall":{"id":"call_s1","name":"run_shell_command","args":{"command":"false"}}}]},
{"role":"user","parts":[{"functionResponse":{"id":"call_s1","name":"run_shell_command","response":{"output":"<untrusted_context>\nOutput: (empty)\nExit Code: 1\nProcess Group PGID: `+pgid+`\n</untrusted_context>"}}}]}]}`)
		if second.Code != want {
			t.Errorf("PGID %s: %d %s, want %d", pgid, second.Code, second.Body, want)
		}
	}
	if len(*events) != 3 || (*events)[1].Match != "exact" || (*events)[2].Match != "miss" {
		t.Errorf("events %+v", *events)
	}
}
