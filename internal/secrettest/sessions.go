package secrettest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ByName returns the secret of corpus named name.
func ByName(corpus []Secret, name string) string {
	for _, s := range corpus {
		if s.Name == name {
			return s.Value
		}
	}
	panic("secrettest: no secret " + name)
}

// Files returns the files a test plants, by name: a Claude Code
// transcript (cc.jsonl), a Codex rollout (codex.jsonl), and an execution
// log (files.json) whose inputs are files (.env, deploy/id_rsa,
// deploy/id_ed25519), and one (keys.json) holding secrets as member
// names, and two (escaped.json, encoded.json) holding secrets in a JSON
// escaping other than Go's and percent-encoded. Each secret of corpus is in at least one of them:
// in a prompt, a tool parameter, a Bash output, a Read result, a
// JSON-escaped multi-line value and an input file.
func Files(corpus []Secret) map[string]string {
	v := func(name string) string { return ByName(corpus, name) }
	env := "# production\nSTRIPE_KEY=" + v("stripe") + "\nSLACK_BOT_TOKEN=" + v("slack") +
		"\nOPENAI_API_KEY=" + v("openai") + "\nSESSION_JWT=" + v("jwt") + "\nDATABASE_URL=" + v("postgres-url") + "\n"
	cfg, _ := json.Marshal(map[string]string{"host": "deploy.internal", "ssh_key": v("openssh")})

	var cc []string
	rec := func(m map[string]any) {
		m["sessionId"], m["cwd"], m["version"] = "s-secrets", "/home/dev/app", "2.0.1"
		b, _ := json.Marshal(m)
		cc = append(cc, string(b))
	}
	n := 0
	ts := func() string {
		n++
		return "2026-04-01T10:00:" + string(rune('0'+n/10)) + string(rune('0'+n%10)) + ".000Z"
	}
	user := func(content any) {
		rec(map[string]any{"type": "user", "uuid": "u" + ts()[17:19], "timestamp": ts(), "message": map[string]any{"role": "user", "content": content}})
	}
	tool := func(id, name string, input map[string]any, result string) {
		rec(map[string]any{"type": "assistant", "uuid": "a" + id, "timestamp": ts(), "message": map[string]any{
			"id": "msg_" + id, "model": "claude-sonnet-4-5", "role": "assistant", "type": "message",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": name, "input": input}}}})
		user([]any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_" + id, "content": result}})
	}
	user("Deploy the app. My key is " + v("anthropic") + " if you need it.")
	tool("1", "Bash", map[string]any{"command": "curl -sH 'Authorization: token " + v("github") + "' https://api.github.com/user"}, `{"login":"dev"}`)
	tool("2", "Bash", map[string]any{"command": "printenv | grep AWS"}, "AWS_ACCESS_KEY_ID="+v("aws")+"\nAWS_REGION=eu-west-1\n")
	tool("3", "Read", map[string]any{"file_path": "/home/dev/app/.env"}, env)
	tool("4", "Read", map[string]any{"file_path": "/home/dev/app/deploy/id_rsa"}, v("pem"))
	tool("5", "Bash", map[string]any{"command": "cat deploy/config.json"}, string(cfg))

	var cx []string
	cxrec := func(typ string, payload map[string]any) {
		b, _ := json.Marshal(map[string]any{"timestamp": "2026-04-01T11:00:00.000Z", "type": typ, "payload": payload})
		cx = append(cx, string(b))
	}
	args, _ := json.Marshal(map[string]any{"cmd": "git clone https://oauth2:" + v("gitlab") + "@gitlab.example.com/team/app.git", "workdir": "/home/dev/app"})
	cxrec("session_meta", map[string]any{"id": "0199-secrets", "timestamp": "2026-04-01T11:00:00.000Z", "cwd": "/home/dev/app", "originator": "codex_cli_rs", "cli_version": "0.63.0", "source": "cli", "model_provider": "openai"})
	cxrec("turn_context", map[string]any{"cwd": "/home/dev/app", "approval_policy": "on-request", "sandbox_policy": map[string]any{"type": "workspace-write"}, "model": "gpt-5.1-codex", "summary": "auto"})
	cxrec("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "Clone it with token " + v("gitlab") + " and print the deploy key"}}})
	cxrec("response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": string(args), "call_id": "call_1"})
	cxrec("response_item", map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "Process exited with code 0\nOutput:\nCloning into 'app'...\n"})
	cxrec("response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd": "cat deploy/id_rsa"}`, "call_id": "call_2"})
	cxrec("response_item", map[string]any{"type": "function_call_output", "call_id": "call_2", "output": "Process exited with code 0\nOutput:\n" + v("pem")})

	log, _ := json.Marshal(map[string]any{
		"created": "2026-04-01T12:00:00Z",
		"model":   map[string]any{"identifier": "m"},
		"inputs": []any{
			map[string]any{"name": ".env", "path": ".env"},
			map[string]any{"name": "deploy/id_rsa", "path": "deploy/id_rsa"},
			map[string]any{"name": "deploy/id_ed25519", "path": "deploy/id_ed25519"},
		},
		"steps": []any{map[string]any{"index": 0, "type": "tool_call", "tool": "Bash", "parameters": map[string]any{"command": "aws s3 ls --profile " + v("aws")}, "output": "ok\n", "deterministic": false}},
	})
	// Secrets as member names: a token as a model parameter's name, an
	// access key id as the name of an environment entry.
	keys, _ := json.Marshal(map[string]any{
		"created":  "2026-04-01T12:00:00Z",
		"model":    map[string]any{"identifier": "m", "parameters": map[string]any{v("github"): true, "temperature": 0}},
		"metadata": map[string]any{"env": map[string]any{v("aws"): "set", "HOME": "/home/dev"}},
		"steps":    []any{},
	})
	// Secrets in another JSON escaping than Go's, in a tool's JSON
	// result: a URL's slashes escaped as PHP writes them (\/), and a
	// letter of a token as a \u escape. And one percent-encoded, which
	// gitleaks decodes but no rewrite of ctx's covers.
	gh := v("github")
	php := `{"dsn":"https:\/\/deploy:` + v("postgres-url")[len("postgres://app:"):strings.Index(v("postgres-url"), "@")] +
		`@db.internal\/app","token":"` + gh[:6] + fmt.Sprintf(`\u%04X`, gh[6]) + gh[7:] + `"}`
	var pct strings.Builder
	for i := range len(gh) {
		fmt.Fprintf(&pct, "%%%02X", gh[i])
	}
	step := func(output string) string {
		b, _ := json.Marshal(map[string]any{
			"created": "2026-04-01T12:00:00Z",
			"model":   map[string]any{"identifier": "m"},
			"steps":   []any{map[string]any{"index": 0, "type": "tool_call", "tool": "http", "parameters": map[string]any{"url": "/config"}, "output": output, "deterministic": false}},
		})
		return string(b)
	}
	return map[string]string{
		"escaped.json":      step(php),
		"encoded.json":      step("GET /login?next=%2Fhome&token=" + pct.String() + " HTTP/1.1\n"),
		"keys.json":         string(keys),
		"cc.jsonl":          strings.Join(cc, "\n") + "\n",
		"codex.jsonl":       strings.Join(cx, "\n") + "\n",
		"files.json":        string(log),
		".env":              env,
		"deploy/id_rsa":     v("pem"),
		"deploy/id_ed25519": v("openssh"),
	}
}
