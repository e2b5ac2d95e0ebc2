package importer

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Claude Code writes some "user" records itself: they are not text a
// person typed but what the harness adds to the conversation. Such a
// record is a prompt with the role harnessRole, its text byte for byte,
// and its kind in the prompt's metadata (metadata.prompts[i].harness).

// harnessRole is the role of a prompt Claude Code wrote, not the user.
const harnessRole = "harness"

// harnessTags are the tags that open the text of a record the harness
// writes, and the kind each says it is.
var harnessTags = []struct{ tag, kind string }{
	{"task-notification", "task-notification"}, // a background command or subagent finished
	{"command-name", "command"},                // a slash command
	{"command-message", "command"},
	{"command-args", "command"},
	{"command-contents", "command"},
	{"local-command-stdout", "command-output"}, // its output
	{"local-command-stderr", "command-output"},
	{"local-command-caveat", "command-caveat"},
	{"bash-input", "shell-input"}, // a "!" shell command
	{"bash-stdout", "shell-output"},
	{"bash-stderr", "shell-output"},
	{"system-reminder", "system-reminder"},
}

// interrupts are the texts Claude Code writes as a user record when the
// user stops a turn (Esc): the whole text of the record.
var interrupts = []string{"[Request interrupted by user]", "[Request interrupted by user for tool use]"}

// harnessText returns the kind of harness text a text block is, if it is
// one — it opens with one of harnessTags, or is an interrupt — and what
// shows it ("<task-notification>", the interrupt's text).
func harnessText(text string) (kind, shown string) {
	if slices.Contains(interrupts, text) {
		return "interrupt", text
	}
	return harnessTag(text)
}

// harnessTag returns the kind of the tag text opens with, if it is one
// of harnessTags, and the tag as "<tag>".
func harnessTag(text string) (kind, tag string) {
	t := strings.TrimLeft(text, " \t\r\n")
	if !strings.HasPrefix(t, "<") {
		return "", ""
	}
	for _, h := range harnessTags {
		if rest, ok := strings.CutPrefix(t[1:], h.tag); ok && rest != "" && (rest[0] == '>' || rest[0] == ' ') {
			return h.kind, "<" + h.tag + ">"
		}
	}
	return "", ""
}

// ccMarks are what a user record says about who wrote it.
type ccMarks struct {
	meta    bool   // "isMeta": true
	compact bool   // "isCompactSummary": true
	origin  string // origin.kind (newer versions): "human", "task-notification", …
	uuid    string
}

// harness sorts the user records of a transcript into the user's and the
// harness's, and remembers the records it could tell only by their text.
type harness struct {
	byText map[string][]string // kind -> where, for records told by their leading tag alone
	tags   map[string]string   // kind -> the first tag seen for it
}

// classify tells whether the user record m (at where, with the message
// content c) is the harness's, and if so makes it a harness prompt. A
// record whose first text blocks are the harness's and the others not
// (a <system-reminder> before what the user typed) is split: the
// harness's blocks are returned as a prompt of their own, to come
// before m, which keeps the rest. Tool results are never prompts and are
// left as they are.
func (h *harness) classify(b *builder, where string, m *msg, c gjson.Result, mk ccMarks) *msg {
	if len(m.results) > 0 {
		return nil
	}
	// The text blocks, and the kind of the tag each opens with.
	var texts, kinds, tags []string
	onlyText := true
	block := func(s string) {
		k, t := harnessText(s)
		texts, kinds, tags = append(texts, s), append(kinds, k), append(tags, t)
	}
	switch {
	case c.Type == gjson.String:
		block(c.Str)
	case c.IsArray():
		each(c, func(_, p gjson.Result) bool {
			switch {
			case p.Type == gjson.String:
				block(p.Str)
			case p.Get("type").String() == "text" && p.Get("text").Type == gjson.String:
				block(p.Get("text").Str)
			default:
				onlyText = false
			}
			return true
		})
	}
	lead := 0 // the harness's blocks before the first other one
	for lead < len(kinds) && kinds[lead] != "" {
		lead++
	}
	tagged := lead
	for _, k := range kinds[lead:] {
		if k != "" {
			tagged++
		}
	}
	kind, byText := "", false
	switch {
	case mk.compact:
		kind = "compact-summary"
	case mk.origin != "" && mk.origin != "human":
		kind = mk.origin
	case tagged > 0 && tagged == len(kinds):
		kind = kinds[0]
		byText = !mk.meta
	case mk.meta:
		kind = "meta"
	case lead > 0 && tagged == lead && onlyText && len(m.parts) == 0:
		// Split: the harness's leading blocks, then the user's.
		hm := &msg{role: harnessRole, ts: m.ts}
		for _, t := range texts[:lead] {
			hm.addText(t)
		}
		hm.meta.setString("harness", kinds[0])
		if mk.uuid != "" {
			hm.meta.setString("uuid", mk.uuid)
		}
		m.text, m.hasText = "", false
		for _, t := range texts[lead:] {
			m.addText(t)
		}
		h.note(kinds[0], tags[0], where)
		return hm
	case tagged > 0:
		i := 0
		for kinds[i] == "" {
			i++
		}
		b.warn("%s: a user prompt holds text the harness writes (%s) after other text; it is kept as the user's", where, tags[i])
		return nil
	default:
		return nil
	}
	m.role = harnessRole
	m.meta.setString("harness", kind)
	if byText {
		h.note(kind, tags[0], where)
	}
	return nil
}

// note remembers a record taken as the harness's by its text.
func (h *harness) note(kind, tag, where string) {
	if h.byText == nil {
		h.byText, h.tags = map[string][]string{}, map[string]string{}
	}
	h.byText[kind] = append(h.byText[kind], where)
	if _, ok := h.tags[kind]; !ok {
		h.tags[kind] = tag
	}
}

// report says which records were taken as the harness's by their text
// alone: nothing but the tag tells them from a prompt a person typed.
func (h *harness) report(b *builder) {
	kinds := make([]string, 0, len(h.byText))
	for k := range h.byText {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		where := h.byText[k]
		list := strings.Join(where[:min(len(where), 5)], ", ")
		if len(where) > 5 {
			list += fmt.Sprintf(" and %d more", len(where)-5)
		}
		by := "leading " + h.tags[k]
		if !strings.HasPrefix(h.tags[k], "<") {
			by = "text " + strconv.Quote(h.tags[k])
		}
		b.warn("%d user record(s) taken as the harness's %s by their %s alone (nothing else in the record says the harness wrote it): %s",
			len(where), k, by, list)
	}
}
