package grep

import (
	"encoding/hex"
	"strconv"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/visible"
)

// Escaped returns l's text escaped as every rendering of pack content is
// (visible.Escape: controls, bidirectional and invisible characters and
// invalid UTF-8 made visible), and the spans of its matches as byte
// offsets in that escaped text. Each piece between span ends is escaped
// on its own, so the spans mark exactly the escaped matches.
func Escaped(l *Line) (string, [][2]int) {
	var b []byte
	spans := make([][2]int, len(l.Spans))
	at := 0
	for i, sp := range l.Spans {
		b = append(b, visible.Escape(string(l.Text[at:sp[0]]))...)
		spans[i][0] = len(b)
		b = append(b, visible.Escape(string(l.Text[sp[0]:sp[1]]))...)
		spans[i][1] = len(b)
		at = sp[1]
	}
	b = append(b, visible.Escape(string(l.Text[at:]))...)
	return string(b), spans
}

// AppendJSON appends the canonical JSON line (without newline) that
// reports one matching line l, or with l nil a binary object that
// matches, at place p of result r:
//
//	{"agent","binary","field","hash","index","line","matches","name",
//	 "object","part","role","step","text","tool"}
//
// hash is the pack; object the object searched (absent for a step's
// parameters); step, tool, agent, index, part, role and name say where in
// the pack, each present only where it applies; line is the 1-based line
// number, text the line escaped (Escaped) and matches the [start,end]
// byte offsets of the matches in text.
func AppendJSON(b []byte, r *Result, p *Place, l *Line) []byte {
	b = append(b, '{')
	if p.Agent != "" {
		b = append(b, `"agent":`...)
		b = append(canon.AppendString(b, p.Agent), ',')
	}
	if l == nil {
		b = append(b, `"binary":true,`...)
	}
	b = append(b, `"field":"`...)
	b = append(b, p.Field.String()...)
	b = append(b, `","hash":`...)
	b = appendDigest(b, p.Pack)
	if p.Index >= 0 {
		b = append(b, `,"index":`...)
		b = strconv.AppendInt(b, int64(p.Index), 10)
	}
	var text string
	if l != nil {
		var spans [][2]int
		text, spans = Escaped(l)
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(l.Number), 10)
		b = append(b, `,"matches":[`...)
		for i, sp := range spans {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(sp[0]), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(sp[1]), 10)
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	if p.Name != "" {
		b = append(b, `,"name":`...)
		b = canon.AppendString(b, p.Name)
	}
	if !r.Object.IsZero() {
		b = append(b, `,"object":`...)
		b = appendDigest(b, r.Object)
	}
	if p.Part >= 0 {
		b = append(b, `,"part":`...)
		b = strconv.AppendInt(b, int64(p.Part), 10)
	}
	if p.Role != "" {
		b = append(b, `,"role":`...)
		b = canon.AppendString(b, p.Role)
	}
	if p.Step >= 0 {
		b = append(b, `,"step":`...)
		b = strconv.AppendInt(b, int64(p.Step), 10)
	}
	if l != nil {
		b = append(b, `,"text":`...)
		b = canon.AppendString(b, text)
	}
	if p.Tool != "" {
		b = append(b, `,"tool":`...)
		b = canon.AppendString(b, p.Tool)
	}
	return append(b, '}')
}

func appendDigest(b []byte, d digest.Digest) []byte {
	b = append(b, `"sha256:`...)
	b = hex.AppendEncode(b, d[:])
	return append(b, '"')
}
