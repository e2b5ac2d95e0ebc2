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
// line the origin o (nil for a change nobody recorded). It also returns
// the lines o added.
func (v version) next(after []string, o *Origin) (version, []string) {
	out := make(version, len(after))
	var added []string
	ms := drift.Align(v.texts(), after)
	bi := 0
	for _, m := range ms {
		for ; bi < m.B; bi++ {
			out[bi] = line{after[bi], o}
			added = append(added, after[bi])
		}
		for k := 0; k < m.N; k++ {
			out[m.B+k] = line{after[m.B+k], v[m.A+k].origin}
		}
		bi = m.B + m.N
	}
	for ; bi < len(after); bi++ {
		out[bi] = line{after[bi], o}
		added = append(added, after[bi])
	}
	return out, added
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
