package manifest

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/internal/zerocopy"
)

// decodeCanonical decodes b into m when b is a manifest in the form ctx
// stores: canonical JSON (RFC 8785), members in order, no whitespace, the
// escapes canonical JSON uses and nothing else. It reports false for
// anything outside that form — a null, an escape canonical JSON never
// writes, a member out of order, an integer of more than 15 digits, a hash
// member, an unknown member, a value of the wrong type — and m is then to
// be thrown away: Parse hands such input to the reflection decoder, which
// gives the answer for it, value or error. For every input it accepts,
// decodeCanonical gives exactly the value the reflection decoder gives
// (FuzzDecodeCanonical checks it), so the reflection decoder stays the
// definition and this is only its fast path: a 10,000-step manifest
// decodes several times faster, allocating a handful of times instead of
// several times per member.
//
// Raw values (parameters, metadata) are cut from b, which decodeCanonical
// keeps, capped so that an append to one never writes over the next; the
// caller gives b up (Parse passes a copy). Strings are copied out one by
// one, the short ones that recur (member names, step types, tool names)
// once each.
func decodeCanonical(b []byte, m *Manifest) (ok bool) {
	_, ok = decodeCanonicalWith(b, m, decodeOptions{})
	return ok
}

// decoded is a manifest decodeCanonical gave, the bytes it decoded it
// from and where each step lies in them.
type decoded struct {
	m     *Manifest
	b     []byte
	steps []Span
}

// decodeOptions say how decodeCanonicalWith decodes.
type decodeOptions struct {
	// like, when set, gives the steps to take where the input holds
	// their bytes: a step is a closed JSON object, so the same bytes
	// decode to the same value and end at the same place. The steps
	// taken share their raw values and pointer members with like's.
	like *decoded
	// spans asks where each step lies in the input.
	spans bool
	// share makes strings share the input's bytes instead of copying
	// them (zerocopy.String): the input is never to change, and a string
	// kept keeps all of it.
	share bool
}

// decodeCanonicalWith is decodeCanonical as opt says, returning with
// opt.spans where each step lies in b.
func decodeCanonicalWith(b []byte, m *Manifest, opt decodeOptions) (spans []Span, ok bool) {
	d := decoder{b: b, strs: map[string]string{}, like: opt.like, share: opt.share}
	if opt.spans {
		d.spans = &spans
	}
	defer func() {
		if r := recover(); r != nil {
			if _, declined := r.(decline); !declined {
				panic(r)
			}
			spans, ok = nil, false
		}
	}()
	d.manifest(m)
	if m.Steps == nil {
		// As the reflection decoder leaves the list Parse gives it.
		m.Steps = []Step{}
	}
	return spans, d.i == len(d.b)
}

// decline is what the decoder panics with when the input is not in the
// form it decodes; decodeCanonical recovers it.
type decline struct{}

type decoder struct {
	b    []byte            // the input, owned: raw values are cut from it
	i    int               // the next byte to read
	strs map[string]string // short strings already made

	like  *decoded // steps to take when the bytes are theirs, or nil
	spans *[]Span  // where each step lies, when asked for
	share bool     // strings share b's bytes
}

// Bounds on the strings a decoder keeps to give again.
const (
	maxInterned    = 1024
	maxInternedLen = 64
)

// string returns b as a string, the same one for the same short bytes.
func (d *decoder) string(b []byte) string {
	if d.share {
		return zerocopy.String(b)
	}
	if s, ok := d.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(b) <= maxInternedLen && len(d.strs) < maxInterned {
		d.strs[s] = s
	}
	return s
}

func (d *decoder) fail() { panic(decline{}) }

// peek returns the next byte, or 0 at the end.
func (d *decoder) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *decoder) want(c byte) {
	if d.peek() != c {
		d.fail()
	}
	d.i++
}

// object reads an object, calling member for each name in turn with the
// decoder at the member's value. Names must ascend strictly, as canonical
// JSON orders them (byte order, which is UTF-16 order for the ASCII names
// a manifest's own objects have), so no name occurs twice.
func (d *decoder) object(member func(name []byte)) {
	d.want('{')
	if d.peek() == '}' {
		d.i++
		return
	}
	var prev []byte
	for first := true; ; first = false {
		name := d.name()
		if !first && bytes.Compare(name, prev) <= 0 {
			d.fail()
		}
		prev = name
		d.want(':')
		member(name)
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return
		default:
			d.fail()
		}
	}
}

// array reads an array, calling elem with the decoder at each element.
// It reports whether the array was empty.
func (d *decoder) array(elem func()) {
	d.want('[')
	if d.peek() == ']' {
		d.i++
		return
	}
	for {
		elem()
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return
		default:
			d.fail()
		}
	}
}

// name reads a member name without escapes. The members switch on it
// as string(name), which makes no string.
func (d *decoder) name() []byte {
	start, end, escaped := d.scanString()
	if escaped {
		d.fail()
	}
	return d.b[start:end]
}

// str reads a string value.
func (d *decoder) str() string {
	start, end, escaped := d.scanString()
	if !escaped {
		return d.string(d.b[start:end])
	}
	return unescape(d.b[start:end])
}

// scanString reads a string, checking it is valid UTF-8 with no raw
// control characters and only the escapes canonical JSON writes, and
// returns where its contents start and end in the input and whether they
// hold an escape.
func (d *decoder) scanString() (start, end int, escaped bool) {
	d.want('"')
	start = d.i
	ascii := true
	for {
		// Most of a string is plain ASCII: pass over it first.
		d.i += plainRun(d.b[d.i:])
		if d.i >= len(d.b) {
			d.fail()
		}
		c := d.b[d.i]
		switch {
		case c == '"':
			end = d.i
			d.i++
			if !ascii && !utf8.Valid(d.b[start:end]) {
				d.fail()
			}
			return start, end, escaped
		case c == '\\':
			escaped = true
			d.i++
			switch d.peek() {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				d.i++
			case 'u':
				// Canonical JSON writes \u00XX for the control characters
				// that have no short escape, and for nothing else.
				if d.i+5 > len(d.b) || string(d.b[d.i+1:d.i+3]) != "00" || hexValue[d.b[d.i+3]] > 1 || hexValue[d.b[d.i+4]] > 15 {
					d.fail()
				}
				d.i += 5
			default:
				d.fail()
			}
		case c < 0x20:
			d.fail()
		default:
			if c >= utf8.RuneSelf {
				ascii = false
			}
			d.i++
		}
	}
}

// plain marks the bytes a string holds as they are: printable ASCII but
// the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainRun returns how many bytes at the start of b are plain, eight at
// a time: a word has a byte that is not when one of its bytes is below
// 0x20, a quote, a backslash, or has its top bit set. The lowest byte
// these tests flag is exact (a borrow only runs upwards), and the scan
// stops there.
func plainRun(b []byte) int {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	zero := func(x uint64) uint64 { return (x - ones) &^ x }
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if special := (zero(x^(ones*'"')) | zero(x^(ones*'\\')) | (x - ones*0x20) | x) & tops; special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
	}
	for i < len(b) && plain[b[i]] {
		i++
	}
	return i
}

// unescape decodes the contents of a string scanString accepted.
func unescape(b []byte) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if b[i] == 'u' {
			c = hexValue[b[i+3]]<<4 | hexValue[b[i+4]]
			i += 4
		} else {
			c, _ = canon.Unescape(b[i])
		}
		out = append(out, c)
	}
	return string(out)
}

// hexValue maps a lowercase hex digit to its value and every other byte
// to 16.
var hexValue = func() (t [256]byte) {
	for c := range t {
		t[c] = 16
	}
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c - '0'
	}
	for c := byte('a'); c <= 'f'; c++ {
		t[c] = c - 'a' + 10
	}
	return t
}()

// digest reads a string that is "sha256:" and 64 lowercase hex digits.
func (d *decoder) digest() digest.Digest {
	const prefix = `"sha256:`
	var v digest.Digest
	end := d.i + len(prefix) + 2*len(v) + 1
	if end > len(d.b) || string(d.b[d.i:d.i+len(prefix)]) != prefix || d.b[end-1] != '"' {
		d.fail()
	}
	h := (*[2 * len(v)]byte)(d.b[d.i+len(prefix) : end-1])
	var bad byte
	for k := range v {
		hi, lo := hexValue[h[2*k]], hexValue[h[2*k+1]]
		bad |= hi | lo
		v[k] = hi<<4 | lo
	}
	if bad > 15 {
		d.fail()
	}
	d.i = end
	return v
}

// int reads an integer as canonical JSON writes it, of at most 15 digits
// (so exact in a float64, as the reflection decoder reads it).
func (d *decoder) int() int64 {
	neg := d.peek() == '-'
	if neg {
		d.i++
	}
	start := d.i
	var n int64
	for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
		n = n*10 + int64(d.b[d.i]-'0')
		d.i++
	}
	digits := d.i - start
	if digits == 0 || digits > 15 || digits > 1 && d.b[start] == '0' || neg && n == 0 {
		d.fail()
	}
	if c := d.peek(); c == '.' || c == 'e' || c == 'E' {
		d.fail()
	}
	if neg {
		n = -n
	}
	return n
}

func (d *decoder) intPtr() *int64 {
	n := d.int()
	return &n
}

func (d *decoder) bool() bool {
	switch {
	case bytes.HasPrefix(d.b[d.i:], []byte("true")):
		d.i += 4
		return true
	case bytes.HasPrefix(d.b[d.i:], []byte("false")):
		d.i += 5
		return false
	}
	d.fail()
	return false
}

// value reads any JSON value but null and returns its bytes.
func (d *decoder) value() jsontext.Value {
	if d.peek() == 'n' {
		d.fail()
	}
	start := d.i
	d.skip(0)
	return jsontext.Value(d.b[start:d.i:d.i])
}

// maxDepth bounds the nesting skip follows, well inside the reflection
// decoder's own limit.
const maxDepth = 1000

// skip reads one JSON value of any kind, checking it as the reflection
// decoder would: valid UTF-8, no member name twice in an object (here:
// names ascending, as canonical JSON has them), numbers in JSON's grammar.
func (d *decoder) skip(depth int) {
	if depth > maxDepth {
		d.fail()
	}
	switch c := d.peek(); {
	case c == '{':
		d.i++
		if d.peek() == '}' {
			d.i++
			return
		}
		var prev string
		for first := true; ; first = false {
			name := d.str()
			if !first && name <= prev {
				d.fail()
			}
			prev = name
			d.want(':')
			d.skip(depth + 1)
			if d.peek() != ',' {
				break
			}
			d.i++
		}
		d.want('}')
	case c == '[':
		d.i++
		if d.peek() == ']' {
			d.i++
			return
		}
		for {
			d.skip(depth + 1)
			if d.peek() != ',' {
				break
			}
			d.i++
		}
		d.want(']')
	case c == '"':
		d.scanString()
	case c == 't' || c == 'f':
		d.bool()
	case c == 'n':
		if !bytes.HasPrefix(d.b[d.i:], []byte("null")) {
			d.fail()
		}
		d.i += 4
	case c == '-' || '0' <= c && c <= '9':
		d.number()
	default:
		d.fail()
	}
}

// number reads a number in JSON's grammar.
func (d *decoder) number() {
	digits := func() int {
		start := d.i
		for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
			d.i++
		}
		return d.i - start
	}
	if d.peek() == '-' {
		d.i++
	}
	if d.peek() == '0' {
		d.i++
	} else if digits() == 0 {
		d.fail()
	}
	if d.peek() == '.' {
		d.i++
		if digits() == 0 {
			d.fail()
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.i++
		if c := d.peek(); c == '+' || c == '-' {
			d.i++
		}
		if digits() == 0 {
			d.fail()
		}
	}
}

// minStep is fewer bytes than any step takes: {"deterministic":true,
// "index":0,"type":""} and a comma.
const minStep = 40

// The manifest's own objects, member by member. Every member the
// reflection decoder knows is here; any other name declines.

func (d *decoder) manifest(m *Manifest) {
	d.object(func(name []byte) {
		switch string(name) {
		case "created":
			m.Created = d.str()
		case "environment":
			d.environment(&m.Environment)
		case "inputs":
			m.Inputs = []File{}
			d.array(func() { m.Inputs = append(m.Inputs, d.file()) })
		case "metadata":
			m.Metadata = d.value()
		case "model":
			d.object(func(name []byte) {
				switch string(name) {
				case "identifier":
					m.Model.Identifier = d.str()
				case "parameters":
					m.Model.Parameters = d.value()
				default:
					d.fail()
				}
			})
		case "outputs":
			m.Outputs = []Output{}
			d.array(func() { m.Outputs = append(m.Outputs, d.output()) })
		case "parent":
			m.Parent = d.digest()
		case "prompts":
			m.Prompts = []Prompt{}
			d.array(func() { m.Prompts = append(m.Prompts, d.prompt()) })
		case "steps":
			m.Steps = []Step{}
			d.array(func() {
				start := d.i
				if s, ok := d.likeStep(len(m.Steps)); ok {
					m.Steps = append(m.Steps, s)
				} else {
					m.Steps = append(m.Steps, Step{})
					d.step(&m.Steps[len(m.Steps)-1])
				}
				if d.spans != nil {
					*d.spans = append(*d.spans, Span{int64(start), int64(d.i)})
				}
				if len(m.Steps) == 1 {
					// Size the list on the first step, as if the rest
					// were as long: growing it a step at a time copies
					// every step many times over.
					left := len(d.b) - d.i
					n := min(left/(d.i-start), left/minStep)
					m.Steps = slices.Grow(m.Steps, n)
					if d.spans != nil {
						*d.spans = slices.Grow(*d.spans, n)
					}
				}
			})
		case "system_prompt":
			m.SystemPrompt = d.digest()
		case "version":
			m.Version = d.str()
		default: // hash among them: Parse refuses it
			d.fail()
		}
	})
}

// likeStep returns like's step k and passes over its bytes when the input
// at the decoder holds them.
func (d *decoder) likeStep(k int) (Step, bool) {
	if d.like == nil || k >= len(d.like.steps) {
		return Step{}, false
	}
	sp := d.like.steps[k]
	enc := d.like.b[sp.Start:sp.End]
	if !bytes.HasPrefix(d.b[d.i:], enc) {
		return Step{}, false
	}
	d.i += len(enc)
	return d.like.m.Steps[k], true
}

func (d *decoder) environment(e *Environment) {
	d.object(func(name []byte) {
		switch string(name) {
		case "metadata":
			e.Metadata = d.value()
		case "os":
			e.OS = d.str()
		case "runtime":
			e.Runtime = d.str()
		case "tool_versions":
			e.ToolVersions = map[string]string{}
			d.object(func(name []byte) { e.ToolVersions[d.string(name)] = d.str() })
		default:
			d.fail()
		}
	})
}

func (d *decoder) prompt() Prompt {
	var p Prompt
	d.object(func(name []byte) {
		switch string(name) {
		case "content_ref":
			p.ContentRef = d.digest()
		case "parts":
			p.Parts = d.parts()
		case "role":
			p.Role = d.str()
		default:
			d.fail()
		}
	})
	return p
}

func (d *decoder) parts() []Part {
	ps := []Part{}
	d.array(func() {
		var p Part
		d.object(func(name []byte) {
			switch string(name) {
			case "content_ref":
				p.ContentRef = d.digest()
			case "media_type":
				p.MediaType = d.str()
			case "size":
				p.Size = d.int()
			case "type":
				p.Type = d.str()
			default:
				d.fail()
			}
		})
		ps = append(ps, p)
	})
	return ps
}

// file reads an input as File.UnmarshalJSONFrom does, declining where it
// would fail.
func (d *decoder) file() File {
	var f File
	var size *int64
	d.object(func(name []byte) {
		switch string(name) {
		case "content_ref":
			f.ContentRef = d.digest()
		case "lines":
			f.Lines = [][2]int64{}
			d.array(func() {
				var r [2]int64
				d.want('[')
				r[0] = d.int()
				d.want(',')
				r[1] = d.int()
				d.want(']')
				f.Lines = append(f.Lines, r)
			})
		case "media_type":
			f.MediaType = d.str()
		case "name":
			f.Name = d.str()
		case "seen":
			f.Seen = d.str()
		case "size":
			size = d.intPtr()
		case "total_lines":
			f.TotalLines = d.int()
		default:
			d.fail()
		}
	})
	if f.Seen == SeenName {
		if !f.ContentRef.IsZero() || size != nil {
			d.fail()
		}
	} else if f.ContentRef.IsZero() || size == nil {
		d.fail()
	}
	if size != nil {
		f.Size = *size
	}
	return f
}

func (d *decoder) output() Output {
	var o Output
	d.object(func(name []byte) {
		switch string(name) {
		case "confidence":
			o.Confidence = d.str()
		case "content_ref":
			o.ContentRef = d.digest()
		case "media_type":
			o.MediaType = d.str()
		case "name":
			o.Name = d.str()
		case "notes":
			o.Notes = d.str()
		case "size":
			o.Size = d.int()
		default:
			d.fail()
		}
	})
	return o
}

func (d *decoder) step(s *Step) {
	d.object(func(name []byte) {
		switch string(name) {
		case "agent":
			s.Agent = d.str()
		case "deterministic":
			s.Deterministic = d.bool()
		case "error":
			s.Error = &StepError{}
			d.object(func(name []byte) {
				switch string(name) {
				case "exit_code":
					s.Error.ExitCode = d.intPtr()
				case "message":
					s.Error.Message = d.str()
				default:
					d.fail()
				}
			})
		case "index":
			s.Index = int(d.int())
		case "metadata":
			s.Metadata = d.value()
		case "output_parts":
			s.OutputParts = d.parts()
		case "output_ref":
			s.OutputRef = d.digest()
		case "parameters":
			s.Parameters = d.value()
		case "parent_step":
			p := int(d.int())
			s.ParentStep = &p
		case "reasoning_ref":
			s.ReasoningRef = d.digest()
		case "timestamp":
			s.Timestamp = d.str()
		case "tool":
			s.Tool = d.str()
		case "type":
			s.Type = d.str()
		case "usage":
			s.Usage = &Usage{}
			fields := s.Usage.Fields()
			d.object(func(name []byte) {
				for _, f := range fields {
					if f.Name == string(name) {
						*f.Value = d.intPtr()
						return
					}
				}
				d.fail()
			})
		default:
			d.fail()
		}
	})
}
