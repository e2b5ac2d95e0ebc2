package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent"
)

// Aider's chat history (.aider.chat.history.md), as aider/io.py writes
// it: "# aider chat started at <local time>" opens a session; each line
// the user typed is "#### <line>  " (a blank input is "<blank>"); each
// of aider's own messages is a "> <message>  " line (questions and
// answers, "Applied edit to <file>", "Tokens: 3.2k sent, 222 received.",
// errors); the model's answer is its text, stripped, between blank
// lines.
//
// A user's line is a prompt (consecutive lines one prompt, their "  "
// ends removed); a command to aider ("/add", "/model", "!ls") is a
// prompt of role harness, its kind in metadata, as Claude Code's are. A model answer is an llm_call step, followed by one
// tool_call step per edit block it holds: "edit" for a SEARCH/REPLACE
// block ({path, search, replace}), "write" for a whole file given after
// its name when aider then says it applied an edit to that file ({path,
// content}, and the file an output). An edit's output is aider's
// "Applied edit to <path>" line when it follows. A shell command the user
// ran (/run, !) or aider ran for the model ("Running <command>") is a
// "shell" step ({command}); its output went to the terminal only: the
// history does not hold it. Aider's other messages are kept, in order,
// with the step or prompt before them (metadata.aider_output). The
// history records no times but the local start time of each session
// (with no zone, kept in metadata.aider.sessions), no call ids and no
// exact token counts (aider's rounded "Tokens:" line stays in the step's
// metadata): none is invented. Markdown in an answer that looks like the
// history's own marks (a "> " or "#### " line outside a code fence) is
// read as them, as any reader of the file must.

// aiderStart opens a session.
const aiderStart = "# aider chat started at "

// IsAiderHistory reports whether data looks like an Aider chat history.
func IsAiderHistory(name string, data []byte) bool {
	if strings.HasSuffix(name, ".aider.chat.history.md") {
		return true
	}
	head := data[:min(len(data), 4096)]
	return bytes.HasPrefix(bytes.TrimLeft(head, "\n"), []byte(aiderStart)) ||
		bytes.Contains(head, []byte("\n"+aiderStart))
}

func importAider(b *Builder, data []byte) error {
	if !utf8.Valid(data) {
		return b.errorf("", "the history is not UTF-8")
	}
	a := &aiderImport{b: b}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if !aiderMarked(lines) {
		first := 1
		for first <= len(lines) && strings.TrimSpace(lines[first-1]) == "" {
			first++
		}
		return b.errorf(fmt.Sprintf("line %d", first), "not an Aider chat history: no %q header, \"#### \" line of the user or \"> \" line of aider", strings.TrimSpace(aiderStart))
	}
	var answer []string
	inFence := false
	flushAnswer := func() {
		text := strings.TrimSpace(strings.Join(answer, "\n"))
		answer = answer[:0]
		inFence = false
		if text != "" {
			a.answer(text)
		}
	}
	var user []string
	var userLine int
	flushUser := func() {
		if len(user) > 0 {
			a.user(strings.Join(user, "\n"), userLine)
			user = nil
		}
	}
	prevTool := false // the line before was one of aider's messages
	for i, line := range lines {
		n := i + 1
		wasTool := prevTool
		prevTool = false
		// Inside a code fence, only a mark after a blank line ends the
		// answer (one cut short, its fence never closed).
		afterBlank := i > 0 && strings.TrimSpace(lines[i-1]) == ""
		if len(answer) > 0 && inFence && !(afterBlank && aiderMark(line)) {
			answer = append(answer, line)
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inFence = false
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, aiderStart):
			flushUser()
			flushAnswer()
			b.mapRecord()
			a.session(strings.TrimSpace(strings.TrimPrefix(line, aiderStart)))
		case strings.HasPrefix(line, "#### ") || line == "####":
			flushAnswer()
			if len(user) == 0 {
				userLine = n
			}
			user = append(user, strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(line, "####"), " "), "  "))
		case strings.HasPrefix(line, "> ") || line == ">":
			flushUser()
			flushAnswer()
			a.tool(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(line, ">"), " "), "  "))
			prevTool = true
		case wasTool && strings.TrimSpace(line) != "":
			// A message of several lines (a question's subject): only its
			// first line has the "> " mark.
			a.toolMore(strings.TrimSuffix(line, "  "))
			prevTool = true
		case len(answer) == 0 && strings.TrimSpace(line) == "":
			flushUser()
		default:
			flushUser()
			answer = append(answer, line)
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inFence = true
			}
		}
	}
	flushUser()
	flushAnswer()
	a.finish()
	return nil
}

// aiderMarked reports whether lines hold one of the history's own marks.
func aiderMarked(lines []string) bool {
	return slices.ContainsFunc(lines, aiderMark)
}

// aiderMark reports whether a line is a session's start, a line of the
// user or one of aider's messages.
func aiderMark(l string) bool {
	return strings.HasPrefix(l, aiderStart) || strings.HasPrefix(l, "#### ") || strings.HasPrefix(l, "> ")
}

type aiderImport struct {
	b        *Builder
	sessions list
	cur      obj      // the current session's record
	out      []string // aider's messages since the last prompt or step
	last     *step    // the step aider's messages follow, if any
	lastUser int      // the prompt they follow, -1 if a step or none
	edits    []*step
	failed   string          // aider's message that blocks of the last answer failed to match
	created  map[string]bool // files aider asked to create for the last answer
}

// closeEdits ends the last answer's edits: those aider did not apply,
// when it said blocks failed to match, failed.
func (a *aiderImport) closeEdits() {
	if a.failed != "" {
		for _, e := range a.edits {
			if !e.resolved {
				e.resolved = true
				e.fail(failure{msg: a.failed})
			}
		}
	}
	a.edits, a.failed, a.created = nil, "", nil
}

func (a *aiderImport) session(started string) {
	a.flushOut()
	a.endSession()
	a.cur = obj{}
	a.cur.setString("started", started)
	a.last, a.lastUser = nil, -1
}

func (a *aiderImport) endSession() {
	if a.cur != nil {
		a.sessions = append(a.sessions, a.cur.raw())
	}
}

// tool takes one of aider's own messages.
func (a *aiderImport) tool(text string) {
	b := a.b
	b.mapRecord()
	switch {
	case strings.HasPrefix(text, "Aider v"):
		b.tool("aider", strings.TrimPrefix(text, "Aider "))
	case strings.HasPrefix(text, "Main model: "):
		model, format, _ := strings.Cut(strings.TrimPrefix(text, "Main model: "), " with ")
		b.setModel(model)
		if a.cur != nil {
			a.cur.setString("main_model", model)
			format, _, _ = strings.Cut(format, " edit format")
			a.cur.setString("edit_format", format)
		}
	case strings.HasPrefix(text, "Running "):
		a.flushOut()
		s := b.call(&call{name: "shell", args: aiderCommand(strings.TrimPrefix(text, "Running "))}, "")
		s.meta.setString("ran_by", "aider")
		a.last, a.lastUser = s, -1
		return
	case strings.Contains(text, "SEARCH/REPLACE block failed to match") || strings.Contains(text, "SEARCH/REPLACE blocks failed to match"):
		a.failed = strings.TrimLeft(text, "# ")
	case strings.HasPrefix(text, "Create new file?") && len(a.out) > 0:
		if a.created == nil {
			a.created = map[string]bool{}
		}
		a.created[a.out[len(a.out)-1]] = true
	case strings.HasPrefix(text, "Applied edit to "):
		path := strings.TrimPrefix(text, "Applied edit to ")
		for _, e := range a.edits {
			if !e.resolved && gjsonString(e.Parameters, "path") == path {
				out := text
				e.Output, e.resolved = &out, true
				if a.created[path] {
					e.meta.set("new_file", jsonTrue)
				}
			}
		}
	}
	a.out = append(a.out, text)
}

// toolMore adds a line to aider's last message.
func (a *aiderImport) toolMore(line string) {
	if len(a.out) == 0 {
		a.out = append(a.out, line)
		return
	}
	a.out[len(a.out)-1] += "\n" + line
}

// flushOut keeps aider's messages with what they follow.
func (a *aiderImport) flushOut() {
	if len(a.out) == 0 {
		return
	}
	v, _ := json.Marshal(a.out)
	a.out = nil
	switch {
	case a.last != nil:
		if prev := a.last.meta.get("aider_output"); prev != nil {
			var have []string
			json.Unmarshal(prev, &have)
			var now []string
			json.Unmarshal(v, &now)
			v, _ = json.Marshal(append(have, now...))
		}
		a.last.meta.set("aider_output", v)
	case a.lastUser >= 0:
		a.b.appendMeta("aider_output", obj{{"after_prompt", jsonInt(a.lastUser)}, {"lines", v}}.raw())
	case a.cur != nil:
		a.cur.set("startup", v)
	default:
		a.b.appendMeta("aider_output", obj{{"lines", v}}.raw())
	}
}

func (a *aiderImport) user(text string, line int) {
	b := a.b
	a.flushOut()
	b.mapRecord()
	a.closeEdits()
	if kind := aiderHarness(text); kind != "" {
		b.prompt(harnessRole, text, obj{{"harness", quote(kind)}}, "")
	} else {
		b.prompt("user", text, nil, "")
	}
	a.last, a.lastUser = nil, len(b.prompts)-1
	for _, p := range []string{"/run ", "!"} {
		if cmd, ok := strings.CutPrefix(text, p); ok && strings.TrimSpace(cmd) != "" {
			s := b.call(&call{name: "shell", args: aiderCommand(cmd)}, "")
			s.meta.setString("ran_by", "user")
			s.meta.set("prompt", jsonInt(len(b.prompts)-1))
			a.last, a.lastUser = s, -1
		}
	}
}

// aiderHarness returns the kind of a line typed to aider that is a
// command to aider, not a prompt to the model: a "/" command (/add,
// /drop, /model, /run) or a "!" shell command, as Claude Code's are.
func aiderHarness(text string) string {
	if _, ok := agent.SlashCommand(text); ok {
		return agent.KindCommand
	}
	if cmd, ok := strings.CutPrefix(text, "!"); ok && strings.TrimSpace(cmd) != "" {
		return agent.KindShellInput
	}
	return ""
}

func aiderCommand(cmd string) json.RawMessage {
	return obj{{"command", quote(cmd)}}.raw()
}

// answer adds a model answer and its edit blocks.
func (a *aiderImport) answer(text string) {
	b := a.b
	a.flushOut()
	b.mapRecord()
	s := &step{Type: llmCall}
	out := text
	s.Output = &out
	b.last = text
	b.addStep(s)
	a.last, a.lastUser = s, -1
	a.closeEdits()
	for _, e := range aiderEdits(text) {
		a.edits = append(a.edits, b.call(&call{name: e.tool, args: e.params}, ""))
	}
}

func (a *aiderImport) finish() {
	b := a.b
	a.flushOut()
	a.closeEdits()
	a.endSession()
	var meta obj
	meta.set("sessions", a.sessions.raw())
	b.meta.set("aider", meta.raw())
	a.workspace()
}

// workspace makes outputs of the files whose content the history shows:
// a whole file aider applied, a new file made by a SEARCH/REPLACE block
// with an empty SEARCH; and the SEARCH/REPLACE edits aider applied to
// such a file later, where its SEARCH text is in the known content (the
// first occurrence replaced, as aider does). An edit of a file whose
// content is unknown, or that aider matched loosely, leaves the file no
// output.
func (a *aiderImport) workspace() {
	b := a.b
	known := map[string]string{}
	var order []string
	unknown := 0
	for _, s := range b.steps {
		if !s.resolved || s.Error != nil || (s.Tool != "write" && s.Tool != "edit") {
			continue
		}
		p := gjsonString(s.Parameters, "path")
		have, ok := known[p]
		search, replace := gjsonString(s.Parameters, "search"), gjsonString(s.Parameters, "replace")
		switch {
		case s.Tool == "write":
			have, ok = gjsonString(s.Parameters, "content"), true
		case search == "" && s.meta.get("new_file") != nil:
			have, ok = replace, true
		case ok && strings.Contains(have, search) && search != "":
			have = strings.Replace(have, search, replace, 1)
		case ok:
			b.warn("aider applied an edit to %s whose SEARCH text is not in its known content (aider matches loosely): %s is no output", p, p)
			delete(known, p)
			continue
		default:
			unknown++
			continue
		}
		if _, seen := known[p]; !seen && !slices.Contains(order, p) {
			order = append(order, p)
		}
		known[p] = have
	}
	var outs []output
	for _, p := range order {
		content, ok := known[p]
		switch {
		case !ok:
		case cleanRelative(p):
			outs = append(outs, output{Name: p, Content: content})
		default:
			b.warn("file %q is no clean relative path: not an output", p)
		}
	}
	if len(outs) > 0 && strings.TrimSpace(b.last) != "" {
		outs = append(outs, output{Name: finalName, Content: b.last})
	}
	b.outputs = append(b.outputs, outs...)
	if unknown > 0 {
		b.warn("%d SEARCH/REPLACE edit(s) applied to files whose content the history does not hold: they are steps, not outputs", unknown)
	}
}

func cleanRelative(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && !strings.Contains(p, "\\") && !strings.Contains(p, "\x00") &&
		!strings.HasPrefix(p, "../") && !strings.Contains(p, "/../") && p != ".." && !strings.HasSuffix(p, "/..")
}

type aiderEdit struct {
	tool   string
	params json.RawMessage
}

// aiderEdits finds the edit blocks of an answer: SEARCH/REPLACE blocks,
// their file named on the line before (or before the fence), as aider's
// editblock_coder finds it; and whole files (a file name alone on a line,
// then a fenced block), which are taken only from an answer with no
// SEARCH/REPLACE block.
func aiderEdits(text string) []aiderEdit {
	lines := strings.Split(text, "\n")
	var edits []aiderEdit
	path := ""
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "<<<<<<< SEARCH" {
			continue
		}
		if p := aiderFileName(lines, i); p != "" {
			path = p
		}
		var search, replace []string
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "=======" {
			search = append(search, lines[j])
			j++
		}
		k := j + 1
		for k < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[k]), ">>>>>>> REPLACE") {
			replace = append(replace, lines[k])
			k++
		}
		if j >= len(lines) || k >= len(lines) {
			break // an unfinished block: aider would not apply it either
		}
		edits = append(edits, aiderEdit{"edit", obj{{"path", quote(path)}, {"search", quote(joinLines(search))}, {"replace", quote(joinLines(replace))}}.raw()})
		i = k
	}
	if len(edits) > 0 {
		return edits
	}
	for i := 0; i+1 < len(lines); i++ {
		name := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "```") || !looksLikePath(name) {
			continue
		}
		j := i + 2
		var body []string
		for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
			body = append(body, lines[j])
			j++
		}
		if j >= len(lines) {
			break
		}
		edits = append(edits, aiderEdit{"write", obj{{"path", quote(name)}, {"content", quote(joinLines(body))}}.raw()})
		i = j
	}
	return edits
}

// joinLines joins lines as aider writes them to a file: each ends in a
// newline.
func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// aiderFileName reads the file name before the SEARCH line at i: the line
// before it, or the one before its opening fence.
func aiderFileName(lines []string, i int) string {
	for k := i - 1; k >= 0 && k >= i-3; k-- {
		l := strings.TrimSpace(lines[k])
		if strings.HasPrefix(l, "```") {
			continue
		}
		l = strings.Trim(strings.TrimSuffix(l, ":"), "`*# ")
		if looksLikePath(l) {
			return l
		}
		return ""
	}
	return ""
}

func looksLikePath(s string) bool {
	return s != "" && len(s) < 256 && !strings.ContainsAny(s, " \t`") && (strings.Contains(s, ".") || strings.Contains(s, "/"))
}

func gjsonString(v json.RawMessage, key string) string {
	return gjson.GetBytes(v, key).String()
}
