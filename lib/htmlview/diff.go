package htmlview

import (
	"bytes"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/drift"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// diffPage is the view of a drift report.
type diffPage struct {
	A, B      sideInfo
	Identical bool
	Align     string
	Command   string
	Summary   []sumRow
	Ignored   []sumRow
	// Volatile counts the metadata values left out as differing in every
	// run (drift.Report.VolatileMetadata).
	Volatile int
	Banner   banner
	Table    []cmpRow
	Entries  []entryView // entries not about a step, in report order
	Rows     []rowView
	Outputs  []outRow
}

type sideInfo struct {
	Hash, Short    string
	Created, Model Text
	Steps          int
	Tokens         string // the token total, "" when no step recorded usage
}

type sumRow struct {
	Type   string
	Count  int
	Anchor string // id of the first entry of the type
}

type banner struct {
	Text   string
	Anchor string
	Class  string
}

// cmpRow is one line of the model, parameter and environment table.
type cmpRow struct {
	Key                Text
	A, B               Text
	AMissing, BMissing bool
	Changed            bool
}

type outRow struct {
	Name         Text
	Status       string
	A, B         *outSide
	Confidence   [2]Text
	NotesChanged bool
}

type outSide struct {
	Ref, Size string
}

func (o *outSide) Short() string { return shortRef(o.Ref) }

// rowView is one aligned pair of steps, or (Group set) a run of
// unchanged pairs shown collapsed.
type rowView struct {
	ID      string
	Status  string // same, changed, added, removed
	Labels  []string
	A, B    *sideStep
	Entries []entryView
	Group   []rowView
	Label   string
	// Markup is the whole row of an unchanged pair, or of a run of them
	// (Group): most rows of a large comparison, built here rather than by
	// the template.
	Markup template.HTML
}

// sameRow writes the markup of an unchanged pair, as the "pair" template
// would.
func sameRow(b *strings.Builder, r *rowView) {
	b.WriteString(`<div class="pair same" id="`)
	b.WriteString(template.HTMLEscapeString(r.ID))
	b.WriteString("\">\n<div class=\"sa\">")
	r.A.write(b)
	b.WriteString("</div>\n<div class=\"sm\"><span class=\"badge s-same\">same</span></div>\n<div class=\"sb\">")
	r.B.write(b)
	b.WriteString("</div>\n</div>\n")
}

// sideStep is one side of a pair: untrusted strings, escaped as they are
// written.
type sideStep struct {
	Index      int
	Type, Tool string
	Agent      string
	Failed     bool
	Params     string // clipped
}

type entryView struct {
	ID, Type, Change string
	Path             Text
	HasA, HasB       bool
	A, B             Text
	ASize, BSize     string
	ARef, BRef       string
	Binary           bool
	Truncated        bool
	Note             Text
	// Diff is the unified diff, one <div> per line classed by what the
	// line is (hdr, hunk, add, del, ctx, note), built here: a large
	// comparison has thousands of lines.
	Diff template.HTML
}

// groupMin is the shortest run of unchanged step pairs shown collapsed.
const groupMin = 4

// Diff renders the page of drift report r, the comparison of pack a with
// pack b aligned by al (as given to drift.Diff).
func Diff(a, b *manifest.Manifest, r *drift.Report, al drift.Alignment, opt Options) ([]byte, error) {
	p := &diffPage{
		A:         side(a),
		B:         side(b),
		Identical: r.Identical,
		Align:     "index",
	}
	if al == drift.AlignLCS {
		p.Align = "lcs"
		p.Command = "ctx-diff --align lcs " + a.Hash.String() + " " + b.Hash.String()
	} else {
		p.Command = "ctx-diff " + a.Hash.String() + " " + b.Hash.String()
	}
	first := map[string]int{}
	for i, e := range r.Drift {
		if _, ok := first[e.Type]; !ok {
			first[e.Type] = i
		}
	}
	for _, t := range sortedTypes(r.Summary) {
		p.Summary = append(p.Summary, sumRow{t, r.Summary[t], entryID(first[t])})
	}
	p.Volatile = r.VolatileMetadata
	for _, t := range sortedTypes(r.Ignored) {
		p.Ignored = append(p.Ignored, sumRow{Type: t, Count: r.Ignored[t]})
	}

	// Step entries go with their pair of steps; the rest are listed.
	byPair := map[drift.Pair][]entryView{}
	for i := range r.Drift {
		e := &r.Drift[i]
		v := entry(i, e)
		if e.AStep == nil && e.BStep == nil {
			p.Entries = append(p.Entries, v)
			continue
		}
		k := drift.Pair{A: -1, B: -1}
		if e.AStep != nil {
			k.A = *e.AStep
		}
		if e.BStep != nil {
			k.B = *e.BStep
		}
		byPair[k] = append(byPair[k], v)
	}
	var run []rowView
	var buf strings.Builder
	flush := func() {
		if len(run) >= groupMin {
			buf.Reset()
			for i := range run {
				sameRow(&buf, &run[i])
			}
			p.Rows = append(p.Rows, rowView{Status: "same", Group: run, Label: runLabel(run), Markup: template.HTML(buf.String())})
		} else {
			for i := range run {
				buf.Reset()
				sameRow(&buf, &run[i])
				run[i].Markup = template.HTML(buf.String())
			}
			p.Rows = append(p.Rows, run...)
		}
		run = nil
	}
	for _, pr := range drift.StepPairs(a.Steps, b.Steps, al) {
		row := rowView{Entries: byPair[pr], Status: "same"}
		delete(byPair, pr)
		if pr.A >= 0 {
			row.A = stepSide(&a.Steps[pr.A])
		}
		if pr.B >= 0 {
			row.B = stepSide(&b.Steps[pr.B])
			row.ID = fmt.Sprintf("step-%d", pr.B)
		} else {
			row.ID = fmt.Sprintf("a-step-%d", pr.A)
		}
		switch {
		case pr.A < 0:
			row.Status = "added"
		case pr.B < 0:
			row.Status = "removed"
		case len(row.Entries) > 0:
			row.Status = "changed"
		}
		for _, e := range row.Entries {
			if !slices.Contains(row.Labels, e.Type) {
				row.Labels = append(row.Labels, e.Type)
			}
		}
		if row.Status == "same" {
			run = append(run, row)
			continue
		}
		flush()
		if p.Banner.Text == "" {
			p.Banner = banner{Text: divergence(pr, row.Labels), Anchor: row.ID, Class: "drift"}
		}
		p.Rows = append(p.Rows, row)
	}
	flush()
	// An entry naming steps no pair has (a report not made with al) is
	// still shown, with the others.
	for i := range r.Drift {
		e := &r.Drift[i]
		if e.AStep == nil && e.BStep == nil {
			continue
		}
		k := drift.Pair{A: -1, B: -1}
		if e.AStep != nil {
			k.A = *e.AStep
		}
		if e.BStep != nil {
			k.B = *e.BStep
		}
		if _, left := byPair[k]; left {
			p.Entries = append(p.Entries, entry(i, e))
		}
	}
	switch {
	case r.Identical:
		p.Banner = banner{Text: "identical: no drift", Class: "same"}
	case p.Banner.Text == "":
		p.Banner = banner{Text: "steps identical; drift in " + strings.Join(sortedTypes(r.Summary), ", "), Anchor: entryID(0), Class: "drift"}
	}
	p.Table = table(a, b)
	p.Outputs = outputs(a, b)
	hint := 640*max(len(a.Steps), len(b.Steps)) + 2048*len(r.Drift)
	return render("ctx diff "+shortRef(a.Hash.String())+" "+shortRef(b.Hash.String()), page{Diff: p}, hint)
}

// divergence is the banner's text for the first pair that differs, with
// the drift types found there.
func divergence(pr drift.Pair, types []string) string {
	switch {
	case pr.A < 0:
		return fmt.Sprintf("first divergence at step %d: added in B", pr.B)
	case pr.B < 0:
		return fmt.Sprintf("first divergence at step %d of A: removed in B", pr.A)
	}
	s := fmt.Sprintf("first divergence at step %d", pr.B)
	if pr.A != pr.B {
		s += fmt.Sprintf(" (step %d of A)", pr.A)
	}
	return s + ": " + strings.Join(types, ", ")
}

func runLabel(run []rowView) string {
	f, l := run[0], run[len(run)-1]
	if f.A.Index == f.B.Index && l.A.Index == l.B.Index {
		return fmt.Sprintf("%d unchanged steps: %d–%d", len(run), f.B.Index, l.B.Index)
	}
	return fmt.Sprintf("%d unchanged steps: %d–%d (A: %d–%d)", len(run), f.B.Index, l.B.Index, f.A.Index, l.A.Index)
}

func side(m *manifest.Manifest) sideInfo {
	t := manifest.CountTokens(m)
	return sideInfo{Hash: m.Hash.String(), Short: shortRef(m.Hash.String()), Created: vis(m.Created), Model: vis(m.Model.Identifier), Steps: len(m.Steps), Tokens: t.All.String()}
}

func stepSide(s *manifest.Step) *sideStep {
	v := &sideStep{Index: s.Index, Type: s.Type, Tool: s.Tool, Agent: s.Agent, Failed: s.Error != nil,
		Params: clip(string(s.Parameters), 80)}
	return v
}

// HTML is the side's markup, built here rather than by the template: a
// diff page has one per step of each pack.
func (s *sideStep) HTML() template.HTML {
	var b strings.Builder
	s.write(&b)
	return template.HTML(b.String())
}

func (s *sideStep) write(b *strings.Builder) {
	b.WriteString(`<span class="idx">#`)
	b.WriteString(strconv.Itoa(s.Index))
	b.WriteString(`</span> <span class="type">`)
	writeVis(b, s.Type)
	b.WriteString(`</span> <strong class="tool">`)
	writeVis(b, s.Tool)
	b.WriteString(`</strong> `)
	if s.Agent != "" {
		b.WriteString(`<span class="badge agent">agent `)
		writeVis(b, s.Agent)
		b.WriteString(`</span> `)
	}
	if s.Failed {
		b.WriteString(`<span class="badge error">error</span> `)
	}
	b.WriteString(`<code class="params">`)
	writeVis(b, s.Params)
	b.WriteString(`</code>`)
}

func entryID(i int) string { return fmt.Sprintf("drift-%d", i) }

// sortedTypes lists the drift types present in n in report order, then
// any other in name order.
func sortedTypes(n map[string]int) []string {
	var out []string
	for _, t := range drift.Types() {
		if n[t] > 0 {
			out = append(out, t)
		}
	}
	for _, t := range slices.Sorted(maps.Keys(n)) {
		if !drift.IsType(t) && n[t] > 0 {
			out = append(out, t)
		}
	}
	return out
}

func entry(i int, e *drift.Entry) entryView {
	v := entryView{
		ID: entryID(i), Type: e.Type, Change: e.Change, Path: vis(e.Path),
		Binary: e.Binary, Truncated: e.Truncated, Note: vis(e.Note),
	}
	content := !e.ARef.IsZero() || !e.BRef.IsZero()
	v.HasA, v.A = value(e.A, content)
	v.HasB, v.B = value(e.B, content)
	if e.ASize != nil {
		v.ASize = size(*e.ASize)
	}
	if e.BSize != nil {
		v.BSize = size(*e.BSize)
	}
	if !e.ARef.IsZero() {
		v.ARef = e.ARef.String()
	}
	if !e.BRef.IsZero() {
		v.BRef = e.BRef.String()
	}
	if e.Diff != "" {
		v.Diff = udiff(e.Diff)
	}
	return v
}

// udiff shows a unified diff: one <div> per line, classed by what the
// line is, its text escaped.
func udiff(diff string) template.HTML {
	var b strings.Builder
	b.Grow(len(diff) + len(diff)/4)
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		b.WriteString(`<div class="`)
		b.WriteString(lineClass(l))
		b.WriteString(`">`)
		vis(l).write(&b)
		b.WriteString(`</div>`)
	}
	return template.HTML(b.String())
}

// value shows an entry's value: content (text) as the text itself, any
// other value as JSON, so that "1" and 1 stay apart.
func value(v jsontext.Value, content bool) (bool, Text) {
	if v == nil {
		return false, nil
	}
	if content && v.Kind() == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return true, vis(s)
		}
	}
	return true, vis(string(v))
}

func lineClass(l string) string {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		return "hdr"
	case strings.HasPrefix(l, "@@"):
		return "hunk"
	case strings.HasPrefix(l, "+"):
		return "add"
	case strings.HasPrefix(l, "-"):
		return "del"
	case strings.HasPrefix(l, " "):
		return "ctx"
	}
	return "note"
}

// table lays out model, parameters, environment and shape side by side.
func table(a, b *manifest.Manifest) []cmpRow {
	var rows []cmpRow
	add := func(key string, va, vb string, oka, okb bool) {
		rows = append(rows, cmpRow{
			Key: vis(key), A: vis(va), B: vis(vb), AMissing: !oka, BMissing: !okb,
			Changed: oka != okb || va != vb,
		})
	}
	str := func(key, va, vb string) { add(key, va, vb, va != "", vb != "") }
	str("created", a.Created, b.Created)
	str("parent", hashOr(a.Parent), hashOr(b.Parent))
	str("model.identifier", a.Model.Identifier, b.Model.Identifier)
	object(add, canon.Path{"model", "parameters"}, a.Model.Parameters, b.Model.Parameters)
	str("environment.os", a.Environment.OS, b.Environment.OS)
	str("environment.runtime", a.Environment.Runtime, b.Environment.Runtime)
	tools := slices.Sorted(maps.Keys(a.Environment.ToolVersions))
	for t := range b.Environment.ToolVersions {
		if _, ok := a.Environment.ToolVersions[t]; !ok {
			tools = append(tools, t)
		}
	}
	slices.Sort(tools)
	for _, t := range tools {
		va, oka := a.Environment.ToolVersions[t]
		vb, okb := b.Environment.ToolVersions[t]
		add(canon.Path{"environment", "tool_versions", t}.String(), va, vb, oka, okb)
	}
	object(add, canon.Path{"environment", "metadata"}, a.Environment.Metadata, b.Environment.Metadata)
	n := func(k string, x, y int) { add(k, fmt.Sprint(x), fmt.Sprint(y), true, true) }
	n("prompts", len(a.Prompts), len(b.Prompts))
	n("inputs", len(a.Inputs), len(b.Inputs))
	n("steps", len(a.Steps), len(b.Steps))
	n("outputs", len(a.Outputs), len(b.Outputs))
	return rows
}

func hashOr(d digest.Digest) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}

// object adds one row per top-level member of two JSON objects (or one
// row for the whole values when either is not an object).
func object(add func(key, va, vb string, oka, okb bool), p canon.Path, a, b jsontext.Value) {
	if len(a) == 0 && len(b) == 0 {
		return
	}
	ka, ma, oka := members(a)
	kb, mb, okb := members(b)
	if !oka || !okb {
		add(p.String(), string(a), string(b), len(a) > 0, len(b) > 0)
		return
	}
	keys := append(ka, kb...)
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		va, ina := ma[k]
		vb, inb := mb[k]
		add(p.Key(k).String(), va, vb, ina, inb)
	}
}

// members returns the member names of a JSON object, and their values as
// canonical JSON; ok is false when v is not an object. An absent value is
// an empty object.
func members(v jsontext.Value) (keys []string, m map[string]string, ok bool) {
	m = map[string]string{}
	if len(v) == 0 {
		return nil, m, true
	}
	if v.Kind() != '{' {
		return nil, nil, false
	}
	dec := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := dec.ReadToken(); err != nil {
		return nil, nil, false
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, nil, false
		}
		k := name.String()
		val, err := dec.ReadValue()
		if err != nil {
			return nil, nil, false
		}
		c, err := canon.Canonicalize(val)
		if err != nil {
			c = bytes.Clone(val)
		}
		keys = append(keys, k)
		m[k] = string(c)
	}
	return keys, m, true
}

// outputs pairs the outputs of a and b by name.
func outputs(a, b *manifest.Manifest) []outRow {
	oa, ob := map[string]*manifest.Output{}, map[string]*manifest.Output{}
	for i := range a.Outputs {
		if _, dup := oa[a.Outputs[i].Name]; !dup {
			oa[a.Outputs[i].Name] = &a.Outputs[i]
		}
	}
	for i := range b.Outputs {
		if _, dup := ob[b.Outputs[i].Name]; !dup {
			ob[b.Outputs[i].Name] = &b.Outputs[i]
		}
	}
	names := slices.Collect(maps.Keys(oa))
	for k := range ob {
		if _, ok := oa[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var rows []outRow
	for _, name := range names {
		x, y := oa[name], ob[name]
		r := outRow{Name: vis(name), Status: "same"}
		if x != nil {
			r.A = &outSide{x.ContentRef.String(), size(x.Size)}
			r.Confidence[0] = vis(x.Confidence)
		}
		if y != nil {
			r.B = &outSide{y.ContentRef.String(), size(y.Size)}
			r.Confidence[1] = vis(y.Confidence)
		}
		switch {
		case x == nil:
			r.Status = "added"
		case y == nil:
			r.Status = "removed"
		case x.ContentRef != y.ContentRef || x.Confidence != y.Confidence || x.Notes != y.Notes:
			r.Status = "changed"
			r.NotesChanged = x.Notes != y.Notes
		}
		rows = append(rows, r)
	}
	return rows
}
