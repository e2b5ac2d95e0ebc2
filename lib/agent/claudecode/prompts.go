package claudecode

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/importer"
)

// Claude Code writes some "user" records itself: they are not text a
// person typed but what the harness adds to the conversation. Such a
// record is a prompt with the role HarnessRole, its text byte for byte,
// and its kind in the prompt's metadata (metadata.prompts[i].harness).

// harnessText and harnessTag are Claude Code's rules (HarnessText).
var (
	harnessText = HarnessText
	harnessTag  = HarnessTag
)

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
	meta   importer.Obj
	joined bool
}

// ccAside reads an attachment or system record (its members but type,
// timestamp and the session's, in f) into a prompt, or says which kind
// of skipped record (Format.Kinds) it is.
func ccAside(b *importer.Builder, where, typ string, f importer.Fields, ts string) (m *importer.Msg, content gjson.Result, skipped string, err error) {
	m = &importer.Msg{Role: "user", TS: ts}
	if typ == "attachment" {
		att := f.Get("attachment")
		if t := att.Get("type").String(); t == "file" {
			return ccFile(f, ts)
		} else if t != "queued_command" {
			return nil, content, "attachment/" + t, nil
		}
		switch mode := att.Get("commandMode"); mode.String() {
		case "", "prompt", "task-notification":
		default:
			return nil, content, "attachment/queued_command of another commandMode", nil
		}
		content = att.Get("prompt")
		if err := b.ReadParts(m, content, importer.At(where, "attachment.prompt")); err != nil {
			return nil, content, "", err
		}
		if !m.HasText && len(m.Parts) == 0 {
			return nil, content, "attachment/queued_command without a prompt", nil
		}
		m.Meta = importer.Join(f.Rest("attachment.prompt"), m.Meta)
		return m, content, "", nil
	}
	sub := f.Get("subtype").String()
	switch sub {
	case "local_command":
	case "":
		return nil, content, "system", nil
	default:
		return nil, content, "system/" + sub, nil
	}
	content = f.Get("content")
	k, _ := harnessTag(content.String())
	if content.Type != gjson.String || k == "" {
		return nil, content, "system/local_command without a tag", nil
	}
	m.Role = importer.HarnessRole
	m.AddText(content.Str)
	m.Meta = importer.Join(importer.Obj{{K: "type", V: importer.Quote("system")}}, f.Rest("content"))
	m.Meta.SetString("harness", k)
	return m, content, "", nil
}

// ccFile reads a file attachment (a file Claude Code reads again after a
// compaction and sends with the next prompt) into a harness prompt of
// kind "file": the text blocks it renders for the model, as sent, the
// record's other members in its metadata.
func ccFile(f importer.Fields, ts string) (*importer.Msg, gjson.Result, string, error) {
	r := f.Get("rendered")
	ok := f.Get("renderedRole").String() == "user" && r.IsArray() && len(r.Array()) > 0
	r.ForEach(func(_, v gjson.Result) bool {
		ok = ok && v.Get("content").Type == gjson.String
		return ok
	})
	if !ok {
		return nil, r, "attachment/file without rendered text", nil
	}
	m := &importer.Msg{Role: importer.HarnessRole, TS: ts}
	r.ForEach(func(_, v gjson.Result) bool {
		m.AddText(v.Get("content").Str)
		return true
	})
	m.Meta = importer.Join(importer.Obj{{K: "type", V: importer.Quote("attachment")}}, f.Rest("rendered"))
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
func ccOnce(b *importer.Builder, msgs []*importer.Msg, src map[*importer.Msg]ccSource, agent map[*importer.Msg]string) []*importer.Msg {
	type key struct{ ts, text string }
	users := map[key]bool{}
	for _, m := range msgs {
		if s, ok := src[m]; ok && s.kind == "user" && m.TS != "" && m.HasText && len(m.Parts) == 0 {
			users[key{m.TS, m.Text}] = true
		}
	}
	drop := map[*importer.Msg]bool{}
	for i, m := range msgs {
		s := src[m]
		switch s.kind {
		case "local":
			if m.TS != "" && users[key{m.TS, m.Text}] {
				drop[m] = true
				unmap(b, b.Reason("system/local_command copy"))
			}
		case "queued":
			for _, n := range msgs[i+1:] {
				ns := src[n]
				if ns.kind != "user" || n.Role != "user" || len(n.Results) > 0 || agent[n] != agent[m] {
					continue
				}
				if n.HasText && m.HasText && n.Text == m.Text && len(n.Parts) == 0 && len(m.Parts) == 0 {
					drop[m] = true
					unmap(b, b.Reason("attachment/queued_command copy"))
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
func unmap(b *importer.Builder, reason string) {
	b.Records--
	b.Mapped--
	b.Skip(reason)
}

// ccAbsorbed warns of the queue-operation records that say a turn took in
// a queued prompt (operation "remove", reason "absorbed_mid_turn") whose
// text no queued_command attachment holds: that text is in the skipped
// queue record alone.
func ccAbsorbed(b *importer.Builder, absorbed []importer.LineMember, src map[*importer.Msg]ccSource) {
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
		if !queued[a.V.Str] {
			lost = append(lost, a.K)
		}
	}
	if len(lost) > 0 {
		b.Warn("%d prompt(s) queued while the agent worked were taken into its turn with no queued_command attachment; their text is only in the queue-operation record, not kept: %s",
			len(lost), strings.Join(lost, ", "))
	}
}
