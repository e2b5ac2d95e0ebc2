package packgen

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// A year of sessions (Year, in yearpack.go) works on one project: a Go
// service in /home/dev/projects/service (codexCwd), whose files the
// sessions read, edit and test in turn. This file renders the sessions
// as the agents write them: Claude Code transcripts (with subagent
// transcripts beside them) and Codex rollouts.

// HotFile is the file of the year's project that about 15 % of the
// sessions edit (3 in 20): the file to blame.
const HotFile = "internal/api/routes.go"

// yearRand is a xorshift64* stream.
type yearRand struct{ x uint64 }

func (r *yearRand) next() uint64 {
	r.x ^= r.x >> 12
	r.x ^= r.x << 25
	r.x ^= r.x >> 27
	return r.x * 0x2545f4914f6cdd1d
}

// n returns a number in [0, k).
func (r *yearRand) n(k int) int { return int(r.next() % uint64(k)) }

// project is the state of the project's files as the sessions left
// them, in time order.
type project struct {
	files map[string][]string // path -> lines, without line endings
	paths []string            // the files other than HotFile and the shared ones
	line  int                 // lines written so far: each line's unique number
}

// sharedDoc is a file most sessions read first and none edits: the same
// bytes in every session.
const sharedDoc = "docs/architecture.md"

func newProject(r *yearRand) *project {
	p := &project{files: map[string][]string{}}
	p.files[HotFile] = p.goFile("api", 120, r)
	for i := range 120 {
		path := fmt.Sprintf("internal/pkg%02d/file%02d.go", i/8, i%8)
		p.paths = append(p.paths, path)
		p.files[path] = p.goFile(fmt.Sprintf("pkg%02d", i/8), 20+r.n(80), r)
	}
	var doc []string
	for _, l := range strings.Split(string(Text(7, 24<<10)), "\n") {
		if l != "" {
			doc = append(doc, l)
		}
	}
	p.files[sharedDoc] = doc
	return p
}

// goFile returns n lines of Go-like code in package pkg, each line
// distinct (it holds a number no other line holds).
func (p *project) goFile(pkg string, n int, r *yearRand) []string {
	lines := []string{"package " + pkg, "", "// Generated handlers and helpers.", "func init() {"}
	for range n {
		lines = append(lines, p.codeLine(r, ""))
	}
	return append(lines, "}")
}

func (p *project) codeLine(r *yearRand, note string) string {
	p.line++
	w := words[r.n(len(words))] + "_" + words[r.n(len(words))]
	l := fmt.Sprintf("\tv%d := compute(%d, %q, %d*time.Millisecond)", p.line, r.n(1000), w, 10*(1+r.n(50)))
	if note != "" {
		l += " // " + note
	}
	return l
}

func (p *project) text(path string) string { return strings.Join(p.files[path], "\n") + "\n" }

// edit changes one place of path and returns the old and new text of
// that place, each unique in the file: it replaces a line, or adds one
// after it (one edit in six), or replaces two lines by one (one in six,
// in a file of more than 30 lines), so that files keep about their size.
func (p *project) edit(path string, r *yearRand, note string) (old, new string) {
	lines := p.files[path]
	at := 4 + r.n(len(lines)-6)
	n := 1
	repl := []string{p.codeLine(r, note)}
	switch r.n(6) {
	case 0:
		repl = append(repl, p.codeLine(r, note))
	case 1:
		if len(lines) > 30 {
			n = 2
		}
	}
	old = strings.Join(lines[at:at+n], "\n")
	p.files[path] = append(lines[:at:at], append(repl, lines[at+n:]...)...)
	return old, strings.Join(repl, "\n")
}

// yearSession is one session's plan.
type yearSession struct {
	index  int
	codex  bool
	id     string
	start  time.Time
	turns  int
	files  []string // files it edits, in turn
	model  string
	subs   int    // subagents (Claude Code)
	tag    string // a tag on its last snapshot, or ""
	forked bool   // a fork of its last snapshot follows it
	cuts   []int  // byte lengths of the snapshots packed, the last the whole transcript
	data   []byte
	// subagent transcripts, and the offset in data after which each
	// one's Task call has its result
	subNames []string
	subData  [][]byte
	subAt    []int
	end      time.Time
}

var claudeModels = []string{"claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101", "claude-sonnet-4-6", "claude-opus-4-6"}
var codexModels = []string{"gpt-5", "gpt-5.1", "gpt-5.2"}

// plan decides session i of n, starting no earlier than after.
func planSession(i, n int, o YearOptions, r *yearRand, after time.Time) *yearSession {
	ss := &yearSession{index: i, codex: i%3 == 1} // a third Codex
	span := time.Duration(o.Days) * 24 * time.Hour
	ss.start = o.Start.Add(time.Duration(float64(span) * float64(i) / float64(n)))
	ss.start = ss.start.Add(time.Duration(r.n(3600)) * time.Second)
	if ss.start.Before(after) {
		ss.start = after.Add(time.Duration(60+r.n(600)) * time.Second)
	}
	// Steps between MinSteps and MaxSteps, log-uniform: most sessions
	// are short, a few are long.
	lo, hi := float64(o.MinSteps), float64(max(o.MaxSteps, o.MinSteps))
	steps := lo * math.Exp(float64(r.next()%1e6)/1e6*math.Log(hi/lo))
	ss.turns = max(1, int(steps)/stepsPerTurn)
	ss.id = fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", uint32(r.next()), uint16(r.next()), r.n(0xfff), r.n(0xfff), r.next()>>16)
	if ss.codex {
		ss.model = codexModels[r.n(len(codexModels))]
	} else {
		ss.model = claudeModels[r.n(len(claudeModels))]
		if r.n(10) < 3 {
			ss.subs = 1 + r.n(3)
		}
	}
	if k := i % 20; k == 0 || k == 7 || k == 13 {
		ss.files = append(ss.files, HotFile)
	}
	return ss
}

// stepsPerTurn is about how many steps a turn makes: a model call and a
// tool call for the read, the edit and the test, and the answer.
const stepsPerTurn = 7

// render writes the session's transcript (and its subagents') as its
// agent writes it, editing p, and picks the snapshot lengths.
func (ss *yearSession) render(p *project, r *yearRand, o YearOptions) {
	for len(ss.files) < 1+ss.turns/40+1 {
		ss.files = append(ss.files, p.paths[r.n(len(p.paths))])
	}
	var ends []int
	if ss.codex {
		ends = ss.renderCodex(p, r, o)
	} else {
		ends = ss.renderClaude(p, r, o)
	}
	// Packed at 1 to 3 lengths, as the hooks pack a growing session.
	k := 1 + r.n(3)
	for j := 1; j <= k; j++ {
		t := len(ends) * j / k
		if t == 0 {
			continue
		}
		if c := ends[t-1]; len(ss.cuts) == 0 || ss.cuts[len(ss.cuts)-1] < c {
			ss.cuts = append(ss.cuts, c)
		}
	}
}

// testOutput is what `go test ./...` prints: two times in five the
// cached run every session sees alike, else times and a build log that
// differ.
func testOutput(r *yearRand, o YearOptions) string {
	var b strings.Builder
	if r.n(5) < 2 {
		for k := range 16 {
			fmt.Fprintf(&b, "ok  \texample.com/service/internal/pkg%02d\t(cached)\n", k)
		}
		return b.String()
	}
	b.Write(Text(r.next(), o.LogBytes/2+r.n(o.LogBytes)))
	for k := range 16 {
		fmt.Fprintf(&b, "ok  \texample.com/service/internal/pkg%02d\t0.%03ds\n", k, r.n(1000))
	}
	return b.String()
}

// thinking is a model's reasoning text of about n bytes.
func thinking(r *yearRand, n int) string {
	return "I should read the file, make the change and run the tests. " + string(Text(r.next(), n))
}

// numbered is a Read tool result as Claude Code shows it: each line
// numbered, cat -n style.
func numbered(text string) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(&b, "%6d\u2192%s\n", i+1, l)
	}
	return b.String()
}

// claudeWriter writes the lines of one Claude Code transcript.
type claudeWriter struct {
	b       strings.Builder
	sid     string
	agent   string // subagent id, or ""
	now     time.Time
	prev    string
	n       int
	model   string
	cwd     string
	version string
}

func (w *claudeWriter) uuid() string {
	w.n++
	return fmt.Sprintf("%s-%s-%06d", w.sid[:8], w.agent, w.n)
}

// line writes one record of the given body, ms milliseconds after the
// last one, and returns its uuid.
func (w *claudeWriter) line(ms int, body string) string {
	w.now = w.now.Add(time.Duration(ms) * time.Millisecond)
	id := w.uuid()
	side := "false"
	agent := ""
	if w.agent != "" {
		side, agent = "true", `,"agentId":"`+w.agent+`"`
	}
	fmt.Fprintf(&w.b, `{"parentUuid":%s,"isSidechain":%s%s,"userType":"external","cwd":%s,"sessionId":"%s","version":"%s","gitBranch":"main","uuid":"%s","timestamp":"%s",%s}`+"\n",
		jsonString(w.prev), side, agent, jsonString(w.cwd), w.sid, w.version, id, w.now.Format("2006-01-02T15:04:05.000Z"), body)
	w.prev = id
	return id
}

func (w *claudeWriter) user(ms int, content string) string {
	return w.line(ms, fmt.Sprintf(`"type":"user","message":{"role":"user","content":%s},"permissionMode":"default"`, jsonString(content)))
}

// assistant writes one model message's content blocks, one line each,
// as Claude Code splits them; it returns the last line's uuid.
func (w *claudeWriter) assistant(ms int, msg string, blocks []string, stop string, in, out int) string {
	usage := fmt.Sprintf(`"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d,"service_tier":"standard"}`, 3+in%7, in/20, in, out)
	id := ""
	for k, blk := range blocks {
		s := "null"
		if k == len(blocks)-1 && stop != "" {
			s = `"` + stop + `"`
		}
		id = w.line(ms, fmt.Sprintf(`"type":"assistant","requestId":"req_%s","message":{"model":"%s","id":"%s","type":"message","role":"assistant","content":[%s],"stop_reason":%s,%s}`,
			msg, w.model, msg, blk, s, usage))
		ms = 40
	}
	return id
}

func (w *claudeWriter) toolResult(ms int, call, content, result string, assistant string) {
	w.line(ms, fmt.Sprintf(`"type":"user","message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":%s}]},"toolUseResult":%s,"sourceToolAssistantUUID":"%s"`,
		call, jsonString(content), result, assistant))
}

func toolUse(id, name, input string) string {
	return fmt.Sprintf(`{"type":"tool_use","id":"%s","name":"%s","input":%s}`, id, name, input)
}

func textBlock(s string) string { return `{"type":"text","text":` + jsonString(s) + `}` }

func thinkingBlock(s, sig string) string {
	return `{"type":"thinking","thinking":` + jsonString(s) + `,"signature":"` + sig + `"}`
}

func (ss *yearSession) claude(agent string, start time.Time) *claudeWriter {
	return &claudeWriter{sid: ss.id, agent: agent, now: start, model: ss.model, cwd: codexCwd, version: "2.1.38"}
}

// renderClaude writes a Claude Code transcript; it returns the byte
// offset after each turn.
func (ss *yearSession) renderClaude(p *project, r *yearRand, o YearOptions) []int {
	w := ss.claude("", ss.start)
	w.prev = ""
	var ends []int
	in := 18000
	for t := range ss.turns {
		path := ss.files[t%len(ss.files)]
		msg := func(k string) string { return fmt.Sprintf("msg_%s%04d%s", ss.id[:8], t, k) }
		call := func(k string) string { return fmt.Sprintf("toolu_%s%04d%s", ss.id[:8], t, k) }
		w.user(30000+r.n(200000), fmt.Sprintf("Turn %d: look at %s and tighten the timeout of the handler that fails under load, then run the tests.", t, path))
		in += 1500
		// The first turn reads the shared architecture notes, whole.
		if t == 0 {
			doc := p.text(sharedDoc)
			a := w.assistant(2000, msg("d"), []string{toolUse(call("d"), "Read", `{"file_path":`+jsonString(codexCwd+"/"+sharedDoc)+`}`)}, "tool_use", in, 60)
			n := strings.Count(doc, "\n")
			w.toolResult(40, call("d"), numbered(doc), fmt.Sprintf(`{"type":"text","file":{"filePath":%s,"content":%s,"numLines":%d,"startLine":1,"totalLines":%d}}`, jsonString(codexCwd+"/"+sharedDoc), jsonString(doc), n+1, n+1), a)
		}
		// Read the file whole.
		text := p.text(path)
		n := strings.Count(text, "\n")
		a := w.assistant(2400, msg("r"), []string{
			thinkingBlock(thinking(r, 300+r.n(o.ThinkBytes)), fmt.Sprintf("EsMC%016x%016x", r.next(), r.next())),
			textBlock("Let me read " + path + "."),
			toolUse(call("r"), "Read", `{"file_path":`+jsonString(codexCwd+"/"+path)+`}`),
		}, "tool_use", in, 200+r.n(300))
		w.line(20, fmt.Sprintf(`"type":"progress","data":{"type":"hook_progress","hookEvent":"PreToolUse","hookName":"PreToolUse:Read","command":"guard.sh"},"toolUseID":"%s","parentToolUseID":"%s"`, call("r"), call("r")))
		w.toolResult(60, call("r"), numbered(text), fmt.Sprintf(`{"type":"text","file":{"filePath":%s,"content":%s,"numLines":%d,"startLine":1,"totalLines":%d}}`, jsonString(codexCwd+"/"+path), jsonString(text), n+1, n+1), a)
		// A subagent explores, in the first turns.
		if t < ss.subs {
			ss.subagent(w, p, r, o, t, call("t"), msg("t"), in)
		}
		// Edit one place.
		old, new := p.edit(path, r, fmt.Sprintf("session %s", ss.id[:8]))
		in += len(text) / 4
		a = w.assistant(1800, msg("e"), []string{toolUse(call("e"), "Edit", fmt.Sprintf(`{"file_path":%s,"old_string":%s,"new_string":%s,"replace_all":false}`, jsonString(codexCwd+"/"+path), jsonString(old), jsonString(new)))}, "tool_use", in, 300)
		w.toolResult(80, call("e"), "The file "+codexCwd+"/"+path+" has been updated successfully.",
			fmt.Sprintf(`{"filePath":%s,"oldString":%s,"newString":%s,"originalFile":%s,"structuredPatch":[],"userModified":false,"replaceAll":false}`, jsonString(codexCwd+"/"+path), jsonString(old), jsonString(new), jsonString(text)), a)
		// Run the tests.
		out := testOutput(r, o)
		a = w.assistant(1500, msg("b"), []string{toolUse(call("b"), "Bash", `{"command":"go test ./...","description":"Run the tests"}`)}, "tool_use", in, 80)
		w.toolResult(4000+r.n(20000), call("b"), out, fmt.Sprintf(`{"stdout":%s,"stderr":"","interrupted":false,"isImage":false}`, jsonString(out)), a)
		w.assistant(2000, msg("z"), []string{textBlock(fmt.Sprintf("Changed %s: the handler's timeout is tighter and `go test ./...` passes.", path))}, "end_turn", in, 120)
		ends = append(ends, w.b.Len())
	}
	ss.data = []byte(w.b.String())
	ss.end = w.now
	return ends
}

// subagent writes a Task call in w's session and the subagent's own
// transcript, which reads a few files.
func (ss *yearSession) subagent(w *claudeWriter, p *project, r *yearRand, o YearOptions, t int, call, msg string, in int) {
	agent := fmt.Sprintf("a%015x", r.next()>>4)
	prompt := fmt.Sprintf("Find where the handlers of %s are registered and which tests cover them.", ss.files[0])
	began := w.now
	a := w.assistant(1500, msg, []string{toolUse(call, "Task", fmt.Sprintf(`{"description":"Explore the handlers","prompt":%s,"subagent_type":"Explore"}`, jsonString(prompt)))}, "tool_use", in, 150)
	sw := ss.claude(agent, w.now)
	sw.user(10, prompt)
	for k := range 3 + r.n(6) {
		path := p.paths[r.n(len(p.paths))]
		text := p.text(path)
		n := strings.Count(text, "\n")
		m := fmt.Sprintf("%s_%s%02d", msg, agent[:6], k)
		c := fmt.Sprintf("toolu_%s%02d", agent[:10], k)
		sa := sw.assistant(1200, m, []string{toolUse(c, "Read", `{"file_path":`+jsonString(codexCwd+"/"+path)+`}`)}, "tool_use", in, 90)
		sw.toolResult(40, c, numbered(text), fmt.Sprintf(`{"type":"text","file":{"filePath":%s,"content":%s,"numLines":%d,"startLine":1,"totalLines":%d}}`, jsonString(codexCwd+"/"+path), jsonString(text), n+1, n+1), sa)
	}
	answer := "The handlers are registered in " + HotFile + "; each package's tests cover its own."
	sw.assistant(1500, fmt.Sprintf("%s_%s_z", msg, agent[:6]), []string{textBlock(answer)}, "end_turn", in, 200)
	w.now = sw.now.Add(time.Second)
	w.toolResult(10, call, answer, fmt.Sprintf(`{"status":"completed","prompt":%s,"agentId":"%s","content":[{"type":"text","text":%s}],"totalDurationMs":%d,"totalTokens":%d,"totalToolUseCount":%d}`,
		jsonString(prompt), agent, jsonString(answer), sw.now.Sub(began).Milliseconds(), 5000+r.n(20000), 3), a)
	ss.subNames = append(ss.subNames, ss.id+"/subagents/agent-"+agent+".jsonl")
	ss.subData = append(ss.subData, []byte(sw.b.String()))
	ss.subAt = append(ss.subAt, w.b.Len())
}

// renderCodex writes a Codex rollout; it returns the byte offset after
// each turn.
func (ss *yearSession) renderCodex(p *project, r *yearRand, o YearOptions) []int {
	g := newCodexGen()
	var sb strings.Builder
	g.sb, g.now, g.rand = &sb, ss.start, r.next()|1
	g.start()
	var ends []int
	for t := range ss.turns {
		path := ss.files[t%len(ss.files)]
		id := g.uuid()
		g.event(30000+r.n(200000), fmt.Sprintf(`{"type":"task_started","turn_id":"%s","started_at":%d,"model_context_window":258400,"collaboration_mode_kind":"default"}`, id, g.now.Unix()))
		if t == 0 {
			g.item(5, message("developer", "input_text", "<permissions instructions>\nFilesystem sandboxing: workspace-write; writes outside the workspace and network access need approval.\nApproval policy: on-request. Ask with sandbox_permissions when a command needs more.\n</permissions instructions>", ""))
			g.item(5, message("user", "input_text", "# AGENTS.md instructions for "+codexCwd+"\n\n<INSTRUCTIONS>\n"+codexAgentsMD+"\n</INSTRUCTIONS>", ""))
		}
		g.line(5, "turn_context", strings.Replace(strings.Replace(turnContext(id), `"current_date":"2026-05-04"`, `"current_date":"`+g.now.Format("2006-01-02")+`"`, 1), codexModel, ss.model, 2))
		prompt := fmt.Sprintf("Turn %d: tighten the timeout of the handler in %s that fails under load, then run the tests.", t, path)
		g.item(10, message("user", "input_text", prompt, ""))
		g.event(2, fmt.Sprintf(`{"type":"user_message","message":%s,"images":[],"local_images":[],"text_elements":[]}`, jsonString(prompt)))
		summary := thinking(r, 200+r.n(o.ThinkBytes/2))
		g.event(2400, fmt.Sprintf(`{"type":"agent_reasoning","text":%s}`, jsonString(summary)))
		g.item(3, g.reasoning(summary, 1200+r.n(1200)))
		// Read the file whole.
		text := p.text(path)
		read := g.callID()
		g.item(300, execCall(read, "cat "+path))
		ctxTokens := 18000 + 400*t
		g.event(60, g.tokenCount(codexUsage{ctxTokens, ctxTokens - 1200, 180 + t%70, 64 + t%40}))
		g.item(90, output("function_call_output", read, g.unifiedExec(0.02, 0, text)))
		// Patch it.
		old, new := p.edit(path, r, fmt.Sprintf("session %s", ss.id[:8]))
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		gone := strings.Split(old, "\n")
		at := slices.Index(lines, gone[0])
		var patch strings.Builder
		fmt.Fprintf(&patch, "*** Begin Patch\n*** Update File: %s\n@@\n %s\n", path, lines[at-1])
		for _, l := range gone {
			patch.WriteString("-" + l + "\n")
		}
		for _, l := range strings.Split(new, "\n") {
			patch.WriteString("+" + l + "\n")
		}
		fmt.Fprintf(&patch, " %s\n*** End Patch\n", lines[at+len(gone)])
		edit := g.callID()
		g.item(2100, fmt.Sprintf(`{"type":"custom_tool_call","status":"completed","call_id":"%s","name":"apply_patch","input":%s}`, edit, jsonString(patch.String())))
		g.event(50, g.tokenCount(codexUsage{ctxTokens + 3000, ctxTokens + 2100, 240 + t%90, 96 + t%50}))
		g.event(40, fmt.Sprintf(`{"type":"patch_apply_end","call_id":"%s","turn_id":"%s","stdout":"Success. Updated the following files:\nM %s\n","stderr":"","success":true}`, edit, id, path))
		g.item(5, output("custom_tool_call_output", edit, `{"output":"Success. Updated the following files:\nM `+path+`\n","metadata":{"exit_code":0,"duration_seconds":0.0}}`))
		// Run the tests.
		test := g.callID()
		g.item(1800, execCall(test, "go test ./..."))
		g.event(40, g.tokenCount(codexUsage{ctxTokens + 3600, ctxTokens + 3100, 40 + t%20, 16 + t%10}))
		g.item(4000+r.n(20000), output("function_call_output", test, g.unifiedExec(4+float64(r.n(100))/100, 0, testOutput(r, o))))
		answer := fmt.Sprintf("Tightened the handler's timeout in %s; `go test ./...` passes.", path)
		g.item(2600, message("assistant", "output_text", answer, "final_answer"))
		g.event(40, g.tokenCount(codexUsage{ctxTokens + 5100, ctxTokens + 3600, 120 + t%60, 32 + t%30}))
		g.event(2, fmt.Sprintf(`{"type":"agent_message","message":%s,"phase":"final_answer"}`, jsonString(answer)))
		g.event(5, fmt.Sprintf(`{"type":"task_complete","turn_id":"%s","last_agent_message":%s}`, id, jsonString(answer)))
		ends = append(ends, sb.Len())
	}
	ss.data = []byte(sb.String())
	ss.end = g.now
	return ends
}

// name is the session transcript's file name, as the agent names it.
func (ss *yearSession) name() string {
	if ss.codex {
		return "rollout-" + ss.start.Format("2006-01-02T15-04-05") + "-" + ss.id + ".jsonl"
	}
	return ss.id + ".jsonl"
}
