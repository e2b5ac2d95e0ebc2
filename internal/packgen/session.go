package packgen

import (
	"fmt"
	"strings"
)

// ClaudeSession generates a Claude Code transcript of at least size bytes
// shaped like real ones: every line carries the session fields and cwd;
// assistant messages are split over thinking, text and tool_use lines
// sharing message.id; tool results come back with a toolUseResult copy;
// progress lines sit in between; file contents mention paths under cwd.
// Every turn reads the same file and gets the same test output.
func ClaudeSession(size int) []byte { return claudeSession(size, false) }

// ClaudeSessionVaried is ClaudeSession with what a real session's tools
// return: the file read and the test output differ from turn to turn (a
// line of the file the session edits, the tests' times), so that each
// tool output is an object of its own, as in a real session.
func ClaudeSessionVaried(size int) []byte { return claudeSession(size, true) }

func claudeSession(size int, varied bool) []byte {
	const cwd = "/home/dev/projects/service"
	var sb strings.Builder
	sb.Grow(size + 64<<10)
	same := strings.Repeat("func handler(w http.ResponseWriter, r *http.Request) { // see "+cwd+"/internal/api/routes.go\n", 90)
	common := func(uuid, parent string, ts int) string {
		return fmt.Sprintf(`"parentUuid":%q,"isSidechain":false,"userType":"external","cwd":%q,"sessionId":"9c1f4a52-7d1e-4c55-9e0b-0f6f1b2d3e4f","version":"2.1.38","gitBranch":"main","uuid":%q,"timestamp":"2026-02-10T%02d:%02d:%02d.%03dZ"`,
			parent, cwd, uuid, ts/3600%24, ts/60%60, ts%60, ts%1000)
	}
	for turn, ts, prev := 0, 0, "root"; sb.Len() < size; turn++ {
		id := func(k string) string { return fmt.Sprintf("%s-%08d", k, turn) }
		line := func(uuid, body string) {
			ts++
			fmt.Fprintf(&sb, "{%s,%s}\n", common(uuid, prev, ts), body)
			prev = uuid
		}
		file, out := same, strings.Repeat("ok  \texample.com/service/internal/api\t0.012s\n", 30)
		if varied {
			file = fmt.Sprintf("// handler revision %d\n", turn) + same[:len(same)-len(same)/90]
			var o strings.Builder
			for k := range 30 {
				fmt.Fprintf(&o, "ok  \texample.com/service/internal/api%d\t0.%03ds\n", k, (turn*31+k*7)%1000)
			}
			out = o.String()
		}
		msg := fmt.Sprintf("msg_%024d", turn)
		usage := `"usage":{"input_tokens":3,"cache_creation_input_tokens":1234,"cache_read_input_tokens":45678,"output_tokens":210,"service_tier":"standard"}`
		line(id("u"), fmt.Sprintf(`"type":"user","message":{"role":"user","content":"Step %d: look at %s/internal/api/routes.go and fix the handler"},"permissionMode":"default"`, turn, cwd))
		line(id("a1"), fmt.Sprintf(`"type":"assistant","requestId":"req_%d","message":{"model":"claude-opus-4-6","id":%q,"type":"message","role":"assistant","content":[{"type":"thinking","thinking":%q,"signature":"%s"}],"stop_reason":null,%s}`,
			turn, msg, strings.Repeat("I should read the routes first and then run the tests. ", 12), strings.Repeat("EsMCCkYICxgCKkDuNR00", 20), usage))
		line(id("a2"), fmt.Sprintf(`"type":"assistant","requestId":"req_%d","message":{"model":"claude-opus-4-6","id":%q,"type":"message","role":"assistant","content":[{"type":"text","text":"Let me read the routes file."}],"stop_reason":null,%s}`, turn, msg, usage))
		line(id("a3"), fmt.Sprintf(`"type":"assistant","requestId":"req_%d","message":{"model":"claude-opus-4-6","id":%q,"type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_r%d","name":"Read","input":{"file_path":"%s/internal/api/routes.go"}}],"stop_reason":"tool_use",%s}`, turn, msg, turn, cwd, usage))
		line(id("p"), fmt.Sprintf(`"type":"progress","data":{"type":"hook_progress","hookEvent":"PreToolUse","hookName":"PreToolUse:Read","command":"guard.sh"},"toolUseID":"toolu_r%d","parentToolUseID":"toolu_r%d"`, turn, turn))
		line(id("r1"), fmt.Sprintf(`"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_r%d","type":"tool_result","content":%q}]},"toolUseResult":{"type":"text","file":{"filePath":"%s/internal/api/routes.go","content":%q,"numLines":90}},"sourceToolAssistantUUID":%q`,
			turn, file, cwd, file, id("a3")))
		line(id("a4"), fmt.Sprintf(`"type":"assistant","requestId":"req_%db","message":{"model":"claude-opus-4-6","id":"%s_b","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_b%d","name":"Bash","input":{"command":"cd %s && go test ./...","description":"Run tests"}}],"stop_reason":"tool_use",%s}`, turn, msg, turn, cwd, usage))
		line(id("r2"), fmt.Sprintf(`"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_b%d","type":"tool_result","content":%q,"is_error":false}]},"toolUseResult":{"stdout":%q,"stderr":"","interrupted":false,"isImage":false}`, turn, out, out))
		line(id("a5"), fmt.Sprintf(`"type":"assistant","requestId":"req_%dc","message":{"model":"claude-opus-4-6","id":"%s_c","type":"message","role":"assistant","content":[{"type":"text","text":"Tests pass after step %d."}],"stop_reason":"end_turn",%s}`, turn, msg, turn, usage))
	}
	return []byte(sb.String())
}
