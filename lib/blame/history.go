package blame

import (
	"strings"

	"github.com/ctx-tools/ctx/lib/drift"
)

// Origin is the recorded step that wrote a line.
type Origin struct {
	Pack      string `json:"pack"` // sha256:<hex>
	Step      int    `json:"step"`
	Tool      string `json:"tool"`
	Session   string `json:"session,omitzero"`
	Model     string `json:"model,omitzero"`
	Agent     string `json:"agent,omitzero"`
	Prompt    *int   `json:"prompt,omitzero"` // index of the prompt the step answered
	Timestamp string `json:"timestamp,omitzero"`
}

// line is one line of a version of a file, with the step that wrote it
// (nil: not written by a recorded edit).
type line struct {
	text   string // without its newline
	origin *Origin
	mixed  bool // an agent's line that a change nobody recorded altered
}

// version is a file's content as a history reached it.
type version []line

// splitText splits content into lines without their newlines; a last line
// without a newline counts as a line, and "" has no lines.
func splitText(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// texts returns the lines of v.
func (v version) texts() []string {
	t := make([]string, len(v))
	for i, l := range v {
		t[i] = l.text
	}
	return t
}

// next returns the version whose text is after, taking each line's origin
// from v where the alignment of the two keeps it, and giving every other
// line the origin o. When o is nil (a change nobody recorded: a person's,
// seen by a later session), a changed line still similar to an agent's
// line it replaced keeps that origin as mixed. A line o's session held
// (found in a file it read) is not o's: it keeps the origin of a line of
// v with its text, if any, else has none. It also returns the lines o
// added.
func (v version) next(after []string, o *Origin, h *held) (version, []string) {
	out := make(version, len(after))
	var added []string
	// Edits are local: align only what lies between the lines the two
	// share at their start and at their end.
	pre := 0
	for pre < len(v) && pre < len(after) && v[pre].text == after[pre] {
		pre++
	}
	suf := 0
	for suf < len(v)-pre && suf < len(after)-pre && v[len(v)-1-suf].text == after[len(after)-1-suf] {
		suf++
	}
	ms := []drift.Match{{A: 0, B: 0, N: pre}}
	for _, m := range drift.Align(v[pre:len(v)-suf].texts(), after[pre:len(after)-suf]) {
		ms = append(ms, drift.Match{A: m.A + pre, B: m.B + pre, N: m.N})
	}
	ms = append(ms, drift.Match{A: len(v) - suf, B: len(after) - suf, N: suf}, drift.Match{A: len(v), B: len(after)})
	ai, bi := 0, 0
	for _, m := range ms {
		var pair []int
		if o == nil {
			pair = pairMixed(v[ai:m.A], after[bi:m.B])
		}
		for j := bi; j < m.B; j++ {
			out[j] = line{text: after[j], origin: o}
			if pair != nil && pair[j-bi] >= 0 {
				out[j] = line{text: after[j], origin: v[ai+pair[j-bi]].origin, mixed: true}
			}
			if o == nil {
				continue
			}
			if t := strings.TrimSpace(after[j]); h.has(t) {
				out[j] = line{text: after[j], origin: v.origin(t)}
				continue
			}
			added = append(added, after[j])
		}
		for k := 0; k < m.N; k++ {
			out[m.B+k] = v[m.A+k]
			out[m.B+k].text = after[m.B+k]
		}
		ai, bi = m.A+m.N, m.B+m.N
	}
	return out, added
}

// origin returns the origin of the last line of v whose trimmed text is
// t; nil when none has one.
func (v version) origin(t string) *Origin {
	for i := len(v) - 1; i >= 0; i-- {
		if v[i].origin != nil && strings.TrimSpace(v[i].text) == t {
			return v[i].origin
		}
	}
	return nil
}

// fromText is a version whose lines have no origin.
func fromText(s string) version {
	t := splitText(s)
	v := make(version, len(t))
	for i, l := range t {
		v[i] = line{text: l}
	}
	return v
}

// Lines splits a file's content into its lines, as Blame numbers them.
func Lines(content []byte) []string { return splitText(string(content)) }
