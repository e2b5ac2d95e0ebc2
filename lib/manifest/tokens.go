package manifest

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Tokens are the token counts of a pack's steps summed: over the whole
// run, per model and per agent.
type Tokens struct {
	// All sums every step's usage; a counter no step recorded stays nil.
	All Usage
	// Models tally the steps by the model that answered them (a step's
	// metadata.model, as importers record it, else the pack's model), in
	// the order each first appears.
	Models []TokenTally
	// Agents tally the steps by agent: "" the main one, then each
	// subagent, in the order each first appears.
	Agents []TokenTally
}

// TokenTally is the usage summed over the steps of one model or agent.
type TokenTally struct {
	Name  string
	Steps int // steps that recorded usage
	Usage Usage
}

// CountTokens sums the usage of m's steps.
func CountTokens(m *Manifest) Tokens {
	var t Tokens
	models, agents := map[string]int{}, map[string]int{}
	tally := func(list *[]TokenTally, index map[string]int, name string, u *Usage) {
		k, ok := index[name]
		if !ok {
			k = len(*list)
			index[name] = k
			*list = append(*list, TokenTally{Name: name})
		}
		(*list)[k].Steps++
		(*list)[k].Usage.Add(u)
	}
	for i := range m.Steps {
		s := &m.Steps[i]
		if s.Usage == nil {
			continue
		}
		t.All.Add(s.Usage)
		tally(&t.Models, models, m.StepModel(s), s.Usage)
		tally(&t.Agents, agents, s.Agent, s.Usage)
	}
	return t
}

// StepModel returns the model that answered step s of m: its
// metadata.model, as importers record it, else the pack's model.
func (m *Manifest) StepModel(s *Step) string {
	if r := gjson.GetBytes(s.Metadata, "model"); r.Type == gjson.String && r.Str != "" {
		return r.Str
	}
	return m.Model.Identifier
}

// Add adds the counters of v that are set to u's.
func (u *Usage) Add(v *Usage) {
	uf, vf := u.Fields(), v.Fields()
	for i := range uf {
		if *vf[i].Value == nil {
			continue
		}
		if *uf[i].Value == nil {
			*uf[i].Value = new(int64)
		}
		**uf[i].Value += **vf[i].Value
	}
}

// IsZero reports whether no counter of u is set.
func (u *Usage) IsZero() bool {
	for _, f := range u.Fields() {
		if *f.Value != nil {
			return false
		}
	}
	return true
}

// String renders the counters that are set, the way people read them:
// "in 12,000 · out 800 · cache read 9,000" (input, output, cache read,
// cache creation, reasoning, total), or "" when none is.
func (u *Usage) String() string {
	var parts []string
	for _, c := range []struct {
		label string
		v     *int64
	}{
		{"in", u.InputTokens}, {"out", u.OutputTokens}, {"cache read", u.CacheReadTokens},
		{"cache write", u.CacheCreationTokens}, {"reasoning", u.ReasoningTokens}, {"total", u.TotalTokens},
	} {
		if c.v != nil {
			parts = append(parts, c.label+" "+Thousands(*c.v))
		}
	}
	return strings.Join(parts, " · ")
}

// Thousands writes n with commas between groups of three digits.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
