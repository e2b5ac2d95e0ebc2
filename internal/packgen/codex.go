package packgen

import (
	"fmt"
	"strings"
	"time"
)

// CodexSession generates a Codex CLI rollout
// (~/.codex/sessions/…/rollout-*.jsonl) of at least size bytes, shaped
// like the ones current Codex versions write: a session_meta line with
// the base instructions, Codex's own context items (permissions,
// AGENTS.md, environment) once, then turns that each open with a
// task_started event and a turn_context line, hold the user's message
// (a response item and its user_message event), reasoning items
// (encrypted, with a summary, and their agent_reasoning event), a
// commentary message, an exec_command call that reads a file, an
// apply_patch custom tool call that edits it (with its patch_apply_end
// event), an exec_command call that runs the tests, the final answer
// and its agent_message event, a token_count event after every model
// response, and close with task_complete.
//
// As in a real session, what the tools return differs from turn to
// turn: the file read holds the line the previous turn patched, the
// tests' times change, and in every ninth turn a test fails (exit code
// 1; CodexFailEvery).
// The same size gives the same bytes.
func CodexSession(size int) []byte {
	g := newCodexGen()
	var sb strings.Builder
	sb.Grow(size + 64<<10)
	g.sb = &sb
	g.start()
	for turn := 0; sb.Len() < size; turn++ {
		g.turn(turn)
	}
	return []byte(sb.String())
}

// CodexFailEvery is how often a generated Codex turn's tests fail: the
// last of every CodexFailEvery turns (turns 8, 17, 26, … from 0).
const CodexFailEvery = 9

// CodexRoutes is the file each generated Codex turn reads and patches,
// relative to the session's working directory.
const CodexRoutes = "internal/api/routes.go"

const (
	codexCwd    = "/home/dev/projects/service"
	codexModel  = "gpt-5.4"
	codexRoutes = 100 // handlers in the file the session edits
)

// codexGen is the state of a rollout being generated: the clock, the
// token totals, the file the turns edit and a random stream for the
// opaque parts (encrypted reasoning, ids).
type codexGen struct {
	sb    *strings.Builder
	now   time.Time
	rand  uint64
	total codexUsage
	rev   []int // each handler's revision: the file's content
}

type codexUsage struct{ input, cached, output, reasoning int }

func newCodexGen() *codexGen {
	return &codexGen{
		now:  time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC),
		rand: 0x9e3779b97f4a7c15,
		rev:  make([]int, codexRoutes),
	}
}

// next returns the next number of a xorshift stream.
func (g *codexGen) next() uint64 {
	g.rand ^= g.rand << 13
	g.rand ^= g.rand >> 7
	g.rand ^= g.rand << 17
	return g.rand
}

// opaque returns n characters of base64 alphabet, as encrypted content
// and ids are.
func (g *codexGen) opaque(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	b := make([]byte, n)
	for i := 0; i < n; i += 10 {
		r := g.next()
		for j := i; j < min(i+10, n); j++ {
			b[j] = alphabet[r&63]
			r >>= 6
		}
	}
	return string(b)
}

// uuid returns a UUIDv7-shaped id, as Codex gives sessions and turns.
func (g *codexGen) uuid() string {
	r := g.next()
	return fmt.Sprintf("%08x-%04x-7%03x-8%03x-%012x", g.now.UnixMilli()>>16, g.now.UnixMilli()&0xffff, r&0xfff, r>>12&0xfff, r>>24&0xffffffffffff)
}

// line writes one rollout line of the given type, its payload raw JSON,
// ms milliseconds after the previous one.
func (g *codexGen) line(ms int, typ, payload string) {
	g.now = g.now.Add(time.Duration(ms) * time.Millisecond)
	fmt.Fprintf(g.sb, `{"timestamp":"%s","type":"%s","payload":%s}`+"\n", g.now.Format("2006-01-02T15:04:05.000Z"), typ, payload)
}

func (g *codexGen) event(ms int, payload string) { g.line(ms, "event_msg", payload) }
func (g *codexGen) item(ms int, payload string)  { g.line(ms, "response_item", payload) }

// callID returns a new call id.
func (g *codexGen) callID() string {
	return "call_" + g.opaque(24)
}

const codexInstructions = `You are a coding agent working in a terminal on the user's machine. You and the user share one workspace.

## How you work
- Read the code before you change it; keep changes small and focused on the task.
- Use apply_patch to edit files. Do not rewrite a file you only need to change in a few places.
- Run the project's tests after a change and report what they say, including failures you did not fix.
- Do not run commands that change state outside the workspace without asking.

## Answers
- Be concise. Lead with what changed and where, then what is left.
- Reference files by path relative to the working directory, with line numbers where they help.
`

const codexAgentsMD = `## Service conventions
- Handlers live in internal/api; every route is registered in routes.go with a timeout.
- Run go test ./... before you finish; go vet must be clean.
- Keep error messages lowercase.`

// start writes the session's opening lines.
func (g *codexGen) start() {
	id := g.uuid()
	g.line(0, "session_meta", fmt.Sprintf(`{"id":"%s","timestamp":"%s","cwd":%s,"originator":"codex_cli_rs","cli_version":"0.130.0","source":"cli","model_provider":"openai","base_instructions":{"text":%s},"git":{"commit_hash":"%s","branch":"main","repository_url":"git@example.com:dev/service.git"}}`,
		id, g.now.Format("2006-01-02T15:04:05.000Z"), jsonString(codexCwd), jsonString(codexInstructions), fmt.Sprintf("%016x%016x%08x", g.next(), g.next(), g.next()>>32)))
}

// turnContext is a turn_context payload of turn id.
func turnContext(id string) string {
	return fmt.Sprintf(`{"turn_id":"%s","cwd":%s,"current_date":"2026-05-04","timezone":"Etc/UTC","approval_policy":"on-request","sandbox_policy":{"type":"workspace-write","writable_roots":[],"network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":false},"model":"%s","personality":"pragmatic","collaboration_mode":{"mode":"default","settings":{"model":"%s","reasoning_effort":"medium","developer_instructions":null}},"effort":"medium","summary":"auto","user_instructions":%s,"truncation_policy":{"mode":"tokens","limit":10000}}`,
		id, jsonString(codexCwd), codexModel, codexModel, jsonString(codexAgentsMD))
}

// message is a message item of role holding one text block of the given
// type, with its phase when not empty.
func message(role, typ, text, phase string) string {
	p := ""
	if phase != "" {
		p = `,"phase":"` + phase + `"`
	}
	return fmt.Sprintf(`{"type":"message","role":"%s","content":[{"type":"%s","text":%s}]%s}`, role, typ, jsonString(text), p)
}

// reasoning is a reasoning item: its summary, and encrypted content.
func (g *codexGen) reasoning(summary string, n int) string {
	return fmt.Sprintf(`{"type":"reasoning","summary":[{"type":"summary_text","text":%s}],"content":null,"encrypted_content":"gAAAAA%s"}`, jsonString(summary), g.opaque(n))
}

// tokenCount is a token_count event after a model response of the
// given counts, which it adds to the session's totals.
func (g *codexGen) tokenCount(u codexUsage) string {
	g.total.input += u.input
	g.total.cached += u.cached
	g.total.output += u.output
	g.total.reasoning += u.reasoning
	usage := func(u codexUsage) string {
		return fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":%d}`,
			u.input, u.cached, u.output, u.reasoning, u.input+u.output)
	}
	used := min(99, float64(g.total.input+g.total.output)/4e6)
	return fmt.Sprintf(`{"type":"token_count","info":{"total_token_usage":%s,"last_token_usage":%s,"model_context_window":258400},"rate_limits":{"primary":{"used_percent":%.1f,"window_minutes":300,"resets_at":1777900000},"secondary":{"used_percent":%.1f,"window_minutes":10080,"resets_at":1778400000},"credits":null,"plan_type":"pro"}}`,
		usage(g.total), usage(u), used, used/7)
}

// routesFile returns the file the session edits, as it is now.
func (g *codexGen) routesFile() []string {
	lines := []string{
		"package api",
		"",
		"import (",
		"\t\"net/http\"",
		"\t\"time\"",
		")",
		"",
		"// routes registers the service's handlers, each with its own timeout.",
		"func (s *Server) routes(mux *http.ServeMux) {",
	}
	for i, rev := range g.rev {
		lines = append(lines, routeLine(i, rev))
	}
	return append(lines, "}")
}

// routeLine is handler i's line at revision rev.
func routeLine(i, rev int) string {
	return fmt.Sprintf("\tmux.HandleFunc(\"GET /v1/items/%d\", s.withTimeout(%d*time.Millisecond, s.item%d)) // rev %d", i, 250+10*(rev%20), i, rev)
}

// unifiedExec is the output Codex's exec_command gives the model: its
// header, then what the command printed.
func (g *codexGen) unifiedExec(wall float64, code int, out string) string {
	return fmt.Sprintf("Chunk ID: %06x\nWall time: %.4f seconds\nProcess exited with code %d\nOriginal token count: %d\nOutput:\n%s", g.next()&0xffffff, wall, code, len(out)/4, out)
}

// execCall is an exec_command function_call item.
func execCall(id, cmd string) string {
	args := fmt.Sprintf(`{"cmd":%s,"workdir":%s,"yield_time_ms":10000,"max_output_tokens":10000}`, jsonString(cmd), jsonString(codexCwd))
	return fmt.Sprintf(`{"type":"function_call","name":"exec_command","arguments":%s,"call_id":"%s"}`, jsonString(args), id)
}

// output is a function_call_output or custom_tool_call_output item.
func output(typ, id, text string) string {
	return fmt.Sprintf(`{"type":"%s","call_id":"%s","output":%s}`, typ, id, jsonString(text))
}

// turn writes turn number n.
func (g *codexGen) turn(n int) {
	id := g.uuid()
	h := n % codexRoutes
	fails := n%CodexFailEvery == CodexFailEvery-1
	g.event(1200, fmt.Sprintf(`{"type":"task_started","turn_id":"%s","started_at":%d,"model_context_window":258400,"collaboration_mode_kind":"default"}`, id, g.now.Unix()))
	if n == 0 {
		g.item(5, message("developer", "input_text", "<permissions instructions>\nFilesystem sandboxing: workspace-write; writes outside the workspace and network access need approval.\nApproval policy: on-request. Ask with sandbox_permissions when a command needs more.\n</permissions instructions>", ""))
		g.item(5, message("user", "input_text", "# AGENTS.md instructions for "+codexCwd+"\n\n<INSTRUCTIONS>\n"+codexAgentsMD+"\n</INSTRUCTIONS>", ""))
		g.item(5, message("user", "input_text", "<environment_context>\n  <cwd>"+codexCwd+"</cwd>\n  <shell>bash</shell>\n  <current_date>2026-05-04</current_date>\n  <timezone>Etc/UTC</timezone>\n</environment_context>", ""))
	}
	g.line(5, "turn_context", turnContext(id))
	prompt := fmt.Sprintf("GET /v1/items/%d times out under load. Give its handler a longer timeout in %s and run the tests.", h, CodexRoutes)
	g.item(10, message("user", "input_text", prompt, ""))
	g.event(2, fmt.Sprintf(`{"type":"user_message","message":%s,"images":[],"local_images":[],"text_elements":[]}`, jsonString(prompt)))

	// Read the file.
	summary := fmt.Sprintf("**Locating the item %d handler**\n\nThe routes file registers each handler with its timeout; I'll read it before changing the one for /v1/items/%d.", h, h)
	g.event(2400, fmt.Sprintf(`{"type":"agent_reasoning","text":%s}`, jsonString(summary)))
	g.item(3, g.reasoning(summary, 1800+int(g.next()%1200)))
	say := fmt.Sprintf("Reading %s to find the route for /v1/items/%d.", CodexRoutes, h)
	g.item(400, message("assistant", "output_text", say, "commentary"))
	g.event(2, fmt.Sprintf(`{"type":"agent_message","message":%s,"phase":"commentary"}`, jsonString(say)))
	read := g.callID()
	g.item(300, execCall(read, "sed -n '1,200p' "+CodexRoutes))
	context := 18000 + 40*n
	g.event(60, g.tokenCount(codexUsage{context, context - 1200, 180 + n%70, 64 + n%40}))
	file := g.routesFile()
	g.item(90, output("function_call_output", read, g.unifiedExec(0.05, 0, strings.Join(file, "\n")+"\n")))

	// Patch it.
	summary = fmt.Sprintf("**Raising the timeout**\n\nItem %d's handler has a %dms timeout at revision %d; raising it is a one-line patch.", h, 250+10*(g.rev[h]%20), g.rev[h])
	g.item(2100, g.reasoning(summary, 900+int(g.next()%900)))
	at := 9 + h // the handler's line in file
	old := file[at]
	g.rev[h]++
	patch := fmt.Sprintf("*** Begin Patch\n*** Update File: %s\n@@\n %s\n-%s\n+%s\n %s\n*** End Patch\n", CodexRoutes, file[at-1], old, routeLine(h, g.rev[h]), file[at+1])
	edit := g.callID()
	g.item(500, fmt.Sprintf(`{"type":"custom_tool_call","status":"completed","call_id":"%s","name":"apply_patch","input":%s}`, edit, jsonString(patch)))
	context += 3000
	g.event(50, g.tokenCount(codexUsage{context, context - 900, 240 + n%90, 96 + n%50}))
	diff := fmt.Sprintf("@@ -%d,3 +%d,3 @@\n %s\n-%s\n+%s\n %s\n", at, at, file[at-1], old, routeLine(h, g.rev[h]), file[at+1])
	g.event(40, fmt.Sprintf(`{"type":"patch_apply_end","call_id":"%s","turn_id":"%s","stdout":"Success. Updated the following files:\nM %s\n","stderr":"","success":true,"changes":{%s:{"type":"update","unified_diff":%s,"move_path":null}}}`,
		edit, id, CodexRoutes, jsonString(codexCwd+"/"+CodexRoutes), jsonString(diff)))
	g.item(5, output("custom_tool_call_output", edit, `{"output":"Success. Updated the following files:\nM `+CodexRoutes+`\n","metadata":{"exit_code":0,"duration_seconds":0.0}}`))

	// Run the tests.
	test := g.callID()
	g.item(1800, execCall(test, "go test ./..."))
	context += 600
	g.event(40, g.tokenCount(codexUsage{context, context - 500, 40 + n%20, 16 + n%10}))
	var out strings.Builder
	code := 0
	for k := range 40 {
		pkg := fmt.Sprintf("example.com/service/internal/pkg%02d", k)
		if k == 0 {
			pkg = "example.com/service/internal/api"
		}
		if k == 0 && fails {
			code = 1
			fmt.Fprintf(&out, "--- FAIL: TestItem%d (0.%02ds)\n    routes_test.go:%d: GET /v1/items/%d: context deadline exceeded after %dms\nFAIL\nFAIL\t%s\t0.%03ds\n",
				h, n%50, 40+h, h, 250+10*(g.rev[h]%20), pkg, (n*31+k*7)%1000)
			continue
		}
		fmt.Fprintf(&out, "ok  \t%s\t0.%03ds\n", pkg, (n*31+k*7)%1000)
	}
	if fails {
		out.WriteString("FAIL\n")
	}
	g.item(4200, output("function_call_output", test, g.unifiedExec(4+float64(n%100)/100, code, out.String())))

	// Answer.
	answer := fmt.Sprintf("Raised the timeout of GET /v1/items/%d in %s:%d to %dms. `go test ./...` passes.", h, CodexRoutes, at+1, 250+10*(g.rev[h]%20))
	if fails {
		answer = fmt.Sprintf("Raised the timeout of GET /v1/items/%d in %s:%d to %dms, but TestItem%d still times out: the handler itself is slow, not only its deadline.", h, CodexRoutes, at+1, 250+10*(g.rev[h]%20), h)
	}
	g.item(2600, message("assistant", "output_text", answer, "final_answer"))
	context += 1500
	g.event(40, g.tokenCount(codexUsage{context, context - 1500, 120 + n%60, 32 + n%30}))
	g.event(2, fmt.Sprintf(`{"type":"agent_message","message":%s,"phase":"final_answer"}`, jsonString(answer)))
	g.event(5, fmt.Sprintf(`{"type":"task_complete","turn_id":"%s","last_agent_message":%s}`, id, jsonString(answer)))
}

// jsonString returns s as a JSON string, escaped as serde_json writes
// it: quotes, backslashes and control characters; everything else as is.
func jsonString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
