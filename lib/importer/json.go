package importer

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/internal/zerocopy"
)

// obj is a JSON object built in insertion order. Canonicalisation sorts
// the members later, so the order here only has to be deterministic.
type Obj []Member

type Member struct {
	K string
	V json.RawMessage
}

// set adds or replaces a member. A nil or empty value is ignored.
func (o *Obj) Set(k string, v json.RawMessage) {
	if len(v) == 0 {
		return
	}
	for i := range *o {
		if (*o)[i].K == k {
			(*o)[i].V = v
			return
		}
	}
	*o = append(*o, Member{k, v})
}

// SetDefault adds a member unless one with the same name exists.
func (o *Obj) SetDefault(k string, v json.RawMessage) {
	if o.Get(k) == nil {
		o.Set(k, v)
	}
}

func (o *Obj) SetString(k, s string) { o.Set(k, Quote(s)) }

func (o Obj) Get(k string) json.RawMessage {
	for _, m := range o {
		if m.K == k {
			return m.V
		}
	}
	return nil
}

// join concatenates objects. A member whose name is already taken keeps
// its value under the name with "_2" (or "_3", …) added, unless the value
// is the same, so that nothing is lost and no name repeats.
func Join(parts ...Obj) Obj {
	var out Obj
	for _, p := range parts {
	next:
		for _, m := range p {
			k := m.K
			for n := 2; ; n++ {
				have := out.Get(k)
				if have == nil {
					break
				}
				if string(have) == string(m.V) {
					continue next
				}
				k = m.K + "_" + strconv.Itoa(n)
			}
			out = append(out, Member{k, m.V})
		}
	}
	return out
}

func (o Obj) Raw() json.RawMessage {
	if len(o) == 0 {
		return nil
	}
	b, _ := o.MarshalJSON()
	return b
}

// MarshalJSON writes the members in order.
func (o Obj) MarshalJSON() ([]byte, error) {
	n := 2
	for _, m := range o {
		n += len(m.K) + len(m.V) + 4
	}
	return o.appendJSON(make([]byte, 0, n)), nil
}

// appendJSON appends the object to b.
func (o Obj) appendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuote(b, m.K)
		b = append(b, ':')
		b = append(b, m.V...)
	}
	return append(b, '}')
}

// Parse parses JSON data without copying it: gjson.ParseBytes copies
// its input into a string first, which for a log of one large line
// doubles what an import holds. The strings the results hold share
// data's memory: the importers never write their input, and Import's
// caller must not write it while Import runs; what an import returns is
// built in memory of its own.
func Parse(data []byte) gjson.Result {
	return gjson.Parse(zerocopy.String(data))
}

// list is a JSON array of raw values. An element that holds nothing (nil
// or empty) is written as null, so that the array stays JSON and its
// other elements keep their positions.
type List []json.RawMessage

func (l List) Raw() json.RawMessage {
	if len(l) == 0 {
		return nil
	}
	n := 2
	for _, v := range l {
		n += len(v) + 5
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, v := range l {
		if i > 0 {
			b = append(b, ',')
		}
		if len(v) == 0 {
			v = jsonNull
		}
		b = append(b, v...)
	}
	return append(b, ']')
}

// quote returns s as a JSON string.
func Quote(s string) json.RawMessage { return appendQuote(nil, s) }

// appendQuote appends s, valid UTF-8, as a canonical JSON string.
func appendQuote(b []byte, s string) []byte { return canon.AppendString(b, s) }

var (
	JSONTrue  = json.RawMessage("true")
	jsonFalse = json.RawMessage("false")
	jsonNull  = json.RawMessage("null")
)

func jsonBool(v bool) json.RawMessage {
	if v {
		return JSONTrue
	}
	return jsonFalse
}

func JSONInt(n int) json.RawMessage { return json.RawMessage(strconv.Itoa(n)) }

// raw returns the JSON text of a gjson value, or nil when it is absent.
// It shares the value's memory, as parse's results share the input's: the
// importers write neither, and the capacity ends with the text, so that
// an append copies it first.
func Raw(r gjson.Result) json.RawMessage {
	if !r.Exists() {
		return nil
	}
	b := zerocopy.Bytes(r.Raw)
	return json.RawMessage(b[:len(b):len(b)])
}

// Informative reports whether r carries anything: it exists and is not
// null, an empty array or an empty object.
//
// An object whose members all carry nothing carries nothing either.
func Informative(r gjson.Result) bool {
	switch {
	case r.Type == gjson.Null:
		return false
	case r.IsArray():
		s := strings.TrimSpace(r.Raw)
		return strings.TrimSpace(s[1:len(s)-1]) != ""
	case r.IsObject():
		any := false
		Each(r, func(_, v gjson.Result) bool {
			any = Informative(v)
			return !any
		})
		return any
	}
	return r.Exists()
}

// rest returns the informative members of object o that the importer did
// not map: every member whose name is not in skip. A skip entry "a.b"
// leaves out member b of object member a, keeping a's other members.
func Rest(o gjson.Result, skip ...string) Obj {
	if !o.IsObject() {
		return nil
	}
	return FieldsOf(o).Rest(skip...)
}

// Fields are an object's members, read in one pass so that looking up
// several of them does not scan a long object (a tool result) again.
type Fields []LineMember

// A LineMember is one member of an object: its name and value.
type LineMember struct {
	K string
	V gjson.Result
}

// FieldsOf reads the members of object o.
func FieldsOf(o gjson.Result) Fields {
	var f Fields
	Each(o, func(k, v gjson.Result) bool {
		f = append(f, LineMember{k.Str, v})
		return true
	})
	return f
}

// Get returns the member at path ("a" or "a.b.c").
func (f Fields) Get(path string) gjson.Result {
	name, sub, nested := strings.Cut(path, ".")
	for _, m := range f {
		if m.K == name {
			if nested {
				return m.V.Get(sub)
			}
			return m.V
		}
	}
	return gjson.Result{}
}

// First returns the first of paths that exists.
func (f Fields) First(paths ...string) gjson.Result {
	for _, p := range paths {
		if v := f.Get(p); v.Exists() {
			return v
		}
	}
	return gjson.Result{}
}

// Rest is like the function Rest.
func (f Fields) Rest(skip ...string) Obj {
	var out Obj
	for _, m := range f {
		name := m.K
		var nested []string
		skipped := false
		for _, s := range skip {
			if s == name {
				skipped = true
				break
			}
			if p, ok := strings.CutPrefix(s, name+"."); ok {
				nested = append(nested, p)
			}
		}
		switch {
		case skipped:
		case nested != nil:
			out.Set(name, Rest(m.V, nested...).Raw())
		case Informative(m.V):
			out.Set(name, Raw(m.V))
		}
	}
	return out
}

// each calls fn for the elements of an array or the members of an object;
// unlike gjson's ForEach it does nothing for any other value.
func Each(r gjson.Result, fn func(k, v gjson.Result) bool) {
	if r.IsArray() || r.IsObject() {
		r.ForEach(fn)
	}
}

// elems returns the elements of an array, and nothing for any other value.
func Elems(r gjson.Result) []gjson.Result {
	if !r.IsArray() {
		return nil
	}
	return r.Array()
}

// first returns the first of paths that exists in r.
func First(r gjson.Result, paths ...string) gjson.Result {
	for _, p := range paths {
		if v := r.Get(p); v.Exists() {
			return v
		}
	}
	return gjson.Result{}
}

// str returns r as a string: a JSON string's value, or the JSON text of
// anything else but null.
func Str(r gjson.Result) string {
	switch r.Type {
	case gjson.String:
		return r.Str
	case gjson.Null:
		return ""
	}
	return r.Raw
}

// args turns tool arguments into step parameters: an object or array is
// kept as is; a string holding JSON is parsed; any other string is kept
// as a string.
func Args(r gjson.Result) json.RawMessage {
	switch r.Type {
	case gjson.String:
		s := strings.TrimSpace(r.Str)
		if s != "" && gjson.Valid(s) {
			return json.RawMessage(s)
		}
		return Quote(r.Str)
	case gjson.Null:
		return nil
	}
	return Raw(r)
}

// flatText joins the text of a content value: a string is itself; an array
// keeps the text of its string items and of parts whose text lives at one
// of textPaths.
func flatText(r gjson.Result) string {
	if r.Type == gjson.String {
		return r.Str
	}
	if !r.IsArray() {
		return Str(r)
	}
	var parts []string
	Each(r, func(_, p gjson.Result) bool {
		if p.Type == gjson.String {
			parts = append(parts, p.Str)
		} else if t := First(p, "text", "content"); t.Type == gjson.String {
			parts = append(parts, t.Str)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// timestamp converts a time value to RFC 3339 in UTC. Strings in RFC 3339
// (with or without a zone; none means UTC) are accepted, numbers are epoch
// seconds, milliseconds or nanoseconds by magnitude, and strings of digits
// are epoch nanoseconds (OTLP). It returns "" for anything else.
func Timestamp(r gjson.Result) string {
	switch r.Type {
	case gjson.Number:
		return epoch(r.Raw)
	case gjson.String:
		s := r.Str
		if s == "" {
			return ""
		}
		if IsDigits(s) {
			return epoch(s)
		}
		return parseTime(s)
	}
	return ""
}

func IsDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
}

func parseTime(s string) string {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return formatTime(t)
		}
	}
	return ""
}

func formatTime(t time.Time) string {
	if t.Year() < 1 || t.Year() > 9999 {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// epoch converts an epoch number literal, picking its unit by magnitude.
func epoch(lit string) string {
	if IsDigits(lit) && len(lit) > 15 {
		// Nanoseconds (or microseconds) beyond float64 precision.
		n, err := strconv.ParseInt(lit, 10, 64)
		if err != nil {
			return ""
		}
		if len(lit) <= 17 {
			return formatTime(time.UnixMicro(n))
		}
		return formatTime(time.Unix(0, n))
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || f < 0 {
		return ""
	}
	switch {
	case f < 1e11: // seconds
		sec := int64(f)
		return formatTime(time.Unix(sec, int64((f-float64(sec))*1e9+0.5)/1000*1000))
	case f < 1e14: // milliseconds
		return formatTime(time.UnixMilli(int64(f)))
	case f < 1e17: // microseconds
		return formatTime(time.UnixMicro(int64(f)))
	}
	return formatTime(time.Unix(0, int64(f)))
}

// lines calls fn for each non-blank line of data with its 1-based number.
func lines(data []byte, fn func(n int, line []byte) error) error {
	n := 0
	for len(data) > 0 {
		n++
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	return nil
}
