// Package manifest defines the context pack manifest (docs/design.md §4, with the
// extended fields docs/execution-log.md documents: step errors, usage, reasoning,
// agents, multimodal parts, media types, inputs seen in part or by name),
// its canonical encoding, the pack summary kept in packs/, and loading a
// finalized pack from a store with its digest verified.
//
// It also holds the two rules every package applies the same way:
// CheckName, the clean-relative-name rule for inputs and outputs, and
// Slots, the one walk over a manifest's object references.
package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Version is the manifest format version ctx writes and reads.
const Version = "0.1"

// Step types.
const (
	ToolCall = "tool_call"
	LLMCall  = "llm_call"
)

// Manifest is a context pack. Large content lives in objects; the manifest
// holds their digests. Hash is never part of the stored bytes: it is the
// digest of them, filled in when a manifest is loaded or printed.
type Manifest struct {
	Version      string         `json:"version"`
	Hash         digest.Digest  `json:"hash,omitzero"`
	Created      string         `json:"created"`
	Parent       digest.Digest  `json:"parent,omitzero"`
	Model        Model          `json:"model"`
	SystemPrompt digest.Digest  `json:"system_prompt,omitzero"`
	Prompts      []Prompt       `json:"prompts"`
	Inputs       []File         `json:"inputs"`
	Steps        []Step         `json:"steps"`
	Outputs      []Output       `json:"outputs"`
	Environment  Environment    `json:"environment"`
	Metadata     jsontext.Value `json:"metadata,omitzero"`
}

// Model names the model and its sampling parameters.
type Model struct {
	Identifier string         `json:"identifier"`
	Parameters jsontext.Value `json:"parameters,omitzero"`
}

// Prompt is one prompt message: its content, or its parts when it is
// multimodal.
type Prompt struct {
	Role       string        `json:"role"`
	ContentRef digest.Digest `json:"content_ref,omitzero"`
	Parts      []Part        `json:"parts,omitzero"`
}

// Part types: what a part of a multimodal prompt or step output holds.
const (
	PartText     = "text"
	PartImage    = "image"
	PartDocument = "document"
	PartAudio    = "audio"
	PartFile     = "file"
)

// PartTypes lists the part types.
var PartTypes = []string{PartText, PartImage, PartDocument, PartAudio, PartFile}

// Part is one part of multimodal content: text, an image, a document.
// Its bytes are an object, whatever they are.
type Part struct {
	Type       string        `json:"type"`
	MediaType  string        `json:"media_type,omitzero"`
	ContentRef digest.Digest `json:"content_ref"`
	Size       int64         `json:"size"`
}

// What an input's Seen says the session observed of the file.
const (
	SeenWhole   = ""        // the whole file: the content is the file
	SeenPartial = "partial" // the lines Lines lists, in order
	SeenName    = "name"    // only its name (a listing): no content
)

// File is a named piece of content: an input the agent saw. An input seen
// only by name has no ContentRef; its JSON has no content_ref and no size.
type File struct {
	Name       string
	MediaType  string
	Seen       string
	Lines      [][2]int64 // 1-based inclusive line ranges, for SeenPartial
	TotalLines int64      // the file's line count when recorded, else 0
	ContentRef digest.Digest
	Size       int64
}

// fileJSON is File as stored: size is present exactly when content_ref is.
type fileJSON struct {
	Name       string        `json:"name"`
	MediaType  string        `json:"media_type,omitzero"`
	Seen       string        `json:"seen,omitzero"`
	Lines      [][2]int64    `json:"lines,omitzero"`
	TotalLines int64         `json:"total_lines,omitzero"`
	ContentRef digest.Digest `json:"content_ref,omitzero"`
	Size       *int64        `json:"size,omitzero"`
}

// MarshalJSONTo writes f as stored.
func (f File) MarshalJSONTo(enc *jsontext.Encoder) error {
	j := fileJSON{Name: f.Name, MediaType: f.MediaType, Seen: f.Seen, Lines: f.Lines, TotalLines: f.TotalLines, ContentRef: f.ContentRef}
	if f.Seen != SeenName {
		j.Size = &f.Size
	}
	return json.MarshalEncode(enc, &j)
}

// UnmarshalJSONFrom reads f as stored; content_ref and size are required
// unless Seen is SeenName, where both are refused.
func (f *File) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	var j fileJSON
	if err := json.UnmarshalDecode(dec, &j); err != nil {
		return err
	}
	if j.Seen == SeenName {
		if !j.ContentRef.IsZero() || j.Size != nil {
			return fmt.Errorf("input %q is seen by name only but has content_ref or size", j.Name)
		}
	} else if j.ContentRef.IsZero() || j.Size == nil {
		return fmt.Errorf("input %q lacks content_ref or size", j.Name)
	}
	*f = File{Name: j.Name, MediaType: j.MediaType, Seen: j.Seen, Lines: j.Lines, TotalLines: j.TotalLines, ContentRef: j.ContentRef}
	if j.Size != nil {
		f.Size = *j.Size
	}
	return nil
}

// Output is an artifact the run produced.
type Output struct {
	Name       string        `json:"name"`
	MediaType  string        `json:"media_type,omitzero"`
	ContentRef digest.Digest `json:"content_ref"`
	Size       int64         `json:"size"`
	Confidence string        `json:"confidence,omitzero"`
	Notes      string        `json:"notes,omitzero"`
}

// Step is one recorded action: a tool call or a model call. Its output is
// OutputRef, or OutputParts when multimodal, or neither.
type Step struct {
	Index         int            `json:"index"`
	Type          string         `json:"type"`
	Tool          string         `json:"tool,omitzero"`
	Agent         string         `json:"agent,omitzero"`
	ParentStep    *int           `json:"parent_step,omitzero"`
	Parameters    jsontext.Value `json:"parameters,omitzero"`
	OutputRef     digest.Digest  `json:"output_ref,omitzero"`
	OutputParts   []Part         `json:"output_parts,omitzero"`
	ReasoningRef  digest.Digest  `json:"reasoning_ref,omitzero"`
	Error         *StepError     `json:"error,omitzero"`
	Usage         *Usage         `json:"usage,omitzero"`
	Deterministic bool           `json:"deterministic"`
	Timestamp     string         `json:"timestamp,omitzero"`
	Metadata      jsontext.Value `json:"metadata,omitzero"`
	// Observed are the files the step was seen to change on disk (the
	// hook that ran after it compared the working tree with what it
	// held before), each as it was after the step.
	Observed []Observed `json:"observed,omitzero"`

	// Encoded, when set, is the step as canonical JSON, written as it is
	// in place of the fields above: a step of an earlier pack of the same
	// log, taken as it was packed (execlog.Prior). Index, Type and Tool
	// still say what it is; its references are not among Slots' and
	// Refs' (they are the earlier pack's, present in the store).
	Encoded []byte `json:"-"`
}

// Observed is a file as a step left it on disk: its content, or that
// the step deleted it, or why its content was not kept (Skipped: larger
// than the bound, binary, not a regular file).
type Observed struct {
	Name       string        `json:"name"`
	ContentRef digest.Digest `json:"content_ref,omitzero"`
	Size       int64         `json:"size,omitzero"`
	Deleted    bool          `json:"deleted,omitzero"`
	Skipped    string        `json:"skipped,omitzero"`
}

// StepError says a step failed: {} when only that is known, else its
// message and the exit code when there is one.
type StepError struct {
	Message  string `json:"message,omitzero"`
	ExitCode *int64 `json:"exit_code,omitzero"`
}

// Usage is the token counts a step's source recorded; nil members were
// not recorded. Nothing here is computed.
type Usage struct {
	InputTokens         *int64 `json:"input_tokens,omitzero"`
	OutputTokens        *int64 `json:"output_tokens,omitzero"`
	CacheReadTokens     *int64 `json:"cache_read_tokens,omitzero"`
	CacheCreationTokens *int64 `json:"cache_creation_tokens,omitzero"`
	ReasoningTokens     *int64 `json:"reasoning_tokens,omitzero"`
	TotalTokens         *int64 `json:"total_tokens,omitzero"`
}

// Fields names the counters of u in JSON order, with a pointer to
// each in u, for code that reads or writes them by name.
func (u *Usage) Fields() []UsageField {
	return []UsageField{
		{"cache_creation_tokens", &u.CacheCreationTokens},
		{"cache_read_tokens", &u.CacheReadTokens},
		{"input_tokens", &u.InputTokens},
		{"output_tokens", &u.OutputTokens},
		{"reasoning_tokens", &u.ReasoningTokens},
		{"total_tokens", &u.TotalTokens},
	}
}

// UsageField is one counter of a Usage.
type UsageField struct {
	Name  string
	Value **int64
}

// Environment records where the run happened.
type Environment struct {
	OS           string            `json:"os,omitzero"`
	Runtime      string            `json:"runtime,omitzero"`
	ToolVersions map[string]string `json:"tool_versions,omitzero"`
	Metadata     jsontext.Value    `json:"metadata,omitzero"`
}

// Encode returns the manifest's stored form: canonical JSON without hash.
// Its digest is the pack hash.
func Encode(m *Manifest) ([]byte, error) {
	c := *m
	c.Hash = digest.Digest{}
	return encode(&c)
}

// JSON returns the manifest as printed: canonical JSON with hash.
func JSON(m *Manifest) ([]byte, error) { return encode(m) }

// encode is marshal, through its fast path when it can take it.
func encode(m *Manifest) ([]byte, error) {
	parts, _, err := encodeParts(m, false)
	if err != nil || len(parts) == 1 {
		return parts[0], err
	}
	return bytes.Join(parts, nil), nil
}

// encodeParts is encode, the bytes in parts (encodeCanonical), also
// returning where each step lies in them when spans is set.
func encodeParts(m *Manifest, spans bool) ([][]byte, []Span, error) {
	if parts, sp, ok := encodeCanonical(m, spans); ok {
		if len(parts) == 0 {
			parts = [][]byte{nil}
		}
		return parts, sp, nil
	}
	if slices.ContainsFunc(m.Steps, func(s Step) bool { return s.Encoded != nil }) {
		// marshal knows only the fields: the encoded steps are decoded
		// into them first.
		c := *m
		c.Steps = slices.Clone(m.Steps)
		for i := range c.Steps {
			if enc := c.Steps[i].Encoded; enc != nil {
				c.Steps[i] = Step{}
				if err := json.Unmarshal(enc, &c.Steps[i], json.RejectUnknownMembers(true)); err != nil {
					return [][]byte{nil}, nil, fmt.Errorf("encoding manifest: step %d as packed before: %w", i, err)
				}
			}
		}
		m = &c
	}
	// Not the fast path's bytes: no spans (the caller does without).
	b, err := marshal(m)
	return [][]byte{b}, nil, err
}

func marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return nil, fmt.Errorf("encoding manifest: %w", err)
	}
	return canon.Canonicalize(b)
}

// Parse decodes stored manifest bytes strictly: unknown members, a hash
// member, or a wrong version are errors.
func Parse(b []byte) (*Manifest, error) {
	return parse(bytes.Clone(b))
}

// parse is Parse of bytes the caller gives up: the manifest's raw values
// are cut from them.
func parse(b []byte) (*Manifest, error) {
	m, _, err := parseWith(b, decodeOptions{})
	return m, err
}

// parseWith is parse decoding as opt says (decodeCanonicalWith). With
// opt.spans it also returns the manifest as a like for another one, or
// nil when b is not in the form ctx stores.
func parseWith(b []byte, opt decodeOptions) (*Manifest, *decoded, error) {
	var m Manifest
	var dec *decoded
	if spans, ok := decodeCanonicalWith(b, &m, opt); ok {
		if opt.spans {
			dec = &decoded{m: &m, b: b, steps: spans}
		}
	} else {
		// Not in the form ctx writes: the reflection decoder, which
		// defines the result, decides. Size its step list up front:
		// growing it one append at a time copied a 10,000-step
		// manifest's steps about 20 times over (a fifth of the parse).
		// It appends to a slice that has room, from length 0. The count
		// is only a capacity hint: "index" may occur in other members
		// too, and every step has exactly one.
		m = Manifest{Steps: make([]Step, 0, bytes.Count(b, []byte(`"index":`)))}
		if err := unmarshal(b, &m); err != nil {
			return nil, nil, fmt.Errorf("parsing manifest: %w", err)
		}
	}
	if err := m.checkStored(); err != nil {
		return nil, nil, fmt.Errorf("parsing manifest: %w", err)
	}
	return &m, dec, nil
}

// checkStored checks a decoded stored manifest: check, and no hash member.
func (m *Manifest) checkStored() error {
	if !m.Hash.IsZero() {
		return errors.New("stored manifest carries a hash member")
	}
	return m.check()
}

// unmarshal is the reflection decoder of stored manifests: strict, and
// the definition decodeCanonical follows.
func unmarshal(b []byte, m *Manifest) error {
	return json.Unmarshal(b, m, json.RejectUnknownMembers(true))
}

func (m *Manifest) check() error {
	if m.Version != Version {
		return fmt.Errorf("version %q is not %q", m.Version, Version)
	}
	if _, err := time.Parse(time.RFC3339Nano, m.Created); err != nil {
		return fmt.Errorf("created: %q is not an RFC 3339 time", m.Created)
	}
	if m.Model.Identifier == "" {
		return errors.New("model.identifier is empty")
	}
	for i, p := range m.Prompts {
		if p.ContentRef.IsZero() == (p.Parts == nil) {
			return fmt.Errorf("prompts[%d] needs content_ref or parts, and not both", i)
		}
		if err := checkParts(p.Parts); err != nil {
			return fmt.Errorf("prompts[%d].parts%w", i, err)
		}
	}
	names := map[string]bool{}
	for i, f := range m.Inputs {
		if err := CheckName(f.Name); err != nil {
			return fmt.Errorf("inputs[%d].name: %w", i, err)
		}
		if names[f.Name] {
			return fmt.Errorf("inputs[%d].name: %q is not unique", i, f.Name)
		}
		names[f.Name] = true
		if err := CheckSeen(f.Seen, f.Lines, f.TotalLines); err != nil {
			return fmt.Errorf("inputs[%d]: %w", i, err)
		}
		if f.Size < 0 {
			return fmt.Errorf("inputs[%d].size is negative", i)
		}
	}
	for i, s := range m.Steps {
		if s.Index != i {
			return fmt.Errorf("steps[%d].index is %d", i, s.Index)
		}
		if s.ParentStep != nil && (*s.ParentStep < 0 || *s.ParentStep >= i) {
			return fmt.Errorf("steps[%d].parent_step %d is not an earlier step", i, *s.ParentStep)
		}
		if !s.OutputRef.IsZero() && s.OutputParts != nil {
			return fmt.Errorf("steps[%d] has both output_ref and output_parts", i)
		}
		if err := checkParts(s.OutputParts); err != nil {
			return fmt.Errorf("steps[%d].output_parts%w", i, err)
		}
		if s.Usage != nil {
			for _, f := range s.Usage.Fields() {
				if *f.Value != nil && **f.Value < 0 {
					return fmt.Errorf("steps[%d].usage.%s is negative", i, f.Name)
				}
			}
		}
	}
	inputs := make([]string, len(m.Inputs))
	for i, f := range m.Inputs {
		inputs[i] = f.Name
	}
	if f, u, ok := DirConflict(inputs); ok {
		return fmt.Errorf("inputs[%d].name: %q is a file, but inputs[%d] %q needs it to be a directory", f, inputs[f], u, inputs[u])
	}
	names = map[string]bool{}
	for i, o := range m.Outputs {
		if err := CheckName(o.Name); err != nil {
			return fmt.Errorf("outputs[%d].name: %w", i, err)
		}
		if names[o.Name] {
			return fmt.Errorf("outputs[%d].name: %q is not unique", i, o.Name)
		}
		names[o.Name] = true
		if o.ContentRef.IsZero() || o.Size < 0 {
			return fmt.Errorf("outputs[%d] lacks content_ref or has a negative size", i)
		}
	}
	return nil
}

// checkParts checks a parts array; the error begins with the element's
// index, "[2].type: …", for the caller to put after the array's path.
func checkParts(parts []Part) error {
	if parts != nil && len(parts) == 0 {
		return errors.New(": is empty")
	}
	for j, p := range parts {
		if err := CheckPartType(p.Type); err != nil {
			return fmt.Errorf("[%d].type: %w", j, err)
		}
		if p.ContentRef.IsZero() || p.Size < 0 {
			return fmt.Errorf("[%d] lacks content_ref or has a negative size", j)
		}
	}
	return nil
}

// CheckPartType reports whether t is one of PartTypes.
func CheckPartType(t string) error {
	if !slices.Contains(PartTypes, t) {
		return fmt.Errorf("%q is not one of %s", t, strings.Join(PartTypes, ", "))
	}
	return nil
}

// CheckSeen reports whether an input's seen, lines and total_lines agree:
// seen is absent (the whole file), "partial" with at least one range of
// 1-based inclusive line numbers, ascending and not overlapping, within
// total_lines when given, or "name" with neither lines nor total_lines.
func CheckSeen(seen string, lines [][2]int64, total int64) error {
	switch seen {
	case SeenWhole, SeenName:
		if lines != nil || total != 0 {
			what := "the whole file"
			if seen == SeenName {
				what = "only a name"
			}
			return fmt.Errorf("lines and total_lines need seen \"partial\" (this input records %s)", what)
		}
		return nil
	case SeenPartial:
	default:
		return fmt.Errorf("seen %q is not \"partial\" or \"name\" (omit it for a whole file)", seen)
	}
	if len(lines) == 0 {
		return errors.New("seen \"partial\" needs lines, the ranges [from, to] that were seen")
	}
	var last int64
	for k, r := range lines {
		if r[0] < 1 || r[1] < r[0] {
			return fmt.Errorf("lines[%d] [%d, %d] is not a range of 1-based line numbers", k, r[0], r[1])
		}
		if r[0] <= last {
			return fmt.Errorf("lines[%d] [%d, %d] does not follow the range before it", k, r[0], r[1])
		}
		last = r[1]
	}
	if total < 0 || total != 0 && total < last {
		return fmt.Errorf("total_lines %d is less than the last line seen, %d", total, last)
	}
	return nil
}

// SeenLines returns how many lines the ranges of a partial input cover.
func SeenLines(lines [][2]int64) int64 {
	var n int64
	for _, r := range lines {
		n += r[1] - r[0] + 1
	}
	return n
}

// A Field says which kind of manifest member a Slot is.
type Field int

// The members that hold object references.
const (
	FieldSystemPrompt   Field = iota // system_prompt
	FieldPrompt                      // prompts[Index].content_ref
	FieldPromptPart                  // prompts[Index].parts[Part].content_ref
	FieldInput                       // inputs[Index].content_ref
	FieldStepOutput                  // steps[Index].output_ref
	FieldStepOutputPart              // steps[Index].output_parts[Part].content_ref
	FieldStepReasoning               // steps[Index].reasoning_ref
	FieldOutput                      // outputs[Index].content_ref
	FieldStepObserved                // steps[Index].observed[Part].content_ref
)

// A Slot is one member of a manifest that holds, or may hold, an object
// reference.
type Slot struct {
	Field       Field
	Index, Part int
	// Path is the member's JSON path: steps[3].output_parts[0].content_ref.
	Path canon.Path
	// Ref is the reference; zero where an optional member is absent.
	Ref *digest.Digest
	// Size is the size the manifest states for the object, nil where it
	// states none.
	Size *int64
}

// Slots is the one walk over a manifest's references: it yields, in
// manifest order, every member that holds an object reference and, zero
// when absent, the optional ones (system_prompt, a step's output_ref when
// it has no output_parts, reasoning_ref), then a step's observed files
// that have content. A prompt with parts yields its
// parts and no content_ref; an input seen only by name yields nothing.
func (m *Manifest) Slots() iter.Seq[Slot] {
	return func(yield func(Slot) bool) {
		if !yield(Slot{Field: FieldSystemPrompt, Path: canon.Path{"system_prompt"}, Ref: &m.SystemPrompt}) {
			return
		}
		parts := func(f Field, i int, at canon.Path, ps []Part) bool {
			for j := range ps {
				p := &ps[j]
				if !yield(Slot{Field: f, Index: i, Part: j, Path: at.Index(j).Key("content_ref"), Ref: &p.ContentRef, Size: &p.Size}) {
					return false
				}
			}
			return true
		}
		for i := range m.Prompts {
			p := &m.Prompts[i]
			at := canon.Path{"prompts", i}
			if p.Parts != nil {
				if !parts(FieldPromptPart, i, at.Key("parts"), p.Parts) {
					return
				}
			} else if !yield(Slot{Field: FieldPrompt, Index: i, Path: at.Key("content_ref"), Ref: &p.ContentRef}) {
				return
			}
		}
		for i := range m.Inputs {
			f := &m.Inputs[i]
			if f.Seen != SeenName && !yield(Slot{Field: FieldInput, Index: i, Path: canon.Path{"inputs", i, "content_ref"}, Ref: &f.ContentRef, Size: &f.Size}) {
				return
			}
		}
		for i := range m.Steps {
			s := &m.Steps[i]
			if s.Encoded != nil {
				continue
			}
			at := canon.Path{"steps", i}
			if s.OutputParts != nil {
				if !parts(FieldStepOutputPart, i, at.Key("output_parts"), s.OutputParts) {
					return
				}
			} else if !yield(Slot{Field: FieldStepOutput, Index: i, Path: at.Key("output_ref"), Ref: &s.OutputRef}) {
				return
			}
			if !yield(Slot{Field: FieldStepReasoning, Index: i, Path: at.Key("reasoning_ref"), Ref: &s.ReasoningRef}) {
				return
			}
			for j := range s.Observed {
				o := &s.Observed[j]
				if o.Deleted || o.Skipped != "" {
					continue
				}
				if !yield(Slot{Field: FieldStepObserved, Index: i, Part: j, Path: at.Key("observed").Index(j).Key("content_ref"), Ref: &o.ContentRef, Size: &o.Size}) {
					return
				}
			}
		}
		for i := range m.Outputs {
			o := &m.Outputs[i]
			if !yield(Slot{Field: FieldOutput, Index: i, Path: canon.Path{"outputs", i, "content_ref"}, Ref: &o.ContentRef, Size: &o.Size}) {
				return
			}
		}
	}
}

// Refs returns every object digest the manifest references, in manifest
// order, each once.
func (m *Manifest) Refs() []digest.Digest {
	seen := map[digest.Digest]bool{}
	var out []digest.Digest
	for sl := range m.Slots() {
		if d := *sl.Ref; !d.IsZero() && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// ErrNotPack reports a digest that names no pack in the store.
var ErrNotPack = errors.New("not a pack")

// Load reads the pack d from s: the manifest object must hash to d and
// parse. A pack is normally finalized (its packs/ entry exists); a manifest
// object without an entry, as when only the objects a pack references were
// copied to another store, counts as a pack only if every object it
// references is present. Anything else is ErrNotPack. Hash is set to d.
func Load(s *store.Store, d digest.Digest) (*Manifest, error) {
	b, finalized, err := read(s, d, s.Get)
	if err != nil {
		return nil, err
	}
	m, _, err := finish(s, d, b, finalized, decodeOptions{})
	return m, err
}

// LoadPair loads packs a and b of s as Load loads each, errA and errB
// being Load's errors for each, for a command that compares two packs and
// exits, as ctx-diff does:
//
//   - The two are read side by side, each mapped from its file
//     (store.GetMapped: never unmapped) rather than copied into fresh
//     memory, and their strings share those bytes.
//   - A step of b whose stored bytes are those of a's step at the same
//     index is not decoded again but is a's step, sharing its raw values
//     and pointer members (parent step, parts, error, usage) with it:
//     two runs of one log share most of their steps. Neither manifest is
//     to be changed.
//
// When a and b are the same pack it is loaded once, and ma is mb.
func LoadPair(s *store.Store, a, b digest.Digest) (ma, mb *Manifest, errA, errB error) {
	if a == b {
		bb, fin, err := read(s, b, s.GetMapped)
		if err == nil {
			mb, _, err = finish(s, b, bb, fin, decodeOptions{share: true})
		}
		return mb, mb, err, err
	}
	var ba []byte
	var finA bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		ba, finA, errA = read(s, a, s.GetMapped)
	}()
	bb, finB, errB := read(s, b, s.GetMapped)
	<-done
	var like *decoded
	if errA == nil {
		ma, like, errA = finish(s, a, ba, finA, decodeOptions{spans: errB == nil, share: true})
	}
	if errB == nil {
		mb, _, errB = finish(s, b, bb, finB, decodeOptions{like: like, share: true})
	}
	return ma, mb, errA, errB
}

// Like is a pack loaded by LoadForLike: what LoadLike takes steps from.
type Like struct{ dec *decoded }

// LoadForLike loads pack b as LoadPair loads its packs, for a command that
// finds the pack to compare b with from b itself (its parent, the
// snapshot of its session before it), as ctx-diff B does: the pack that
// LoadLike then loads with the Like returned takes b's steps where its
// stored bytes are theirs, as LoadPair's b takes a's. The Like is nil
// when b is not stored in the form ctx writes (nothing to take), or on
// error.
func LoadForLike(s *store.Store, b digest.Digest) (*Manifest, *Like, error) {
	bb, fin, err := read(s, b, s.GetMapped)
	if err != nil {
		return nil, nil, err
	}
	mb, dec, err := finish(s, b, bb, fin, decodeOptions{spans: true, share: true})
	if err != nil || dec == nil {
		return mb, nil, err
	}
	return mb, &Like{dec: dec}, nil
}

// LoadLike loads pack a as LoadPair loads its packs, a step of a whose
// stored bytes are those of like's step at the same index being like's
// step (like may be nil: none is). Neither manifest is to be changed.
func LoadLike(s *store.Store, a digest.Digest, like *Like) (*Manifest, error) {
	ba, fin, err := read(s, a, s.GetMapped)
	if err != nil {
		return nil, err
	}
	opt := decodeOptions{share: true}
	if like != nil {
		opt.like = like.dec
	}
	ma, _, err := finish(s, a, ba, fin, opt)
	return ma, err
}

// read reads the manifest of pack d with get, verified, and whether the
// pack is finalized.
func read(s *store.Store, d digest.Digest, get func(digest.Digest) ([]byte, error)) (b []byte, finalized bool, err error) {
	finalized, err = s.HasPack(d)
	if err != nil {
		return nil, false, fmt.Errorf("reading pack %s: %w", d, err)
	}
	if !finalized {
		if has, _ := s.Has(d); !has {
			return nil, false, fmt.Errorf("pack %s: %w", d, store.ErrNotFound)
		}
	}
	b, err = get(d)
	if err != nil {
		return nil, false, fmt.Errorf("reading pack %s: %w", d, err)
	}
	return b, finalized, nil
}

// finish parses b, the manifest of pack d as read gave it, as opt says
// (parseWith), and checks a pack not finalized has its objects.
func finish(s *store.Store, d digest.Digest, b []byte, finalized bool, opt decodeOptions) (*Manifest, *decoded, error) {
	m, dec, err := parseWith(b, opt)
	if err != nil {
		if !finalized {
			return nil, nil, fmt.Errorf("%s is an object but %w (no finalized pack has this hash): %w", d, ErrNotPack, store.ErrNotFound)
		}
		return nil, nil, &store.CorruptError{What: "pack " + d.String(), Err: err}
	}
	if !finalized {
		for _, r := range m.Refs() {
			if ok, _ := s.Has(r); !ok {
				return nil, nil, fmt.Errorf("%s is a manifest but %w here: it is not finalized and object %s is missing: %w", d, ErrNotPack, r, store.ErrNotFound)
			}
		}
	}
	m.Hash = d
	return m, dec, nil
}
