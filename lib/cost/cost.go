package cost

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/internal/zerocopy"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// Counting says what a step's counters include.
type Counting struct {
	InputHasCache      bool // input_tokens counts the cache reads and writes
	OutputHasReasoning bool // output_tokens counts the reasoning tokens
}

// Source is how a pack's source counts its usage, where it says: nil
// members are not known from the source.
type Source struct {
	Name               string
	InputHasCache      *bool
	OutputHasReasoning *bool
}

var yes, no = new(bool), new(bool)

func init() { *yes = true }

// SourceOf tells m's source by what its importer recorded: the agent's
// tool_versions entry, or its member of the pack's metadata.
func SourceOf(m *manifest.Manifest) Source {
	meta := gjson.ParseBytes(m.Metadata)
	tv := m.Environment.ToolVersions
	switch {
	case tv["claude-code"] != "":
		return Source{"claude-code", no, yes}
	case meta.Get("opencode").Exists():
		return Source{"opencode", no, no}
	case meta.Get("gemini").Exists():
		return Source{"gemini-cli", yes, no}
	case tv["codex"] != "":
		return Source{"codex", yes, yes}
	case tv["copilot"] != "":
		return Source{"copilot-cli", yes, yes}
	case meta.Get("atif").Exists():
		return Source{"atif", yes, nil} // prompt_tokens counts cached tokens
	}
	return Source{}
}

// CountingOf says how usage u of a step answered by model (priced p) was
// counted. The step's own counters decide where they can: cache reads and
// writes above input_tokens cannot be part of it, and total_tokens is
// the sum of the counters one way only. Else the source says; else the
// model's API: Anthropic's (Claude models, wherever served) counts input
// without the cache, the others with it; output counts reasoning.
func CountingOf(src Source, model string, p Price, u *manifest.Usage) Counting {
	c := Counting{InputHasCache: true, OutputHasReasoning: true}
	if p.Provider == "anthropic" || strings.Contains(strings.ToLower(model), "claude") {
		c.InputHasCache = false
	}
	if src.InputHasCache != nil {
		c.InputHasCache = *src.InputHasCache
	}
	if src.OutputHasReasoning != nil {
		c.OutputHasReasoning = *src.OutputHasReasoning
	}
	in, out, cache, r := n(u.InputTokens), n(u.OutputTokens), n(u.CacheReadTokens)+n(u.CacheCreationTokens), n(u.ReasoningTokens)
	if u.TotalTokens != nil {
		var fit []Counting
		for _, k := range []Counting{{true, true}, {true, false}, {false, true}, {false, false}} {
			sum := in + out
			if !k.InputHasCache {
				sum += cache
			}
			if !k.OutputHasReasoning {
				sum += r
			}
			if sum == *u.TotalTokens {
				fit = append(fit, k)
			}
		}
		if len(fit) > 0 {
			if all(fit, func(k Counting) bool { return k.InputHasCache }) {
				c.InputHasCache = true
			} else if all(fit, func(k Counting) bool { return !k.InputHasCache }) {
				c.InputHasCache = false
			}
			if all(fit, func(k Counting) bool { return k.OutputHasReasoning }) {
				c.OutputHasReasoning = true
			} else if all(fit, func(k Counting) bool { return !k.OutputHasReasoning }) {
				c.OutputHasReasoning = false
			}
		}
	}
	if cache > in {
		c.InputHasCache = false
	}
	if r > out {
		c.OutputHasReasoning = false
	}
	return c
}

func all(ks []Counting, f func(Counting) bool) bool {
	for _, k := range ks {
		if !f(k) {
			return false
		}
	}
	return true
}

func n(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}

// Cost prices usage u counted c: input tokens neither read from nor
// written to the cache at Input, cache reads at CacheRead, cache writes
// at CacheWrite, output at Output and reasoning tokens at Reasoning
// (Output when not priced apart); a missing cache rate is Input's. Above
// the tier, the tier's rates apply to the whole call, as Anthropic and
// OpenAI bill long prompts.
func (p Price) Cost(u *manifest.Usage, c Counting) float64 {
	in, out := n(u.InputTokens), n(u.OutputTokens)
	read, write, r := n(u.CacheReadTokens), n(u.CacheCreationTokens), n(u.ReasoningTokens)
	fresh := in
	if c.InputHasCache {
		fresh = max(0, in-read-write)
	}
	rates := p
	if p.Above != nil && fresh+read+write > p.Tier {
		rates = *p.Above
	}
	text, reasoning := out, int64(0)
	switch {
	case !c.OutputHasReasoning:
		reasoning = r
	case rates.Reasoning != nil:
		reasoning = min(r, out)
		text = out - reasoning
	}
	or := func(v *float64, d float64) float64 {
		if v == nil {
			return d
		}
		return *v
	}
	return float64(fresh)*rates.Input + float64(read)*or(rates.CacheRead, rates.Input) +
		float64(write)*or(rates.CacheWrite, rates.Input) + float64(text)*rates.Output +
		float64(reasoning)*or(rates.Reasoning, rates.Output)
}

// Round rounds a dollar figure to the nano-dollar, so that sums print
// as people wrote them.
func Round(x float64) float64 { return math.Round(x*1e9) / 1e9 }

// Step is the cost of one step that recorded usage or a cost.
type Step struct {
	Model    string
	Agent    *float64 // the agent's own figure
	Computed *float64 // from the usage and the price table; nil: not priced
}

// USD is the step's figure: the agent's, else the computed one; nil when
// there is neither.
func (s *Step) USD() *float64 {
	if s.Agent != nil {
		return s.Agent
	}
	return s.Computed
}

// Tally is the tokens and cost of the steps of one model or agent.
type Tally struct {
	Name   string
	Steps  int // steps that recorded usage
	Tokens manifest.Usage
	USD    *float64 // nil when none of them has a figure
}

// Pack is what a pack's model calls cost.
type Pack struct {
	Prices string // the price table's name
	// USD is the run's figure: the agent's own session total where it
	// records one, else the sum of the steps' figures; nil when no step
	// has one. When Unpriced is not empty it leaves those models out.
	USD *float64
	// Computed sums the computed figures of the steps that have one;
	// Agent is the agent's own figure for the run, its session total
	// or the sum of its per-step figures; nil when there is none.
	Computed, Agent *float64
	// Unpriced names, sorted, the models of steps with usage but with
	// neither a price nor an agent's figure (and no session total).
	Unpriced []string
	Steps    []*Step // by manifest step; nil for a step without usage or cost
	Tokens   manifest.Usage
	Models   []Tally // as manifest.CountTokens orders them
	Agents   []Tally
}

// HasFigures reports whether Of can find a figure in m: a step with usage
// or with metadata (where an agent's own figure is), or the run's
// metadata (its session total). Without any, Of's USD is nil and its
// Unpriced empty, whatever the table: a diff of two such runs need not
// load one.
func HasFigures(m *manifest.Manifest) bool {
	if len(m.Metadata) > 0 {
		return true
	}
	for i := range m.Steps {
		if s := &m.Steps[i]; s.Usage != nil || len(s.Metadata) > 0 {
			return true
		}
	}
	return false
}

// Of returns what m cost, priced with t.
func Of(m *manifest.Manifest, t *Table) *Pack {
	p := &Pack{Prices: t.Name, Steps: make([]*Step, len(m.Steps))}
	src := SourceOf(m)
	meta := gjson.ParseBytes(m.Metadata)
	session := meta.Get("cost.totalCostUSD")
	var computed, agent, total sum
	unpriced := map[string]bool{}
	for i := range m.Steps {
		s := &m.Steps[i]
		model, own := stepFigures(m, src, s)
		if own == nil && s.Usage == nil {
			continue // most steps: made nothing of (a diff prices two runs)
		}
		st := &Step{Model: model, Agent: own}
		if s.Usage != nil {
			if pr, ok := t.Lookup(st.Model); ok {
				v := Round(pr.Cost(s.Usage, CountingOf(src, st.Model, pr, s.Usage)))
				st.Computed = &v
			} else if st.Agent == nil {
				unpriced[st.Model] = true
			}
		}
		p.Steps[i] = st
		computed.add(st.Computed)
		agent.add(st.Agent)
		total.add(st.USD())
	}
	p.Computed, p.Agent, p.USD = computed.v, agent.v, total.v
	if session.Type == gjson.Number {
		v := session.Float()
		p.Agent, p.USD = &v, &v
		clear(unpriced)
	}
	for k := range unpriced {
		p.Unpriced = append(p.Unpriced, k)
	}
	slices.Sort(p.Unpriced)
	tok := manifest.CountTokens(m)
	p.Tokens = tok.All
	byModel, byAgent := map[string]*sum{}, map[string]*sum{}
	for i, st := range p.Steps {
		if st == nil {
			continue
		}
		for _, k := range []struct {
			m    map[string]*sum
			name string
		}{{byModel, st.Model}, {byAgent, m.Steps[i].Agent}} {
			if k.m[k.name] == nil {
				k.m[k.name] = &sum{}
			}
			k.m[k.name].add(st.USD())
		}
	}
	for _, tl := range tok.Models {
		v := byModel[tl.Name].value()
		if c := meta.Get("cost.modelUsage").Get(gjson.Escape(tl.Name) + ".costUSD"); session.Exists() && c.Type == gjson.Number {
			f := c.Float()
			v = &f
		}
		p.Models = append(p.Models, Tally{tl.Name, tl.Steps, tl.Usage, v})
	}
	for _, tl := range tok.Agents {
		p.Agents = append(p.Agents, Tally{tl.Name, tl.Steps, tl.Usage, byAgent[tl.Name].value()})
	}
	return p
}

// stepFigures returns the model that answered step s of m
// (m.StepModel) and the agent's own figure for it (stepAgent), reading
// its metadata once: a session's steps are thousands, most of them tool
// calls whose metadata names neither, and packing one sums them all.
func stepFigures(m *manifest.Manifest, src Source, s *manifest.Step) (model string, agent *float64) {
	if len(s.Metadata) == 0 {
		return m.Model.Identifier, nil // as StepModel and stepAgent say
	}
	// Not copied (gjson.ParseBytes would copy it whole): what is kept
	// of it, the model's name, is cloned.
	meta := gjson.Parse(zerocopy.String(s.Metadata))
	if !meta.IsObject() {
		return m.StepModel(s), stepAgent(src, s)
	}
	var mod, usage gjson.Result
	var haveModel, haveUsage bool
	meta.ForEach(func(k, v gjson.Result) bool {
		// The first of each, as a path search finds it.
		switch {
		case k.Str == "model" && !haveModel:
			mod, haveModel = v, true
		case k.Str == "usage" && !haveUsage:
			usage, haveUsage = v, true
		}
		return !haveModel || !haveUsage
	})
	model = m.Model.Identifier
	if mod.Type == gjson.String && mod.Str != "" {
		model = strings.Clone(mod.Str)
	}
	return model, usageAgent(src, usage)
}

// stepAgent returns the agent's own figure for step s: ATIF's cost_usd,
// or OpenCode's cost (Copilot CLI's cost is a count of premium requests).
func stepAgent(src Source, s *manifest.Step) *float64 {
	if len(s.Metadata) == 0 {
		return nil
	}
	return usageAgent(src, gjson.GetBytes(s.Metadata, "usage"))
}

// usageAgent is stepAgent given the step's metadata.usage, u.
func usageAgent(src Source, u gjson.Result) *float64 {
	v := u.Get("cost_usd")
	if !v.Exists() && src.Name == "opencode" {
		v = u.Get("cost")
	}
	if v.Type != gjson.Number || v.Float() < 0 {
		return nil
	}
	f := v.Float()
	return &f
}

// sum adds figures, staying nil until one is added.
type sum struct{ v *float64 }

func (s *sum) add(x *float64) {
	if x == nil {
		return
	}
	if s.v == nil {
		s.v = new(float64)
	}
	*s.v = Round(*s.v + *x)
}

func (s *sum) value() *float64 {
	if s == nil {
		return nil
	}
	return s.v
}

// Format writes a dollar figure for people: "$1.23" from a dollar up,
// four significant digits below ("$0.01851", "$0.000012"), "-" for nil.
func Format(usd *float64) string {
	if usd == nil {
		return "-"
	}
	v := *usd
	switch {
	case v == 0:
		return "$0"
	case math.Abs(v) >= 1:
		return "$" + strconv.FormatFloat(v, 'f', 2, 64)
	}
	digits := max(0, 3-int(math.Floor(math.Log10(math.Abs(v)))))
	s := strconv.FormatFloat(v, 'f', digits, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return "$" + s
}

// Line says what the run cost and where the figure comes from, for
// people: "$0.01851 (the agent's own figure; computed from usage:
// $0.01851)", "$0.025 (computed from usage with <prices>), without x (no
// price)"; "" when nothing recorded usage or cost.
func (p *Pack) Line() string {
	switch {
	case p.USD == nil && len(p.Unpriced) == 0:
		return ""
	case p.USD == nil:
		return "unknown: no price for " + strings.Join(p.Unpriced, ", ")
	}
	line := Format(p.USD)
	switch {
	case p.Agent != nil && p.Computed != nil:
		line += " (the agent's own figure; computed from usage: " + Format(p.Computed) + ")"
	case p.Agent != nil:
		line += " (the agent's own figure)"
	case p.USD != nil:
		line += " (computed from usage with " + p.Prices + ")"
	}
	if len(p.Unpriced) > 0 {
		line += ", without " + strings.Join(p.Unpriced, ", ") + " (no price)"
	}
	return line
}
