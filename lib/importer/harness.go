package importer

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// An agent writes some user records itself: they are not text a person
// typed but what the harness adds to the conversation (lib/agent/claudecode,
// lib/agent/codex). Such a record is a prompt with the role HarnessRole,
// its text byte for byte, and its kind in the prompt's metadata
// (metadata.prompts[i].harness). The agent's rule tells its harness
// texts; harness applies it.

// HarnessRole is the role of a prompt the agent wrote, not the user.
const HarnessRole = "harness"

// HarnessMarks are what a user record says about who wrote it.
type HarnessMarks struct {
	Meta    bool   // "isMeta": true
	Compact bool   // "isCompactSummary": true
	Origin  string // origin.kind (newer versions): "human", "task-notification", …
	UUID    string
}

// Harness sorts the user records of a transcript into the user's and the
// harness's, and remembers the records it could tell only by their text.
type Harness struct {
	byText map[string][]string // kind -> where, for records told by their leading tag alone
	tags   map[string]string   // kind -> the first tag seen for it
	// Marked: the harness texts are told by markers the agent itself
	// recognizes them by (Codex's, lib/agent/codex), so telling them by
	// their text is no guess; else, as Claude Code's, by their leading
	// tag.
	Marked bool
}

// Classify tells whether the user record m (at where, with the message
// content c) is the harness's, and if so makes it a harness prompt. A
// record whose first text blocks are the harness's and the others not
// (a <system-reminder> before what the user typed) is split: the
// harness's blocks are returned as a prompt of their own, to come
// before m, which keeps the rest. Tool results are never prompts and are
// left as they are. tell is the agent's rule: the kind of harness text a
// text block is, and what shows it ("" when it is no harness text).
func (h *Harness) Classify(b *Builder, where string, m *Msg, c gjson.Result, mk HarnessMarks, tell func(text string) (kind, shown string)) *Msg {
	if len(m.Results) > 0 {
		return nil
	}
	// The text blocks, and the kind of the tag each opens with.
	var texts, kinds, tags []string
	onlyText := true
	block := func(s string) {
		k, t := tell(s)
		texts, kinds, tags = append(texts, s), append(kinds, k), append(tags, t)
	}
	switch {
	case c.Type == gjson.String:
		block(c.Str)
	case c.IsArray():
		Each(c, func(_, p gjson.Result) bool {
			switch {
			case p.Type == gjson.String:
				block(p.Str)
			case (p.Get("type").String() == "text" || p.Get("type").String() == "input_text") && p.Get("text").Type == gjson.String:
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
	case mk.Compact:
		kind = "compact-summary"
	case mk.Origin != "" && mk.Origin != "human":
		kind = mk.Origin
	case tagged > 0 && tagged == len(kinds):
		kind = kinds[0]
		byText = !mk.Meta && !h.Marked
	case mk.Meta:
		kind = "meta"
	case lead > 0 && tagged == lead && onlyText && len(m.Parts) == 0:
		// Split: the harness's leading blocks, then the user's.
		hm := &Msg{Role: HarnessRole, TS: m.TS}
		for _, t := range texts[:lead] {
			hm.AddText(t)
		}
		hm.Meta.SetString("harness", kinds[0])
		if mk.UUID != "" {
			hm.Meta.SetString("uuid", mk.UUID)
		}
		m.Text, m.HasText = "", false
		for _, t := range texts[lead:] {
			m.AddText(t)
		}
		if !h.Marked {
			h.note(kinds[0], tags[0], where)
		}
		return hm
	case tagged > 0:
		i := 0
		for kinds[i] == "" {
			i++
		}
		b.Warn("%s: a user prompt holds text the harness writes (%s) after other text; it is kept as the user's", where, tags[i])
		return nil
	default:
		return nil
	}
	m.Role = HarnessRole
	m.Meta.SetString("harness", kind)
	if byText {
		h.note(kind, tags[0], where)
	}
	return nil
}

// note remembers a record taken as the harness's by its text.
func (h *Harness) note(kind, tag, where string) {
	if h.byText == nil {
		h.byText, h.tags = map[string][]string{}, map[string]string{}
	}
	h.byText[kind] = append(h.byText[kind], where)
	if _, ok := h.tags[kind]; !ok {
		h.tags[kind] = tag
	}
}

// Report says which records were taken as the harness's by their text
// alone: nothing but the tag tells them from a prompt a person typed.
func (h *Harness) Report(b *Builder) {
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
		b.Warn("%d record(s) taken as the harness's %s by their %s alone (nothing else in the record says the harness wrote it): %s",
			len(where), k, by, list)
	}
}
