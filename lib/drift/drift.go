package drift

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/cost"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Drift types, in report order.
const (
	ModelDrift       = "model_drift"       // model identifier or parameters
	PromptDrift      = "prompt_drift"      // system prompt or prompts
	InputDrift       = "input_drift"       // inputs, matched by name: content, media type, how much was seen
	ToolDrift        = "tool_drift"        // a step's type, tool, determinism, agent or parent step; added or removed steps
	ParamDrift       = "param_drift"       // one parameter of a step
	ReasoningDrift   = "reasoning_drift"   // the model's reasoning: a model call's output, or a step's reasoning (thinking)
	ToolOutputDrift  = "tool_output_drift" // a tool call's output
	PartDrift        = "part_drift"        // a part of a multimodal prompt or step output: content, type, media type
	ErrorDrift       = "error_drift"       // a step's error: failed in one pack only, or another message or exit code
	UsageDrift       = "usage_drift"       // one token count of a step
	OutputDrift      = "output_drift"      // outputs, matched by name
	EnvironmentDrift = "environment_drift" // os, runtime, tool versions, environment metadata
	MetadataDrift    = "metadata_drift"    // the log's and the steps' metadata
)

var types = []string{
	ModelDrift, PromptDrift, InputDrift, ToolDrift, ParamDrift, ReasoningDrift, ToolOutputDrift,
	PartDrift, ErrorDrift, UsageDrift, OutputDrift, EnvironmentDrift, MetadataDrift,
}

// Types returns the drift types in report order.
func Types() []string { return slices.Clone(types) }

// IsType reports whether t is a drift type.
func IsType(t string) bool { return slices.Contains(types, t) }

// Kinds of change.
const (
	Changed = "changed" // both packs have it, with different values
	Added   = "added"   // only B has it
	Removed = "removed" // only A has it
)

// Alignment says how the steps of two packs are paired.
type Alignment int

const (
	// AlignIndex pairs steps with the same index; the longer pack's extra
	// steps are added or removed. O(N+M).
	AlignIndex Alignment = iota
	// AlignLCS pairs steps along a common subsequence of their (type,
	// tool, parameters), so that an inserted step is one addition. See
	// Align for its bound.
	AlignLCS
)

// DefaultValueBytes is the largest value (canonical JSON, or text content)
// shown in an entry by default.
const DefaultValueBytes = 256

// Options tune a comparison. The zero value aligns by index with the
// default bounds.
type Options struct {
	Align Alignment
	// Ignore lists drift types to leave out of the report; they are only
	// counted, and content they would need is not read.
	Ignore []string
	// DiffLines and DiffBytes bound each unified diff (zero: defaults).
	DiffLines, DiffBytes int
	// ValueBytes bounds the values shown in entries (zero: default).
	ValueBytes int
	// AllMetadata keeps metadata_drift entries of values that differ
	// between any two runs (see Volatile), which are otherwise only
	// counted in Report.VolatileMetadata.
	AllMetadata bool
	// Prices prices the runs' usage for the cost entry (nil: lib/cost's
	// default table).
	Prices *cost.Table
}

// Objects reads content by digest. The reader must fail, by the time it
// reports io.EOF, if the bytes do not hash to d, as (*store.Store).Open's
// does.
type Objects interface {
	Open(d digest.Digest) (io.ReadCloser, error)
}

// StoreObjects reads the objects of s: whole when small (verified as
// read), else through its verifying reader.
func StoreObjects(s *store.Store) Objects { return storeObjects{s} }

type storeObjects struct{ s *store.Store }

func (o storeObjects) Open(d digest.Digest) (io.ReadCloser, error) {
	r, err := o.s.Open(d)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Report is the result of comparing pack A with pack B.
type Report struct {
	A         digest.Digest `json:"a"`
	B         digest.Digest `json:"b"`
	Identical bool          `json:"identical"`
	Drift     []Entry       `json:"drift"`
	// Summary counts the entries of each type present.
	Summary map[string]int `json:"summary"`
	// Ignored counts the entries left out by Options.Ignore.
	Ignored map[string]int `json:"ignored,omitzero"`
	// VolatileMetadata counts the metadata_drift entries left out because
	// their values differ between any two runs: ids, times (Volatile).
	VolatileMetadata int `json:"volatile_metadata,omitzero"`
}

// Entry is one difference between the packs.
type Entry struct {
	Type string `json:"type"`
	// Path locates the difference, jq style: system_prompt, prompts[1],
	// steps[4].parameters.path, outputs["result.md"]. A step is named by
	// its index in B, or in A when it was removed.
	Path   string `json:"path"`
	Change string `json:"change"`
	// Tool is the step's tool (B's, or A's when removed), for step entries.
	Tool string `json:"tool,omitzero"`
	// AStep and BStep are the step's index in each pack, for step entries.
	AStep *int `json:"a_step,omitzero"`
	BStep *int `json:"b_step,omitzero"`
	// A and B are the values on each side, when small enough: JSON
	// values as they are, text content as a string.
	A jsontext.Value `json:"a,omitzero"`
	B jsontext.Value `json:"b,omitzero"`
	// ARef and BRef name the content on each side.
	ARef digest.Digest `json:"a_ref,omitzero"`
	BRef digest.Digest `json:"b_ref,omitzero"`
	// ASize and BSize are the sizes in bytes of content, or of values too
	// large to show.
	ASize *int64 `json:"a_size,omitzero"`
	BSize *int64 `json:"b_size,omitzero"`
	// Binary is set when a side's content is not text; it is never
	// diffed.
	Binary bool `json:"binary,omitzero"`
	// Diff is a unified diff of text content or long strings; Truncated
	// says it was cut to its bound.
	Diff      string `json:"diff,omitzero"`
	Truncated bool   `json:"truncated,omitzero"`
	Note      string `json:"note,omitzero"`
}

// Diff compares pack a with pack b, reading the content that differs from
// objs.
func Diff(a, b *manifest.Manifest, objs Objects, opt Options) (*Report, error) {
	if opt.ValueBytes <= 0 {
		opt.ValueBytes = DefaultValueBytes
	}
	d := &differ{opt: opt, objs: objs, ignore: map[string]bool{}}
	for _, t := range opt.Ignore {
		if !IsType(t) {
			return nil, fmt.Errorf("unknown drift type %q (want one of %s)", t, strings.Join(types, ", "))
		}
		d.ignore[t] = true
	}
	if a.Hash.IsZero() || a.Hash != b.Hash {
		d.model(&a.Model, &b.Model)
		d.prompts(a, b)
		d.inputs(a.Inputs, b.Inputs)
		d.steps(a.Steps, b.Steps)
		d.outputs(a.Outputs, b.Outputs)
		d.environment(&a.Environment, &b.Environment)
		d.tree(Entry{Type: MetadataDrift}, canon.Path{"metadata"}, a.Metadata, b.Metadata)
		d.cost(a, b)
	}
	if err := d.fill(); err != nil {
		return nil, err
	}
	r := &Report{A: a.Hash, B: b.Hash, Drift: d.entries, Summary: map[string]int{}}
	if r.Drift == nil {
		r.Drift = []Entry{}
	}
	for _, e := range r.Drift {
		r.Summary[e.Type]++
	}
	if len(d.ignored) > 0 {
		r.Ignored = d.ignored
	}
	r.VolatileMetadata = d.volatile
	r.Identical = len(r.Drift) == 0
	return r, nil
}

// cost records the run's cost drifting, as a usage_drift entry at path
// cost_usd: what each run cost (lib/cost: the agent's figure, else one
// computed from usage), when the figures differ or only one run has one.
// The models a side could not price are named in the note.
func (d *differ) cost(a, b *manifest.Manifest) {
	if !cost.HasFigures(a) && !cost.HasFigures(b) {
		return // neither has a figure: no table to load, no step to price
	}
	t := cmp.Or(d.opt.Prices, cost.Default())
	ca, cb := cost.Of(a, t), cost.Of(b, t)
	if ca.USD == nil && cb.USD == nil || ca.USD != nil && cb.USD != nil && *ca.USD == *cb.USD {
		return
	}
	e := Entry{Type: UsageDrift, Path: "cost_usd", Change: changeOf(ca.USD != nil, cb.USD != nil)}
	if ca.USD != nil {
		e.A, _ = canon.Marshal(*ca.USD)
	}
	if cb.USD != nil {
		e.B, _ = canon.Marshal(*cb.USD)
	}
	var notes []string
	for _, side := range []struct {
		name string
		p    *cost.Pack
	}{{"a", ca}, {"b", cb}} {
		if len(side.p.Unpriced) > 0 {
			notes = append(notes, side.name+" leaves out "+strings.Join(side.p.Unpriced, ", ")+" (no price)")
		}
	}
	e.Note = strings.Join(notes, "; ")
	d.add(e)
}

type differ struct {
	opt     Options
	objs    Objects
	ignore  map[string]bool
	entries []Entry
	ignored map[string]int
	// volatile counts the metadata entries Volatile left out.
	volatile int
	jobs     []job
}

// job is content to read and compare into entries[entry].
type job struct {
	entry int
	a, b  digest.Digest
}

// add appends e unless its type is ignored, and returns its index or -1.
func (d *differ) add(e Entry) int {
	if d.ignore[e.Type] {
		if d.ignored == nil {
			d.ignored = map[string]int{}
		}
		d.ignored[e.Type]++
		return -1
	}
	d.entries = append(d.entries, e)
	return len(d.entries) - 1
}

func changeOf(aok, bok bool) string {
	switch {
	case !aok:
		return Added
	case !bok:
		return Removed
	}
	return Changed
}

// content records a difference of content a → b (either may be zero:
// added or removed) to be read and diffed by fill.
func (d *differ) content(e Entry, a, b digest.Digest) {
	if a == b {
		return
	}
	e.Change = changeOf(!a.IsZero(), !b.IsZero())
	e.ARef, e.BRef = a, b
	if i := d.add(e); i >= 0 {
		d.jobs = append(d.jobs, job{i, a, b})
	}
}

// value records a difference of JSON values a → b (nil: absent).
func (d *differ) value(e Entry, a, b jsontext.Value) {
	e.Change = changeOf(a != nil, b != nil)
	if d.ignore[e.Type] {
		d.add(e)
		return
	}
	d.setValue(&e.A, &e.ASize, a)
	d.setValue(&e.B, &e.BSize, b)
	if e.A == nil && e.B == nil && a != nil && b != nil && a.Kind() == '"' && b.Kind() == '"' {
		// Two long strings: show how they differ.
		var sa, sb string
		if json.Unmarshal(a, &sa) == nil && json.Unmarshal(b, &sb) == nil {
			e.Diff, e.Truncated = Unified(e.Path, []byte(sa), []byte(sb), 0, d.opt.DiffLines, d.opt.DiffBytes)
		}
	}
	d.add(e)
}

func (d *differ) setValue(v *jsontext.Value, size **int64, x jsontext.Value) {
	if x == nil {
		return
	}
	if len(x) <= d.opt.ValueBytes {
		// Report.JSON writes values as they are: make them canonical.
		if c, err := canon.Canonicalize(x); err == nil {
			x = c
		}
		*v = x
		return
	}
	n := int64(len(x))
	*size = &n
}

// str returns s as a canonical JSON string, invalid UTF-8 replaced as
// the JSON encoder replaces it.
func str[T ~string | ~[]byte](s T) jsontext.Value {
	if !utf8.Valid([]byte(s)) {
		return canon.AppendString(nil, strings.ToValidUTF8(string(s), "\uFFFD"))
	}
	// Sized for the quotes and an escape every 16 bytes: growing from
	// nil allocated about three times the string for a thousand outputs.
	return canon.AppendString(make([]byte, 0, len(s)+2+len(s)/16), s)
}

func boolean(v bool) jsontext.Value {
	if v {
		return jsontext.Value("true")
	}
	return jsontext.Value("false")
}

// scalar records a difference of two strings, "" meaning absent.
func (d *differ) scalar(e Entry, a, b string) {
	if a == b {
		return
	}
	var va, vb jsontext.Value
	if a != "" {
		va = str(a)
	}
	if b != "" {
		vb = str(b)
	}
	d.value(e, va, vb)
}

// tree records the differences between two JSON values, member by member
// for objects (in sorted order) and element by element for arrays.
func (d *differ) tree(e Entry, p canon.Path, a, b jsontext.Value) {
	if bytes.Equal(a, b) {
		return
	}
	if a != nil && b != nil {
		// Canonical bytes make byte equality value equality; values
		// built in memory may not be canonical yet.
		ca, erra := canon.Canonicalize(a)
		cb, errb := canon.Canonicalize(b)
		if erra == nil && errb == nil {
			if bytes.Equal(ca, cb) {
				return
			}
			a, b = ca, cb
		}
		switch {
		case a.Kind() == '{' && b.Kind() == '{':
			ka, ma := members(a)
			kb, mb := members(b)
			keys := append(ka, kb...)
			sort.Strings(keys)
			keys = slices.Compact(keys)
			for _, k := range keys {
				d.tree(e, p.Key(k), ma[k], mb[k])
			}
			return
		case a.Kind() == '[' && b.Kind() == '[':
			ea, eb := elements(a), elements(b)
			for i := 0; i < max(len(ea), len(eb)); i++ {
				var va, vb jsontext.Value
				if i < len(ea) {
					va = ea[i]
				}
				if i < len(eb) {
					vb = eb[i]
				}
				d.tree(e, p.Index(i), va, vb)
			}
			return
		}
	}
	if e.Type == MetadataDrift && !d.opt.AllMetadata && !d.ignore[MetadataDrift] && Volatile(p) {
		d.volatile++
		return
	}
	e.Path = p.String()
	d.value(e, a, b)
}

// members returns the member names of a JSON object in order, and the
// member values by name.
func members(v jsontext.Value) ([]string, map[string]jsontext.Value) {
	dec := jsontext.NewDecoder(bytes.NewReader(v))
	m := map[string]jsontext.Value{}
	var keys []string
	if _, err := dec.ReadToken(); err != nil {
		return nil, m
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			break
		}
		k := name.String()
		val, err := dec.ReadValue()
		if err != nil {
			break
		}
		keys = append(keys, k)
		m[k] = bytes.Clone(val)
	}
	return keys, m
}

// elements returns the elements of a JSON array.
func elements(v jsontext.Value) []jsontext.Value {
	dec := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := dec.ReadToken(); err != nil {
		return nil
	}
	var out []jsontext.Value
	for k := dec.PeekKind(); k != ']' && k != 0; k = dec.PeekKind() {
		val, err := dec.ReadValue()
		if err != nil {
			break
		}
		out = append(out, bytes.Clone(val))
	}
	return out
}

func (d *differ) model(a, b *manifest.Model) {
	d.scalar(Entry{Type: ModelDrift, Path: "model.identifier"}, a.Identifier, b.Identifier)
	d.tree(Entry{Type: ModelDrift}, canon.Path{"model", "parameters"}, a.Parameters, b.Parameters)
}

func (d *differ) prompts(a, b *manifest.Manifest) {
	d.content(Entry{Type: PromptDrift, Path: "system_prompt"}, a.SystemPrompt, b.SystemPrompt)
	for i := 0; i < max(len(a.Prompts), len(b.Prompts)); i++ {
		p := "prompts[" + strconv.Itoa(i) + "]"
		var pa, pb manifest.Prompt
		if i < len(a.Prompts) {
			pa = a.Prompts[i]
		}
		if i < len(b.Prompts) {
			pb = b.Prompts[i]
		}
		if i < len(a.Prompts) && i < len(b.Prompts) {
			d.scalar(Entry{Type: PromptDrift, Path: p + ".role"}, pa.Role, pb.Role)
		}
		d.content(Entry{Type: PromptDrift, Path: p}, pa.ContentRef, pb.ContentRef)
		d.parts(Entry{Type: PartDrift}, p+".parts", pa.Parts, pb.Parts)
	}
}

// parts compares two lists of parts element by element: each part's type,
// media type and content.
func (d *differ) parts(e Entry, p string, a, b []manifest.Part) {
	for j := 0; j < max(len(a), len(b)); j++ {
		e.Path = p + "[" + strconv.Itoa(j) + "]"
		switch {
		case j >= len(a) || j >= len(b):
			var pa, pb manifest.Part
			if j < len(a) {
				pa = a[j]
			} else {
				pb = b[j]
			}
			e.Note = partNote(pa, pb)
			d.content(e, pa.ContentRef, pb.ContentRef)
			e.Note = ""
		default:
			d.scalar(at(e, e.Path+".type"), a[j].Type, b[j].Type)
			d.scalar(at(e, e.Path+".media_type"), a[j].MediaType, b[j].MediaType)
			d.content(e, a[j].ContentRef, b[j].ContentRef)
		}
	}
}

// partNote describes the part a pack alone has: "image part, image/png".
func partNote(a, b manifest.Part) string {
	p := a
	if p.Type == "" {
		p = b
	}
	n := p.Type + " part"
	if p.MediaType != "" {
		n += ", " + p.MediaType
	}
	return n
}

// at returns e with another path.
func at(e Entry, path string) Entry {
	e.Path = path
	return e
}

// named locates a member of a list matched by name: outputs["result.md"].
func named(list, name string) string { return list + "[" + strconv.Quote(name) + "]" }

// byName pairs two lists by name, in sorted name order; a missing side is
// -1. Names are unique within a pack; a repeated name keeps its first
// entry.
func byName(na, nb int, name func(side, i int) string) (names []string, ia, ib []int) {
	idx := [2]map[string]int{{}, {}}
	for side, n := range [2]int{na, nb} {
		for i := 0; i < n; i++ {
			k := name(side, i)
			if _, dup := idx[side][k]; !dup {
				idx[side][k] = i
				names = append(names, k)
			}
		}
	}
	sort.Strings(names)
	names = slices.Compact(names)
	for _, k := range names {
		i, ok := idx[0][k]
		if !ok {
			i = -1
		}
		j, ok := idx[1][k]
		if !ok {
			j = -1
		}
		ia, ib = append(ia, i), append(ib, j)
	}
	return names, ia, ib
}

func (d *differ) inputs(a, b []manifest.File) {
	names, ia, ib := byName(len(a), len(b), func(side, i int) string {
		if side == 0 {
			return a[i].Name
		}
		return b[i].Name
	})
	for k, name := range names {
		p := named("inputs", name)
		var fa, fb manifest.File
		if ia[k] >= 0 {
			fa = a[ia[k]]
		}
		if ib[k] >= 0 {
			fb = b[ib[k]]
		}
		if ia[k] < 0 || ib[k] < 0 {
			if e := (Entry{Type: InputDrift, Path: p}); fa.Seen == manifest.SeenName || fb.Seen == manifest.SeenName {
				// Only the name was seen: there is no content to show.
				e.Note = "seen by name only"
				d.value(e, nilIf(ia[k] < 0, str(name)), nilIf(ib[k] < 0, str(name)))
			} else {
				d.content(e, fa.ContentRef, fb.ContentRef)
			}
			continue
		}
		d.content(Entry{Type: InputDrift, Path: p}, fa.ContentRef, fb.ContentRef)
		d.scalar(Entry{Type: InputDrift, Path: p + ".media_type"}, fa.MediaType, fb.MediaType)
		d.scalar(Entry{Type: InputDrift, Path: p + ".seen"}, fa.Seen, fb.Seen)
		d.tree(Entry{Type: InputDrift}, canon.Path{"inputs", name, "lines"}, linesJSON(fa.Lines), linesJSON(fb.Lines))
		if fa.TotalLines != fb.TotalLines {
			d.value(Entry{Type: InputDrift, Path: p + ".total_lines"}, lineCount(fa.TotalLines), lineCount(fb.TotalLines))
		}
	}
}

// nilIf returns nil when absent, else v.
func nilIf(absent bool, v jsontext.Value) jsontext.Value {
	if absent {
		return nil
	}
	return v
}

// lineCount is a positive count as JSON, nil for zero (absent).
func lineCount(n int64) jsontext.Value {
	if n == 0 {
		return nil
	}
	return jsontext.Value(strconv.FormatInt(n, 10))
}

func linesJSON(lines [][2]int64) jsontext.Value {
	if lines == nil {
		return nil
	}
	b, _ := json.Marshal(lines)
	return b
}

func (d *differ) outputs(a, b []manifest.Output) {
	names, ia, ib := byName(len(a), len(b), func(side, i int) string {
		if side == 0 {
			return a[i].Name
		}
		return b[i].Name
	})
	for k, name := range names {
		p := named("outputs", name)
		var oa, ob manifest.Output
		if ia[k] >= 0 {
			oa = a[ia[k]]
		}
		if ib[k] >= 0 {
			ob = b[ib[k]]
		}
		d.content(Entry{Type: OutputDrift, Path: p}, oa.ContentRef, ob.ContentRef)
		if ia[k] >= 0 && ib[k] >= 0 {
			d.scalar(Entry{Type: OutputDrift, Path: p + ".media_type"}, oa.MediaType, ob.MediaType)
			d.scalar(Entry{Type: OutputDrift, Path: p + ".confidence"}, oa.Confidence, ob.Confidence)
			d.scalar(Entry{Type: OutputDrift, Path: p + ".notes"}, oa.Notes, ob.Notes)
		}
	}
}

func (d *differ) environment(a, b *manifest.Environment) {
	d.scalar(Entry{Type: EnvironmentDrift, Path: "environment.os"}, a.OS, b.OS)
	d.scalar(Entry{Type: EnvironmentDrift, Path: "environment.runtime"}, a.Runtime, b.Runtime)
	var tools []string
	for t := range a.ToolVersions {
		tools = append(tools, t)
	}
	for t := range b.ToolVersions {
		if _, ok := a.ToolVersions[t]; !ok {
			tools = append(tools, t)
		}
	}
	sort.Strings(tools)
	for _, t := range tools {
		va, oka := a.ToolVersions[t]
		vb, okb := b.ToolVersions[t]
		if oka && okb && va == vb {
			continue
		}
		var ja, jb jsontext.Value
		if oka {
			ja = str(va)
		}
		if okb {
			jb = str(vb)
		}
		d.value(Entry{Type: EnvironmentDrift, Path: canon.Path{"environment", "tool_versions", t}.String()}, ja, jb)
	}
	d.tree(Entry{Type: EnvironmentDrift}, canon.Path{"environment", "metadata"}, a.Metadata, b.Metadata)
}

// steps aligns the steps and compares each pair.
func (d *differ) steps(a, b []manifest.Step) {
	pairs := StepPairs(a, b, d.opt.Align)
	// Room for an entry per pair that differs, and its content: grown
	// one append at a time, the entries of a thousand changed outputs
	// were copied ten times over into fresh memory.
	n := 0
	for _, p := range pairs {
		if p.A < 0 || p.B < 0 || !sameStep(&a[p.A], &b[p.B]) {
			n++
		}
	}
	d.entries = slices.Grow(d.entries, n)
	d.jobs = slices.Grow(d.jobs, n)
	for _, p := range pairs {
		switch {
		case p.A < 0:
			d.lone(p.B, &b[p.B], Added)
		case p.B < 0:
			d.lone(p.A, &a[p.A], Removed)
		default:
			d.step(p.A, p.B, &a[p.A], &b[p.B])
		}
	}
}

// Pair is one row of a step alignment: step A of pack A with step B of
// pack B. A is -1 for a step only B has (added), B is -1 for one only A
// has (removed).
type Pair struct{ A, B int }

// StepPairs returns how Diff pairs the steps of a and b under al, in report
// order.
func StepPairs(a, b []manifest.Step, al Alignment) []Pair {
	out := make([]Pair, 0, max(len(a), len(b)))
	if al == AlignIndex {
		n := min(len(a), len(b))
		for i := 0; i < n; i++ {
			out = append(out, Pair{i, i})
		}
		for i := n; i < len(a); i++ {
			out = append(out, Pair{i, -1})
		}
		for j := n; j < len(b); j++ {
			out = append(out, Pair{-1, j})
		}
		return out
	}
	return align(out, a, b, 0, 0, true)
}

// align appends the pairs of the steps a[i] (A's step ai+i) and b[j] (B's
// step bi+j) along a common subsequence of their type, tool and (when
// full) parameters. In the gaps between matched runs, steps are aligned
// again on type and tool alone, so that a call with other parameters pairs
// with its counterpart; what still remains pairs in order, and the longer
// side's rest is added or removed.
func align(out []Pair, a, b []manifest.Step, ai0, bi0 int, full bool) []Pair {
	ms := Align(stepKeys(a, full), stepKeys(b, full))
	ai, bi := 0, 0
	for _, m := range append(ms, Match{len(a), len(b), 0}) {
		if full && ai < m.A && bi < m.B {
			out = align(out, a[ai:m.A], b[bi:m.B], ai0+ai, bi0+bi, false)
			ai, bi = m.A, m.B
		}
		for ; ai < m.A && bi < m.B; ai, bi = ai+1, bi+1 {
			out = append(out, Pair{ai0 + ai, bi0 + bi})
		}
		for ; ai < m.A; ai++ {
			out = append(out, Pair{ai0 + ai, -1})
		}
		for ; bi < m.B; bi++ {
			out = append(out, Pair{-1, bi0 + bi})
		}
		for k := 0; k < m.N; k++ {
			out = append(out, Pair{ai0 + ai + k, bi0 + bi + k})
		}
		ai, bi = ai+m.N, bi+m.N
	}
	return out
}

// stepKeys returns what --align lcs matches steps on: type, tool and, when
// full, parameters. Parameters compare as bytes: a manifest as stored is
// canonical JSON, where equal values have equal bytes.
func stepKeys(steps []manifest.Step, full bool) []string {
	keys := make([]string, len(steps))
	for i, s := range steps {
		keys[i] = s.Type + "\x00" + s.Tool
		if full {
			keys[i] += "\x00" + string(s.Parameters)
		}
	}
	return keys
}

func stepPath(i int) string { return "steps[" + strconv.Itoa(i) + "]" }

// step compares step i of A with step j of B.
func (d *differ) step(i, j int, a, b *manifest.Step) {
	if sameStep(a, b) {
		return
	}
	base := Entry{Tool: b.Tool, AStep: &i, BStep: &j}
	p := stepPath(j)
	at := func(typ, path string) Entry {
		e := base
		e.Type, e.Path = typ, path
		return e
	}
	// Each member is looked at only where it differs: what the calls
	// below would find equal, they are not made for (their paths and
	// entries cost more than the comparison).
	if a.Type != b.Type {
		d.scalar(at(ToolDrift, p+".type"), a.Type, b.Type)
	}
	if a.Tool != b.Tool {
		d.scalar(at(ToolDrift, p+".tool"), a.Tool, b.Tool)
	}
	if a.Deterministic != b.Deterministic {
		d.value(at(ToolDrift, p+".deterministic"), boolean(a.Deterministic), boolean(b.Deterministic))
	}
	if a.Agent != b.Agent {
		d.scalar(at(ToolDrift, p+".agent"), a.Agent, b.Agent)
	}
	if !slices.Equal(intJSON(a.ParentStep), intJSON(b.ParentStep)) {
		d.value(at(ToolDrift, p+".parent_step"), intJSON(a.ParentStep), intJSON(b.ParentStep))
	}
	if !bytes.Equal(a.Parameters, b.Parameters) {
		d.tree(at(ParamDrift, ""), canon.Path{"steps", j, "parameters"}, a.Parameters, b.Parameters)
	}
	if a.OutputRef != b.OutputRef {
		d.content(at(outputType(b), p+".output"), a.OutputRef, b.OutputRef)
	}
	if len(a.OutputParts) > 0 || len(b.OutputParts) > 0 {
		d.parts(at(PartDrift, ""), p+".output_parts", a.OutputParts, b.OutputParts)
	}
	if a.ReasoningRef != b.ReasoningRef {
		d.content(at(ReasoningDrift, p+".reasoning"), a.ReasoningRef, b.ReasoningRef)
	}
	if a.Error != nil || b.Error != nil {
		d.tree(at(ErrorDrift, ""), canon.Path{"steps", j, "error"}, marshalOrNil(a.Error), marshalOrNil(b.Error))
	}
	if a.Usage != nil || b.Usage != nil {
		d.tree(at(UsageDrift, ""), canon.Path{"steps", j, "usage"}, marshalOrNil(a.Usage), marshalOrNil(b.Usage))
	}
	if !bytes.Equal(a.Metadata, b.Metadata) {
		d.tree(at(MetadataDrift, ""), canon.Path{"steps", j, "metadata"}, a.Metadata, b.Metadata)
	}
}

// outputType is the drift type of a step's changed output: what the model
// said is its reasoning; what a tool returned is its output.
func outputType(s *manifest.Step) string {
	if s.Type == manifest.LLMCall {
		return ReasoningDrift
	}
	return ToolOutputDrift
}

// sameStep reports whether two steps are equal in everything compared.
func sameStep(a, b *manifest.Step) bool {
	return a.Type == b.Type && a.Tool == b.Tool && a.Deterministic == b.Deterministic &&
		a.Agent == b.Agent && slices.Equal(intJSON(a.ParentStep), intJSON(b.ParentStep)) &&
		a.OutputRef == b.OutputRef && a.ReasoningRef == b.ReasoningRef &&
		slices.Equal(a.OutputParts, b.OutputParts) &&
		bytes.Equal(a.Parameters, b.Parameters) && bytes.Equal(a.Metadata, b.Metadata) &&
		bytes.Equal(marshalOrNil(a.Error), marshalOrNil(b.Error)) &&
		bytes.Equal(marshalOrNil(a.Usage), marshalOrNil(b.Usage))
}

func intJSON(n *int) jsontext.Value {
	if n == nil {
		return nil
	}
	return jsontext.Value(strconv.Itoa(*n))
}

// marshalOrNil returns the canonical JSON of *v, or nil for a nil v.
func marshalOrNil[T any](v *T) jsontext.Value {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return nil
	}
	return b
}

// lone reports step i of one pack that the other lacks.
func (d *differ) lone(i int, s *manifest.Step, how string) {
	e := Entry{Type: ToolDrift, Path: stepPath(i), Change: how, Tool: s.Tool}
	if d.ignore[ToolDrift] {
		d.add(e)
		return
	}
	desc := map[string]any{"type": s.Type}
	if s.Tool != "" {
		desc["tool"] = s.Tool
	}
	v, _ := json.Marshal(desc, json.Deterministic(true))
	if s.Parameters != nil {
		desc["parameters"] = s.Parameters
		if w, err := json.Marshal(desc, json.Deterministic(true)); err == nil && len(w) <= d.opt.ValueBytes {
			v = w
		}
	}
	if how == Removed {
		e.AStep, e.A, e.ARef = &i, v, s.OutputRef
	} else {
		e.BStep, e.B, e.BRef = &i, v, s.OutputRef
	}
	d.add(e)
}

// blob is content read from objs: all of it up to MaxTextBytes.
type blob struct {
	size int64
	data []byte // nil when larger than MaxTextBytes
}

// read reads ref from dir when there is one (objs is a store), else from
// objs.
func (d *differ) read(dir *store.ObjectDir, ref digest.Digest) (blob, error) {
	if dir != nil {
		// Small objects whole: a diff reads thousands of them, and the
		// general reader costs two system calls more each; read into
		// room already there, one more is spared (GetUpToInto).
		buf := readBufs.Get().(*[]byte)
		b, size, err := dir.GetUpToInto(ref, MaxTextBytes, *buf)
		if cap(b) > 0 && &b[:1][0] == &(*buf)[:1][0] {
			b = bytes.Clone(b) // read into buf: the blob's own copy
		}
		readBufs.Put(buf)
		if err != nil {
			return blob{}, objectErr(ref, err)
		}
		if b != nil {
			return blob{size: size, data: b}, nil
		}
	}
	r, err := d.objs.Open(ref)
	if err != nil {
		return blob{}, objectErr(ref, err)
	}
	defer r.Close()
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, MaxTextBytes+1))
	if err != nil {
		return blob{}, objectErr(ref, err)
	}
	if n <= MaxTextBytes {
		// The reader reached its end, where it checked the digest.
		return blob{size: n, data: buf.Bytes()}, nil
	}
	m, err := io.Copy(io.Discard, r)
	if err != nil {
		return blob{}, objectErr(ref, err)
	}
	return blob{size: n + m}, nil
}

// readBufs are what objects are read into before they are copied out.
var readBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, 32<<10)
	return &b
}}

// objectErr names the object in err, unless the store already did.
func objectErr(ref digest.Digest, err error) error {
	if strings.Contains(err.Error(), ref.String()) {
		return err
	}
	return fmt.Errorf("reading object %s: %w", ref, err)
}

// fill reads the content the jobs need, each object once and several at a
// time, then completes their entries.
func (d *differ) fill() error {
	if len(d.jobs) == 0 {
		return nil
	}
	refs := make([]digest.Digest, 0, 2*len(d.jobs))
	seen := make(map[digest.Digest]int, 2*len(d.jobs))
	for _, j := range d.jobs {
		for _, r := range [2]digest.Digest{j.a, j.b} {
			if _, ok := seen[r]; !ok && !r.IsZero() {
				seen[r] = len(refs)
				refs = append(refs, r)
			}
		}
	}
	var dir *store.ObjectDir
	if o, ok := d.objs.(storeObjects); ok {
		var err error
		if dir, err = o.s.OpenObjectDir(); err != nil {
			return err
		}
		defer dir.Close()
	}
	blobs := make([]blob, len(refs))
	errs := make([]error, len(refs))
	parallel(len(refs), func(k int) { blobs[k], errs[k] = d.read(dir, refs[k]) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	get := func(r digest.Digest) *blob {
		if r.IsZero() {
			return nil
		}
		return &blobs[seen[r]]
	}
	parallel(len(d.jobs), func(k int) {
		j := d.jobs[k]
		d.compare(&d.entries[j.entry], get(j.a), get(j.b))
	})
	return nil
}

// parallel calls f(0) … f(n-1) on a few goroutines, the caller's among
// them: on a loaded machine a helper may not run for a while, and the
// caller then does its share rather than wait for it to start.
func parallel(n int, f func(int)) {
	var next atomic.Int64
	work := func() {
		for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
			f(k)
		}
	}
	var wg sync.WaitGroup
	for range min(n, 2*runtime.GOMAXPROCS(0)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// compare completes a content entry from the content of each side (nil:
// absent).
func (d *differ) compare(e *Entry, a, b *blob) {
	large := false
	for _, side := range []struct {
		bl   *blob
		val  *jsontext.Value
		size **int64
	}{{a, &e.A, &e.ASize}, {b, &e.B, &e.BSize}} {
		if side.bl == nil {
			continue
		}
		n := side.bl.size
		*side.size = &n
		switch {
		case side.bl.data == nil:
			large = true
		case !IsText(side.bl.data):
			e.Binary = true
		case n <= int64(d.opt.ValueBytes):
			*side.val = str(side.bl.data)
		}
	}
	note := func(n string) {
		if e.Note != "" {
			n = e.Note + "; " + n
		}
		e.Note = n
	}
	switch {
	case large:
		note(fmt.Sprintf("content larger than %d MiB: compared by size and hash only", MaxTextBytes>>20))
	case e.Binary:
		note("binary content: compared by size and hash only")
	case a != nil && b != nil:
		e.Diff, e.Truncated = Unified(e.Path, a.data, b.data, 0, d.opt.DiffLines, d.opt.DiffBytes)
	}
}
