package packlog

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Entry is one pack as ctx-log lists it: its packs/ summary and the tags
// that name it.
type Entry struct {
	manifest.Summary
	Tags []string // sorted; nil when no tag names the pack
	// Latest is set on the pack refs/latest names, by the caller
	// (MarkLatest): it is written "latest":true, and left out otherwise.
	Latest bool

	sec  int64 // created, as a time, for ordering
	nsec int32
	// gen counts the ancestors with the same created time that are in the
	// listing: a fork packed unchanged keeps its parent's time, and must
	// still be listed before it.
	gen int32
	// packed is when the entry was written (its modification time, in
	// nanoseconds), read only for entries whose created time another
	// entry shares (SetPackTimes): the snapshots of one agent session
	// share the session's start as created.
	packed int64
	// usageRaw is the usage object of an entry taken from the entry
	// cache, not yet decoded (resolveUsage): it was decoded strictly when
	// the entry was cached, and a listing prints only some of the entries
	// it orders.
	usageRaw []byte
}

// Time returns the pack's created time.
func (e *Entry) Time() time.Time { return time.Unix(e.sec, int64(e.nsec)).UTC() }

func (e *Entry) setTime() error {
	t, err := time.Parse(time.RFC3339Nano, e.Created)
	if err != nil {
		return fmt.Errorf("created: %q is not an RFC 3339 time", e.Created)
	}
	e.sec, e.nsec = t.Unix(), int32(t.Nanosecond())
	return nil
}

// ParseEntry parses the packs/ entry b of pack d. Entries in the canonical
// form ctx writes take a fast path; anything else goes through the strict
// decoder. A malformed entry, one that names another pack, or one whose
// created is not a time is a *store.CorruptError.
func ParseEntry(d digest.Digest, b []byte) (Entry, error) {
	return parseEntry(d, b, nil)
}

// parseEntry is ParseEntry with an optional cache of model names, so that
// a reader does not allocate the same identifier for every pack.
func parseEntry(d digest.Digest, b []byte, models map[string]string) (Entry, error) {
	if e, ok := parseCanonical(d, b, models, nil); ok {
		return e, nil
	}
	sum, err := manifest.ParseSummary(d, b)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Summary: sum}
	if err := e.setTime(); err != nil {
		return Entry{}, &store.CorruptError{What: "pack entry " + d.String(), Err: err}
	}
	return e, nil
}

// parseCanonical reads exactly the bytes manifest.EncodeSummary writes:
//
//	{"created":"…","hash":"sha256:…","inputs":N,"model":"…","outputs":N[,"parent":"sha256:…"],"steps":N}\n
//
// with strings free of escapes. It reports false for anything else, which
// the strict decoder then judges. With arena not nil, the usage object is
// not decoded but copied to *arena and kept in usageRaw, for an entry
// whose usage decoded when it was cached.
func parseCanonical(d digest.Digest, b []byte, models map[string]string, arena *[]byte) (Entry, bool) {
	p := scanner{b: b}
	var e Entry
	var created, model []byte
	var h digest.Digest
	ok := p.lit(`{"created":`) && p.str(&created) &&
		p.lit(`,"hash":`) && p.digest(&h) && h == d &&
		p.lit(`,"inputs":`) && p.int(&e.Inputs) &&
		p.lit(`,"model":`) && p.str(&model) &&
		p.lit(`,"outputs":`) && p.int(&e.Outputs)
	if !ok {
		return Entry{}, false
	}
	if p.lit(`,"parent":`) && !p.digest(&e.Parent) {
		return Entry{}, false
	}
	if !(p.lit(`,"steps":`) && p.int(&e.Steps)) {
		return Entry{}, false
	}
	if p.lit(`,"usage":`) {
		// The rest of the line is the usage object, then "}\n": decoded
		// strictly, as ParseSummary would.
		end := len(b) - len("}\n")
		if end < p.i || string(b[end:]) != "}\n" {
			return Entry{}, false
		}
		if arena != nil {
			e.usageRaw = appendArena(arena, b[p.i:end])
		} else {
			u, err := decodeUsage(b[p.i:end])
			if err != nil {
				return Entry{}, false
			}
			e.Usage = u
		}
		p.i = end
	}
	if !(p.lit("}\n") && p.i == len(b)) {
		return Entry{}, false
	}
	e.Hash = d
	e.Created = string(created)
	if models == nil {
		e.Model = string(model)
	} else if m, ok := models[string(model)]; ok {
		e.Model = m
	} else {
		e.Model = string(model)
		models[e.Model] = e.Model
	}
	if e.setTime() != nil {
		return Entry{}, false
	}
	return e, true
}

// decodeUsage decodes an entry's usage object strictly, as ParseSummary
// does.
func decodeUsage(b []byte) (*manifest.SummaryUsage, error) {
	var u manifest.SummaryUsage
	if err := json.Unmarshal(b, &u, json.RejectUnknownMembers(true)); err != nil {
		return nil, err
	}
	return &u, nil
}

// appendArena copies b to the end of *arena, a fresh one when it is full,
// and returns the copy: entries' bytes without an allocation each.
func appendArena(arena *[]byte, b []byte) []byte {
	if cap(*arena)-len(*arena) < len(b) {
		*arena = make([]byte, 0, max(64<<10, len(b)))
	}
	*arena = append(*arena, b...)
	return (*arena)[len(*arena)-len(b):]
}

type scanner struct {
	b []byte
	i int
}

func (p *scanner) lit(s string) bool {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// str reads a string without escapes or control characters, valid UTF-8.
func (p *scanner) str(out *[]byte) bool {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	start := p.i + 1
	j := bytes.IndexByte(p.b[start:], '"')
	if j < 0 {
		return false
	}
	s := p.b[start : start+j]
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return false
		}
	}
	if !utf8.Valid(s) {
		return false
	}
	*out = s
	p.i = start + j + 1
	return true
}

// digest reads "sha256:<64 lowercase hex>".
func (p *scanner) digest(out *digest.Digest) bool {
	const n = len(`"sha256:`) + digest.HexSize + 1
	if len(p.b)-p.i < n || string(p.b[p.i:p.i+8]) != `"sha256:` || p.b[p.i+n-1] != '"' {
		return false
	}
	if !digest.FromLowerHex(out, p.b[p.i+8:p.i+n-1]) {
		return false
	}
	p.i += n
	return true
}

// int reads a canonical non-negative integer of at most 15 digits.
func (p *scanner) int(out *int) bool {
	j := p.i
	for j < len(p.b) && j-p.i < 16 && '0' <= p.b[j] && p.b[j] <= '9' {
		j++
	}
	n := j - p.i
	if n == 0 || n > 15 || n > 1 && p.b[p.i] == '0' {
		return false
	}
	v := 0
	for _, c := range p.b[p.i:j] {
		v = v*10 + int(c-'0')
	}
	*out = v
	p.i = j
	return true
}

// AppendJSON appends the entry's log line, canonical JSON without a
// newline:
//
//	{"cost_usd","created","hash","inputs","model","outputs","parent","steps","tags","tokens","unpriced","uri"}
//
// parent is left out for a pack without one (as in manifests and packs/
// entries); tags is always an array. tokens (the steps' usage summed),
// cost_usd and unpriced (the models cost_usd leaves out) come from the
// entry's usage, and are left out when it has none (an entry written
// before it was kept) or has no such figure.
func (e *Entry) AppendJSON(b []byte) []byte {
	u := e.Usage
	b = append(b, '{')
	if u != nil && u.CostUSD != nil {
		b = append(b, `"cost_usd":`...)
		b = appendValue(b, *u.CostUSD)
		b = append(b, ',')
	}
	b = append(b, `"created":`...)
	b = appendString(b, e.Created)
	b = append(b, `,"hash":"sha256:`...)
	b = hex.AppendEncode(b, e.Hash[:])
	b = append(b, `","inputs":`...)
	b = strconv.AppendInt(b, int64(e.Inputs), 10)
	if e.Latest {
		b = append(b, `,"latest":true`...)
	}
	b = append(b, `,"model":`...)
	b = appendString(b, e.Model)
	b = append(b, `,"outputs":`...)
	b = strconv.AppendInt(b, int64(e.Outputs), 10)
	if !e.Parent.IsZero() {
		b = append(b, `,"parent":"sha256:`...)
		b = hex.AppendEncode(b, e.Parent[:])
		b = append(b, '"')
	}
	b = append(b, `,"steps":`...)
	b = strconv.AppendInt(b, int64(e.Steps), 10)
	b = append(b, `,"tags":[`...)
	for i, t := range e.Tags {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, t)
	}
	b = append(b, ']')
	if u != nil {
		b = append(b, `,"tokens":`...)
		b = appendValue(b, u.Tokens)
		if len(u.Unpriced) > 0 {
			b = append(b, `,"unpriced":`...)
			b = appendValue(b, u.Unpriced)
		}
	}
	b = append(b, `,"uri":"ctx://`...)
	b = hex.AppendEncode(b, e.Hash[:])
	return append(b, `"}`...)
}

// appendValue appends v as canonical JSON.
func appendValue(b []byte, v any) []byte {
	q, err := canon.Marshal(v)
	if err != nil {
		// Counts, finite dollar figures and strings: lib/canon takes them.
		panic(fmt.Sprintf("packlog: encoding %v: %v", v, err))
	}
	return append(b, q...)
}

// appendString appends s as a canonical JSON string (canon.AppendString).
// Invalid UTF-8, which entries that parsed never carry, becomes U+FFFD
// byte by byte (as encoding/json writes it), so that the line stays JSON.
func appendString(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = canon.ToValidUTF8(s)
	}
	return canon.AppendString(b, s)
}
