package importer

import (
	"fmt"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
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
const HarnessRole = "harness"

// harnessText and harnessTag are Claude Code's rules (claudecode.HarnessText).
var (
	harnessText = claudecode.HarnessText
	harnessTag  = claudecode.HarnessTag
)

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
	// marked: the harness texts are told by markers the agent itself
	// recognizes them by (Codex's, codexContext), so telling them by
	// their text is no guess; else, as Claude Code's (harnessText), by
	// their leading tag.
	marked bool
}

// classify tells whether the user record m (at where, with the message
// content c) is the harness's, and if so makes it a harness prompt. A
// record whose first text blocks are the harness's and the others not
// (a <system-reminder> before what the user typed) is split: the
// harness's blocks are returned as a prompt of their own, to come
// before m, which keeps the rest. Tool results are never prompts and are
// left as they are. tell is the agent's rule: the kind of harness text a
// text block is, and what shows it ("" when it is no harness text).
func (h *harness) classify(b *Builder, where string, m *Msg, c gjson.Result, mk ccMarks, tell func(text string) (kind, shown string)) *Msg {
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
	case mk.compact:
		kind = "compact-summary"
	case mk.origin != "" && mk.origin != "human":
		kind = mk.origin
	case tagged > 0 && tagged == len(kinds):
		kind = kinds[0]
		byText = !mk.meta && !h.marked
	case mk.meta:
		kind = "meta"
	case lead > 0 && tagged == lead && onlyText && len(m.Parts) == 0:
		// Split: the harness's leading blocks, then the user's.
		hm := &Msg{Role: HarnessRole, TS: m.TS}
		for _, t := range texts[:lead] {
			hm.AddText(t)
		}
		hm.Meta.SetString("harness", kinds[0])
		if mk.uuid != "" {
			hm.Meta.SetString("uuid", mk.uuid)
		}
		m.Text, m.HasText = "", false
		for _, t := range texts[lead:] {
			m.AddText(t)
		}
		if !h.marked {
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
func (h *harness) report(b *Builder) {
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

// Besides its user records, Claude Code writes two kinds of record that
// hold the only copy of something said in the session:
//
//   - an "attachment" record of attachment.type "queued_command": a
//     prompt the user (or a background task, commandMode
//     "task-notification") sent while the agent was working, which the
//     running turn took in. No user record is written for it; the
//     queue-operation records beside it only log the input queue. It is
//     a prompt, in its place in the file, its other members (commandMode,
//     origin) in metadata.prompts[i].attachment.
//   - a "system" record of subtype "local_command": a local command
//     (/model, /mcp) and its output, shown to the user and not sent to the
//     model, where Claude Code writes no user record for them. It is a
//     harness prompt of the kind its tag says, with "type": "system" in
//     its metadata.
//
// A "system" record of subtype "compact_boundary" marks a compaction; what
// it alone says (compactMetadata: the trigger, the tokens before) is kept
// in the metadata of the compaction summary written after it (the user
// record whose parentUuid is its uuid), as compact_boundary.
//
// Other attachments (reminders, hook output, file changes Claude Code adds
// to a turn: many kinds, undocumented and changing from version to
// version, not read yet) and other system records (turn_duration,
// stop_hook_summary, api_error, …) are skipped and counted.

// A ccBoundary is a compact_boundary record, kept with the summary after it.
type ccBoundary struct {
	uuid   string
	meta   Obj
	joined bool
}

// ccAside reads an attachment or system record (its members but type,
// timestamp and the session's, in f) into a prompt, or says which kind
// of skipped record (Format.Kinds) it is.
func (b *Builder) ccAside(where, typ string, f fields, ts string) (m *Msg, content gjson.Result, skipped string, err error) {
	m = &Msg{Role: "user", TS: ts}
	if typ == "attachment" {
		att := f.get("attachment")
		if t := att.Get("type").String(); t == "file" {
			return b.ccFile(f, ts)
		} else if t != "queued_command" {
			return nil, content, "attachment/" + t, nil
		}
		switch mode := att.Get("commandMode"); mode.String() {
		case "", "prompt", "task-notification":
		default:
			return nil, content, "attachment/queued_command of another commandMode", nil
		}
		content = att.Get("prompt")
		if err := b.readParts(m, content, At(where, "attachment.prompt")); err != nil {
			return nil, content, "", err
		}
		if !m.HasText && len(m.Parts) == 0 {
			return nil, content, "attachment/queued_command without a prompt", nil
		}
		m.Meta = Join(f.rest("attachment.prompt"), m.Meta)
		return m, content, "", nil
	}
	sub := f.get("subtype").String()
	switch sub {
	case "local_command":
	case "":
		return nil, content, "system", nil
	default:
		return nil, content, "system/" + sub, nil
	}
	content = f.get("content")
	k, _ := harnessTag(content.String())
	if content.Type != gjson.String || k == "" {
		return nil, content, "system/local_command without a tag", nil
	}
	m.Role = HarnessRole
	m.AddText(content.Str)
	m.Meta = Join(Obj{{"type", Quote("system")}}, f.rest("content"))
	m.Meta.SetString("harness", k)
	return m, content, "", nil
}

// ccFile reads a file attachment (a file Claude Code reads again after a
// compaction and sends with the next prompt) into a harness prompt of
// kind "file": the text blocks it renders for the model, as sent, the
// record's other members in its metadata.
func (b *Builder) ccFile(f fields, ts string) (*Msg, gjson.Result, string, error) {
	r := f.get("rendered")
	ok := f.get("renderedRole").String() == "user" && r.IsArray() && len(r.Array()) > 0
	r.ForEach(func(_, v gjson.Result) bool {
		ok = ok && v.Get("content").Type == gjson.String
		return ok
	})
	if !ok {
		return nil, r, "attachment/file without rendered text", nil
	}
	m := &Msg{Role: HarnessRole, TS: ts}
	r.ForEach(func(_, v gjson.Result) bool {
		m.AddText(v.Get("content").Str)
		return true
	})
	m.Meta = Join(Obj{{"type", Quote("attachment")}}, f.rest("rendered"))
	m.Meta.SetString("harness", "file")
	return m, r, "", nil
}

// A ccSource is the kind of record a prompt came from.
type ccSource struct {
	kind   string // "user", "queued" (an attachment) or "local" (a system record)
	where  string
	queued bool // a user record with "promptSource": "queued"
}

// ccOnce leaves out the prompts of attachment and system records that a
// user record repeats, counting them as skipped: a queued prompt whose
// text is that of the next prompt the user's records hold, and a local
// command whose text and time are those of a user record. When the user
// record does not say it was queued, the two are taken to be one all the
// same, and stderr says so.
func ccOnce(b *Builder, msgs []*Msg, src map[*Msg]ccSource, agent map[*Msg]string) []*Msg {
	type key struct{ ts, text string }
	users := map[key]bool{}
	for _, m := range msgs {
		if s, ok := src[m]; ok && s.kind == "user" && m.TS != "" && m.HasText && len(m.Parts) == 0 {
			users[key{m.TS, m.Text}] = true
		}
	}
	drop := map[*Msg]bool{}
	for i, m := range msgs {
		s := src[m]
		switch s.kind {
		case "local":
			if m.TS != "" && users[key{m.TS, m.Text}] {
				drop[m] = true
				unmap(b, b.reason("system/local_command copy"))
			}
		case "queued":
			for _, n := range msgs[i+1:] {
				ns := src[n]
				if ns.kind != "user" || n.Role != "user" || len(n.Results) > 0 || agent[n] != agent[m] {
					continue
				}
				if n.HasText && m.HasText && n.Text == m.Text && len(n.Parts) == 0 && len(m.Parts) == 0 {
					drop[m] = true
					unmap(b, b.reason("attachment/queued_command copy"))
					if !ns.queued {
						b.Warn("%s: the prompt queued at %s is taken to be this user record, which has its text; it is kept once, from %s", ns.where, s.where, ns.where)
					}
				}
				break
			}
		}
	}
	if len(drop) == 0 {
		return msgs
	}
	out := msgs[:0]
	for _, m := range msgs {
		if !drop[m] {
			out = append(out, m)
		}
	}
	return out
}

// unmap counts a record already counted as mapped as skipped instead.
func unmap(b *Builder, reason string) {
	b.Records--
	b.Mapped--
	b.Skip(reason)
}

// ccAbsorbed warns of the queue-operation records that say a turn took in
// a queued prompt (operation "remove", reason "absorbed_mid_turn") whose
// text no queued_command attachment holds: that text is in the skipped
// queue record alone.
func ccAbsorbed(b *Builder, absorbed []lineMember, src map[*Msg]ccSource) {
	if len(absorbed) == 0 {
		return
	}
	queued := map[string]bool{}
	for m, s := range src {
		if s.kind == "queued" && m.HasText {
			queued[m.Text] = true
		}
	}
	var lost []string
	for _, a := range absorbed {
		if !queued[a.v.Str] {
			lost = append(lost, a.k)
		}
	}
	if len(lost) > 0 {
		b.Warn("%d prompt(s) queued while the agent worked were taken into its turn with no queued_command attachment; their text is only in the queue-operation record, not kept: %s",
			len(lost), strings.Join(lost, ", "))
	}
}
