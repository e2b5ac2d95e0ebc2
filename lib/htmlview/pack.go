package htmlview

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ctx-tools/ctx/lib/cost"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
)

// packPage is the view of one pack; Replay is set on a replay page.
type packPage struct {
	Hash, Short, URI, Parent string
	Created                  Text
	Model                    Text
	Params                   *JSON
	OS, Runtime              Text
	Tools                    []kv
	EnvMeta                  *JSON
	Metadata                 *JSON

	Counts  []kv // "what": "how many"
	Bytes   string
	System  *Content
	Prompts []promptView
	Steps   []stepView
	Inputs  []fileView
	Outputs []outputView

	// Errors lists the steps that failed; Agents the subagents, in the
	// order they first appear.
	Errors []int
	Agents []agentView
	// Tokens is the run's token total; TokenModels and TokenAgents the
	// totals per model and per agent, when there are several.
	Tokens                   string
	TokenModels, TokenAgents []kv
	// Cost says what the run cost (lib/cost), "" when nothing did.
	Cost string

	Replay *replayView
	// Changes link to what each edit did to the files (changes.go).
	Changes []changeLink
}

type agentView struct {
	Name  Text
	Steps int
	First int // index of its first step
	From  int // the step that started it, or -1
}

// partView is one part of multimodal content.
type partView struct {
	Type, Media Text
	Content     *Content
}

type kv struct {
	K, V Text
}

type promptView struct {
	Role    Text
	Content *Content
	Parts   []partView
}

type fileView struct {
	Name    Text
	Media   Text
	Content *Content
	// Seen says how much of the file the session observed, when not all
	// of it: "lines 3–10, 20–25 of 120", or "by name only".
	Seen string
}

type outputView struct {
	Name       Text
	Media      Text
	Content    *Content
	Confidence Text
	Notes      Text
}

// stepView is one row of the timeline.
type stepView struct {
	Index         int
	Type, Tool    Text
	Params        *JSON
	Output        *Content
	Deterministic bool
	Timestamp     Text
	Delta         string
	Metadata      *JSON
	Replay        *stepReplay

	Agent     Text
	From      int // the step that started the subagent, or -1
	Parts     []partView
	Reasoning *Content
	Error     *errorView
	Usage     string
	Changes   []fileChange
}

type errorView struct {
	Message  Text
	ExitCode string
}

// Pack renders the page of pack m, reading its content from objs.
func Pack(m *manifest.Manifest, objs Objects, opt Options) ([]byte, error) {
	p, err := buildPack(m, objs, opt)
	if err != nil {
		return nil, err
	}
	return render("ctx pack "+shortRef(m.Hash.String()), page{Pack: p}, p.sizeHint())
}

// sizeHint guesses the size of the page: its text twice (in the summary
// and the body), and some markup per step.
func (p *packPage) sizeHint() int {
	n := 1024 * len(p.Steps)
	for _, s := range p.Steps {
		if s.Output != nil && s.Output.Kind == "text" {
			n += 2 * int(s.Output.Size)
		}
	}
	return n
}

func buildPack(m *manifest.Manifest, objs Objects, opt Options) (*packPage, error) {
	p := &packPage{
		Hash:    m.Hash.String(),
		Short:   shortRef(m.Hash.String()),
		URI:     m.Hash.URI(),
		Created: vis(m.Created),
		Model:   vis(m.Model.Identifier),
		Params:  jsonView(m.Model.Parameters, opt),
		OS:      vis(m.Environment.OS),
		Runtime: vis(m.Environment.Runtime),
		EnvMeta: jsonView(m.Environment.Metadata, opt),
	}
	if !m.Parent.IsZero() {
		p.Parent = m.Parent.String()
	}
	for _, k := range slices.Sorted(maps.Keys(m.Environment.ToolVersions)) {
		p.Tools = append(p.Tools, kv{vis(k), vis(m.Environment.ToolVersions[k])})
	}
	p.Metadata = jsonView(m.Metadata, opt)

	// Each object once: the same content may appear in several places.
	cache := map[digest.Digest]*Content{}
	budget := opt.maxTotal()
	get := func(d digest.Digest) (*Content, error) {
		if c, ok := cache[d]; ok || d.IsZero() {
			return c, nil
		}
		c, err := content(objs, d, opt, &budget)
		if err != nil {
			return nil, err
		}
		cache[d] = c
		return c, nil
	}
	var err error
	if p.System, err = get(m.SystemPrompt); err != nil {
		return nil, err
	}
	parts := func(ps []manifest.Part) ([]partView, error) {
		var out []partView
		for _, pt := range ps {
			c, err := get(pt.ContentRef)
			if err != nil {
				return nil, err
			}
			out = append(out, partView{vis(pt.Type), vis(pt.MediaType), c})
		}
		return out, nil
	}
	for _, pr := range m.Prompts {
		c, err := get(pr.ContentRef)
		if err != nil {
			return nil, err
		}
		v := promptView{Role: vis(pr.Role), Content: c}
		if v.Parts, err = parts(pr.Parts); err != nil {
			return nil, err
		}
		p.Prompts = append(p.Prompts, v)
	}
	for _, f := range m.Inputs {
		c, err := get(f.ContentRef)
		if err != nil {
			return nil, err
		}
		p.Inputs = append(p.Inputs, fileView{Name: vis(f.Name), Media: vis(f.MediaType), Content: c, Seen: seen(&f)})
	}
	agents := map[string]int{}
	prev, havePrev := parseTime(m.Created)
	for i := range m.Steps {
		st := &m.Steps[i]
		v := stepView{
			Index:         st.Index,
			Type:          vis(st.Type),
			Tool:          vis(st.Tool),
			Params:        jsonView(st.Parameters, opt),
			Deterministic: st.Deterministic,
			Timestamp:     vis(st.Timestamp),
			Metadata:      jsonView(st.Metadata, opt),
		}
		if t, ok := parseTime(st.Timestamp); ok {
			if havePrev {
				v.Delta = delta(t.Sub(prev))
			}
			prev, havePrev = t, true
		}
		if v.Output, err = get(st.OutputRef); err != nil {
			return nil, err
		}
		if v.Parts, err = parts(st.OutputParts); err != nil {
			return nil, err
		}
		if v.Reasoning, err = get(st.ReasoningRef); err != nil {
			return nil, err
		}
		v.Agent, v.From = vis(st.Agent), -1
		if st.ParentStep != nil {
			v.From = *st.ParentStep
		}
		if st.Agent != "" {
			if k, ok := agents[st.Agent]; ok {
				p.Agents[k].Steps++
			} else {
				agents[st.Agent] = len(p.Agents)
				p.Agents = append(p.Agents, agentView{Name: vis(st.Agent), Steps: 1, First: st.Index, From: v.From})
			}
		}
		if e := st.Error; e != nil {
			v.Error = &errorView{Message: vis(e.Message)}
			if e.ExitCode != nil {
				v.Error.ExitCode = fmt.Sprint(*e.ExitCode)
			}
			p.Errors = append(p.Errors, st.Index)
		}
		if st.Usage != nil {
			v.Usage = usage(st.Usage)
		}
		p.Steps = append(p.Steps, v)
	}
	for _, o := range m.Outputs {
		c, err := get(o.ContentRef)
		if err != nil {
			return nil, err
		}
		p.Outputs = append(p.Outputs, outputView{vis(o.Name), vis(o.MediaType), c, vis(o.Confidence), vis(o.Notes)})
	}
	var total int64
	for _, c := range cache {
		if c != nil {
			total += c.Size
		}
	}
	p.Bytes = fmt.Sprintf("%s in %s", size(total), plural(len(cache), "object"))
	p.Counts = counts(m)
	if r, ok := manifest.RedactionOf(m.Metadata); ok {
		p.Counts = append(p.Counts, kv{vis("redacted"), vis(fmt.Sprintf("%d mark(s) [REDACTED:…] replace the secrets found by %s", r.Marks, r.Scanner))})
	}
	p.setChanges(replay.EditChanges(objs.Get, m))
	tokens(p, cost.Of(m, cmp.Or(opt.Prices, cost.Default())))
	return p, nil
}

// seen says how much of an input the session saw, when not all of it.
func seen(f *manifest.File) string {
	switch f.Seen {
	case manifest.SeenWhole:
		return ""
	case manifest.SeenName:
		return "seen by name only: no content"
	case manifest.SeenPartial:
		var rs []string
		for _, r := range f.Lines {
			if r[0] == r[1] {
				rs = append(rs, fmt.Sprint(r[0]))
			} else {
				rs = append(rs, fmt.Sprintf("%d–%d", r[0], r[1]))
			}
		}
		s := "partly seen: lines " + strings.Join(rs, ", ")
		if f.TotalLines > 0 {
			s += fmt.Sprintf(" of %d", f.TotalLines)
		}
		return s
	}
	return "seen: " + f.Seen
}

// usage lists the token counts a step recorded.
func usage(u *manifest.Usage) string {
	var parts []string
	for _, f := range u.Fields() {
		if *f.Value != nil {
			parts = append(parts, fmt.Sprintf("%s %d", strings.TrimSuffix(f.Name, "_tokens"), **f.Value))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "tokens: " + strings.Join(parts, ", ")
}

// tokens fills the token totals of p and what they cost, with both per
// model and per agent when there are several, and each step's cost.
func tokens(p *packPage, c *cost.Pack) {
	for i, st := range c.Steps {
		if st != nil && st.USD() != nil && i < len(p.Steps) && p.Steps[i].Usage != "" {
			p.Steps[i].Usage += " · " + cost.Format(st.USD())
		}
	}
	p.Cost = c.Line()
	if c.Tokens.IsZero() {
		return
	}
	p.Tokens = c.Tokens.String()
	line := func(t cost.Tally) Text {
		s := t.Tokens.String()
		if t.USD != nil {
			s += " · " + cost.Format(t.USD)
		}
		return vis(s)
	}
	if len(c.Models) > 1 {
		for _, m := range c.Models {
			p.TokenModels = append(p.TokenModels, kv{vis(m.Name), line(m)})
		}
	}
	if len(c.Agents) > 1 {
		for _, a := range c.Agents {
			name := a.Name
			if name == "" {
				name = "main"
			}
			p.TokenAgents = append(p.TokenAgents, kv{vis(name), line(a)})
		}
	}
}

// counts summarises the steps by type and tool, determinism, inputs and
// outputs.
func counts(m *manifest.Manifest) []kv {
	byType, byTool := map[string]int{}, map[string]int{}
	det, failed := 0, 0
	for _, st := range m.Steps {
		if st.Error != nil {
			failed++
		}
		byType[st.Type]++
		if st.Tool != "" {
			byTool[st.Tool]++
		}
		if st.Deterministic {
			det++
		}
	}
	line := fmt.Sprintf("%d: %d deterministic, %d not", len(m.Steps), det, len(m.Steps)-det)
	if failed > 0 {
		line += fmt.Sprintf("; %d failed", failed)
	}
	out := []kv{{vis("steps"), vis(line)}}
	if len(byType) > 0 {
		out = append(out, kv{vis("step types"), vis(tally(byType))})
	}
	if len(byTool) > 0 {
		out = append(out, kv{vis("tools used"), vis(tally(byTool))})
	}
	out = append(out, kv{vis("files"), vis(fmt.Sprintf("%s, %s, %s",
		plural(len(m.Prompts), "prompt"), plural(len(m.Inputs), "input"), plural(len(m.Outputs), "output")))})
	return out
}

// tally lists counts, most frequent first, then by name.
func tally(n map[string]int) string {
	keys := slices.Collect(maps.Keys(n))
	sort.Slice(keys, func(i, j int) bool {
		if n[keys[i]] != n[keys[j]] {
			return n[keys[i]] > n[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, n[k])
	}
	return strings.Join(parts, ", ")
}
