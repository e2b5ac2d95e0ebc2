package serve

import (
	"bufio"
	"bytes"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"
)

// TestSDKs drives the vendors' own SDKs (@anthropic-ai/sdk, openai,
// @google/genai, at the versions scripts/agents.txt pins, installed by
// scripts/agents-install.sh) against a served pack: each turn streamed
// and not, its thinking, tool call and usage, and a miss as the SDK's
// own API error.
func TestSDKs(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the SDK tests need node and scripts/agents-install.sh")
	}
	dir := os.Getenv("CTX_AGENTS")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skip("no cache directory for the SDKs")
		}
		dir = filepath.Join(cache, "ctx", "agents")
	}
	for _, p := range []string{"@anthropic-ai/sdk", "openai", "@google/genai"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p, "package.json")); err != nil {
			t.Skipf("%s is not installed in %s: run scripts/agents-install.sh", p, dir)
		}
	}
	r, _ := load(t, session)
	srv := httptest.NewServer(New(r, Options{Workspace: "/tmp/ws"}))
	defer srv.Close()

	// The script runs beside the SDKs' node_modules, as ESM resolves it.
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/sdk.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "sdk.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "sdk.mjs")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "BASE="+srv.URL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node sdk.mjs: %v\n%s\n%s", err, out, stderr.Bytes())
	}
	got := map[string]gjson.Result{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		v := gjson.ParseBytes(sc.Bytes())
		got[v.Get("name").String()] = v
	}
	check := func(name, path, want string) {
		t.Helper()
		v, ok := got[name]
		if !ok {
			t.Errorf("%s: no result", name)
			return
		}
		if g := v.Get(path).String(); g != want {
			t.Errorf("%s: %s = %q, want %q", name, path, g, want)
		}
	}
	for _, n := range []string{"anthropic", "anthropic-stream"} {
		check(n, "content.0.type", "thinking")
		check(n, "content.0.thinking", "A file is wanted.")
		check(n, "content.0.signature", "sig-1")
		check(n, "content.1.text", "I'll create it.")
		check(n, "content.2.name", "Write")
		check(n, "content.2.id", "toolu_1")
		check(n, "content.2.input.file_path", "/tmp/ws/hello.txt")
		check(n, "stop", "tool_use")
		check(n, "usage.input_tokens", "100")
		check(n, "usage.output_tokens", "20")
		check(n, "usage.cache_read_input_tokens", "5")
	}
	check("anthropic-miss", "error", "400")
	for _, n := range []string{"responses", "responses-stream"} {
		check(n, "text", "I'll create it.")
		check(n, `output.#(type=="reasoning").summary.0.text`, "A file is wanted.")
		check(n, `output.#(type=="function_call").call_id`, "toolu_1")
		check(n, `output.#(type=="function_call").arguments`, `{"content":"hello\n","file_path":"/tmp/ws/hello.txt"}`)
		check(n, "usage.input_tokens", "100")
		check(n, "usage.input_tokens_details.cached_tokens", "5")
	}
	for _, n := range []string{"chat", "chat-stream"} {
		check(n, "message.content", "I'll create it.")
		check(n, "message.tool_calls.0.id", "toolu_1")
		check(n, "message.tool_calls.0.function.name", "Write")
		check(n, "finish", "tool_calls")
		check(n, "usage.prompt_tokens", "100")
		check(n, "usage.completion_tokens", "20")
	}
	check("chat-miss", "error", "400")
	for _, n := range []string{"gemini", "gemini-stream"} {
		check(n, "parts.0.thought", "true")
		check(n, "parts.0.text", "A file is wanted.")
		check(n, "parts.1.text", "I'll create it.")
		check(n, "parts.2.functionCall.name", "Write")
		check(n, "parts.2.functionCall.args.file_path", "/tmp/ws/hello.txt")
	}
	check("gemini", "usage.promptTokenCount", "100")
	check("gemini-miss", "error", "400")
	if t.Failed() {
		t.Logf("the SDKs said:\n%s\n%s", out, stderr.Bytes())
	}
}
