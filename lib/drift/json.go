package drift

import (
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
)

// JSON returns the report as canonical JSON. It is written member by
// member in canonical order, not encoded and then canonicalized: on a
// report of a thousand entries the second pass cost as much as the
// comparison. The values an entry holds (A, B) are canonical as Diff
// makes them; a value that is not is an error naming its place, never
// written as it is.
func (r *Report) JSON() ([]byte, error) {
	size := 512
	for i := range r.Drift {
		e := &r.Drift[i]
		size += 320 + len(e.A) + len(e.B) + len(e.Diff) + len(e.Note) + len(e.Path)
	}
	w := reportWriter{Writer: canon.Writer{B: make([]byte, 0, size)}}
	r.write(&w)
	if err := w.Err(); err != nil {
		return nil, fmt.Errorf("encoding drift report: %w", err)
	}
	return w.B, nil
}

// WriteJSON writes JSON's bytes to out a piece at a time: a report of a
// thousand unified diffs is megabytes, and held whole it was the largest
// piece of fresh memory a diff touched. What cannot be written is found
// before anything is (Report.check), so that an error leaves out
// untouched.
func (r *Report) WriteJSON(out io.Writer) error {
	if err := r.check(); err != nil {
		return fmt.Errorf("encoding drift report: %w", err)
	}
	w := reportWriter{Writer: canon.Writer{B: make([]byte, 0, 2*flushAt)}, out: out, checked: true}
	r.write(&w)
	if err := w.Err(); err != nil {
		return fmt.Errorf("encoding drift report: %w", err)
	}
	return w.flush()
}

// flushAt is how much WriteJSON holds before it writes.
const flushAt = 32 << 10

// write writes r through w, flushing between entries when w has an out.
func (r *Report) write(w *reportWriter) {
	w.Open('{')
	w.Key("a")
	w.digest(r.A)
	w.Key("b")
	w.digest(r.B)
	w.Key("drift")
	w.Open('[')
	for i := range r.Drift {
		w.Elem()
		w.entry(&r.Drift[i])
		if w.out != nil && len(w.B) >= flushAt && w.Err() == nil {
			if w.outErr = w.flush(); w.outErr != nil {
				return
			}
		}
	}
	w.Close(']')
	w.Key("identical")
	w.Bool(r.Identical)
	if len(r.Ignored) > 0 {
		w.Key("ignored")
		w.counts(r.Ignored)
	}
	w.Key("summary")
	w.counts(r.Summary)
	if r.VolatileMetadata > 0 {
		w.Key("volatile_metadata")
		w.Int(int64(r.VolatileMetadata))
	}
	w.Close('}')
}

// check returns the first reason, as canon.Writer would name it, that r
// cannot be written as canonical JSON.
func (r *Report) check() error {
	fail := func(msg string, path ...any) error {
		return &canon.Error{Path: canon.Path(path), Offset: -1, Msg: msg}
	}
	if r.A.IsZero() {
		return fail("a pack's hash is missing", "a")
	}
	if r.B.IsZero() {
		return fail("a pack's hash is missing", "b")
	}
	for i := range r.Drift {
		e := &r.Drift[i]
		for _, v := range [2]struct {
			name  string
			value jsontext.Value
		}{{"a", e.A}, {"b", e.B}} {
			if v.value != nil && !canon.IsCanonical(v.value) {
				return fail("value is not in canonical form", "drift", i, v.name)
			}
		}
		for _, s := range [6]struct{ name, value string }{
			{"change", e.Change}, {"diff", e.Diff}, {"note", e.Note},
			{"path", e.Path}, {"tool", e.Tool}, {"type", e.Type},
		} {
			if !utf8.ValidString(s.value) {
				return fail("invalid UTF-8 in a string", "drift", i, s.name)
			}
		}
	}
	for _, m := range [2]struct {
		name   string
		counts map[string]int
	}{{"ignored", r.Ignored}, {"summary", r.Summary}} {
		for k := range m.counts {
			if !utf8.ValidString(k) {
				return fail("invalid UTF-8 in a string", m.name)
			}
		}
	}
	return nil
}

// reportWriter is canon.Writer with the report's own values, and where
// WriteJSON sends them.
type reportWriter struct {
	canon.Writer
	out    io.Writer
	outErr error // the first write to out that failed
	// checked says Report.check passed: the values are canonical.
	checked bool
}

// flush writes what w holds to out.
func (w *reportWriter) flush() error {
	if w.outErr != nil {
		return w.outErr
	}
	if _, err := w.out.Write(w.B); err != nil {
		return err
	}
	w.B = w.B[:0]
	return nil
}

func (w *reportWriter) digest(d digest.Digest) {
	if d.IsZero() {
		w.Fail("a pack's hash is missing")
	}
	w.B = append(w.B, `"sha256:`...)
	w.B = append(hex.AppendEncode(w.B, d[:]), '"')
	w.Literal()
}

// str writes a string of an entry, which Report.check found valid when
// w.checked.
func (w *reportWriter) str(s string) {
	if !w.checked {
		w.String(s)
		return
	}
	w.B = canon.AppendString(w.B, s)
	w.Literal()
}

func (w *reportWriter) counts(m map[string]int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // drift types are ASCII: byte order is canonical order
	w.Open('{')
	for _, k := range keys {
		w.Name(k)
		w.Int(int64(m[k]))
	}
	w.Close('}')
}

// entry writes e's members in canonical (sorted) order, leaving out the
// zero ones its JSON tags mark omitzero.
func (w *reportWriter) entry(e *Entry) {
	w.Open('{')
	for _, side := range [2]struct {
		names [4]string
		value jsontext.Value
		ref   digest.Digest
		size  *int64
		step  *int
	}{
		{[4]string{"a", "a_ref", "a_size", "a_step"}, e.A, e.ARef, e.ASize, e.AStep},
		{[4]string{"b", "b_ref", "b_size", "b_step"}, e.B, e.BRef, e.BSize, e.BStep},
	} {
		if side.value != nil {
			w.Key(side.names[0])
			if w.checked {
				w.B = append(w.B, side.value...)
				w.Literal()
			} else {
				w.Raw(side.value)
			}
		}
		if !side.ref.IsZero() {
			w.Key(side.names[1])
			w.digest(side.ref)
		}
		if side.size != nil {
			w.Key(side.names[2])
			w.Int(*side.size)
		}
		if side.step != nil {
			w.Key(side.names[3])
			w.Int(int64(*side.step))
		}
	}
	if e.Binary {
		w.Key("binary")
		w.Bool(true)
	}
	w.Key("change")
	w.str(e.Change)
	if e.Diff != "" {
		w.Key("diff")
		w.str(e.Diff)
	}
	if e.Note != "" {
		w.Key("note")
		w.str(e.Note)
	}
	w.Key("path")
	w.str(e.Path)
	if e.Tool != "" {
		w.Key("tool")
		w.str(e.Tool)
	}
	if e.Truncated {
		w.Key("truncated")
		w.Bool(true)
	}
	w.Key("type")
	w.str(e.Type)
	w.Close('}')
}
