// Package aider is what ctx knows of Aider: its chat history's format
// (Format), read into an execution log.
package aider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent"
	"github.com/ctx-tools/ctx/lib/importer"
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

// Name is the format's name, as given to ctx-pack --from.
const Name = "aider"

// Format is Aider chat histories, the one format that is not JSON: told
// by the file's name or its header (IsHistory).
var Format = importer.Format{Name: Name, Noun: "chat history", Import: importAider, Sniff: sniff}

// sniff tells an Aider history by its name or its header; white space
// alone is no history, whatever its name.
func sniff(name string, data []byte) bool {
	return !importer.Blank(data) && IsHistory(name, data)
}

// aiderStart opens a session.
const aiderStart = "# aider chat started at "

// IsHistory reports whether data looks like an Aider chat history.
func IsHistory(name string, data []byte) bool {
	if strings.HasSuffix(name, ".aider.chat.history.md") {
		return true
	}
	head := data[:min(len(data), 4096)]
	return bytes.HasPrefix(bytes.TrimLeft(head, "\n"), []byte(aiderStart)) ||
		bytes.Contains(head, []byte("\n"+aiderStart))
}

func importAider(b *importer.Builder, data []byte) error {
	if !utf8.Valid(data) {
		return b.Errorf("", "the history is not UTF-8")
	}
	a := &aiderImport{b: b}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if !aiderMarked(lines) {
		first := 1
		for first <= len(lines) && strings.TrimSpace(lines[first-1]) == "" {
			first++
		}
		return b.Errorf(fmt.Sprintf("line %d", first), "not an Aider chat history: no %q header, \"#### \" line of the user or \"> \" line of aider", strings.TrimSpace(aiderStart))
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
			b.MapRecord()
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
	b        *importer.Builder
	sessions importer.List
	cur      importer.Obj   // the current session's record
	out      []string       // aider's messages since the last prompt or step
	last     *importer.Step // the step aider's messages follow, if any
	lastUser int            // the prompt they follow, -1 if a step or none
	edits    []*importer.Step
	failed   string          // aider's message that blocks of the last answer failed to match
	created  map[string]bool // files aider asked to create for the last answer
}

// closeEdits ends the last answer's edits: those aider did not apply,
// when it said blocks failed to match, failed.
func (a *aiderImport) closeEdits() {
	if a.failed != "" {
		for _, e := range a.edits {
			if !e.Resolved {
				e.Resolved = true
				e.Fail(importer.Failure{Msg: a.failed})
			}
		}
	}
	a.edits, a.failed, a.created = nil, "", nil
}

func (a *aiderImport) session(started string) {
	a.flushOut()
	a.endSession()
	a.cur = importer.Obj{}
	a.cur.SetString("started", started)
	a.last, a.lastUser = nil, -1
}

func (a *aiderImport) endSession() {
	if a.cur != nil {
		a.sessions = append(a.sessions, a.cur.Raw())
	}
}

// tool takes one of aider's own messages.
func (a *aiderImport) tool(text string) {
	b := a.b
	b.MapRecord()
	switch {
	case strings.HasPrefix(text, "Aider v"):
		b.Tool("aider", strings.TrimPrefix(text, "Aider "))
	case strings.HasPrefix(text, "Main model: "):
		model, format, _ := strings.Cut(strings.TrimPrefix(text, "Main model: "), " with ")
		b.SetModel(model)
		if a.cur != nil {
			a.cur.SetString("main_model", model)
			format, _, _ = strings.Cut(format, " edit format")
			a.cur.SetString("edit_format", format)
		}
	case strings.HasPrefix(text, "Running "):
		a.flushOut()
		s := b.Call(&importer.Call{Name: "shell", Args: aiderCommand(strings.TrimPrefix(text, "Running "))}, "")
		s.Meta.SetString("ran_by", "aider")
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
			if !e.Resolved && gjsonString(e.Parameters, "path") == path {
				out := text
				e.Output, e.Resolved = &out, true
				if a.created[path] {
					e.Meta.Set("new_file", importer.JSONTrue)
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
		if prev := a.last.Meta.Get("aider_output"); prev != nil {
			var have []string
			json.Unmarshal(prev, &have)
			var now []string
			json.Unmarshal(v, &now)
			v, _ = json.Marshal(append(have, now...))
		}
		a.last.Meta.Set("aider_output", v)
	case a.lastUser >= 0:
		a.b.AppendMeta("aider_output", importer.Obj{{K: "after_prompt", V: importer.JSONInt(a.lastUser)}, {K: "lines", V: v}}.Raw())
	case a.cur != nil:
		a.cur.Set("startup", v)
	default:
		a.b.AppendMeta("aider_output", importer.Obj{{K: "lines", V: v}}.Raw())
	}
}

func (a *aiderImport) user(text string, line int) {
	b := a.b
	a.flushOut()
	b.MapRecord()
	a.closeEdits()
	if kind := aiderHarness(text); kind != "" {
		b.Prompt(importer.HarnessRole, text, importer.Obj{{K: "harness", V: importer.Quote(kind)}}, "")
	} else {
		b.Prompt("user", text, nil, "")
	}
	a.last, a.lastUser = nil, len(b.Prompts)-1
	for _, p := range []string{"/run ", "!"} {
		if cmd, ok := strings.CutPrefix(text, p); ok && strings.TrimSpace(cmd) != "" {
			s := b.Call(&importer.Call{Name: "shell", Args: aiderCommand(cmd)}, "")
			s.Meta.SetString("ran_by", "user")
			s.Meta.Set("prompt", importer.JSONInt(len(b.Prompts)-1))
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
	return importer.Obj{{K: "command", V: importer.Quote(cmd)}}.Raw()
}

// answer adds a model answer and its edit blocks.
func (a *aiderImport) answer(text string) {
	b := a.b
	a.flushOut()
	b.MapRecord()
	s := &importer.Step{Type: importer.LLMCall}
	out := text
	s.Output = &out
	b.Last = text
	b.AddStep(s)
	a.last, a.lastUser = s, -1
	a.closeEdits()
	for _, e := range aiderEdits(text) {
		a.edits = append(a.edits, b.Call(&importer.Call{Name: e.tool, Args: e.params}, ""))
	}
}

func (a *aiderImport) finish() {
	b := a.b
	a.flushOut()
	a.closeEdits()
	a.endSession()
	var meta importer.Obj
	meta.Set("sessions", a.sessions.Raw())
	b.Meta.Set("aider", meta.Raw())
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
	for _, s := range b.Steps {
		if !s.Resolved || s.Error != nil || (s.Tool != "write" && s.Tool != "edit") {
			continue
		}
		p := gjsonString(s.Parameters, "path")
		have, ok := known[p]
		search, replace := gjsonString(s.Parameters, "search"), gjsonString(s.Parameters, "replace")
		switch {
		case s.Tool == "write":
			have, ok = gjsonString(s.Parameters, "content"), true
		case search == "" && s.Meta.Get("new_file") != nil:
			have, ok = replace, true
		case ok && strings.Contains(have, search) && search != "":
			have = strings.Replace(have, search, replace, 1)
		case ok:
			b.Warn("aider applied an edit to %s whose SEARCH text is not in its known content (aider matches loosely): %s is no output", p, p)
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
	var outs []importer.Output
	for _, p := range order {
		content, ok := known[p]
		switch {
		case !ok:
		case importer.CleanRelative(p):
			outs = append(outs, importer.Output{Name: p, Content: content})
		default:
			b.Warn("file %q is no clean relative path: not an output", p)
		}
	}
	if len(outs) > 0 && strings.TrimSpace(b.Last) != "" {
		outs = append(outs, importer.Output{Name: importer.FinalName, Content: b.Last})
	}
	b.Outputs = append(b.Outputs, outs...)
	if unknown > 0 {
		b.Warn("%d SEARCH/REPLACE edit(s) applied to files whose content the history does not hold: they are steps, not outputs", unknown)
	}
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
		edits = append(edits, aiderEdit{"edit", importer.Obj{{K: "path", V: importer.Quote(path)}, {K: "search", V: importer.Quote(joinLines(search))}, {K: "replace", V: importer.Quote(joinLines(replace))}}.Raw()})
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
		edits = append(edits, aiderEdit{"write", importer.Obj{{K: "path", V: importer.Quote(name)}, {K: "content", V: importer.Quote(joinLines(body))}}.Raw()})
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
