package drift

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
)

// JSON returns the report as canonical JSON. It is written member by
// member in canonical order, not encoded and then canonicalized: on a
// report of a thousand entries the second pass cost as much as the
// comparison. The values an entry holds (A, B) are canonical as Diff
// makes them; a value that is not is an error, never written as it is.
func (r *Report) JSON() ([]byte, error) {
	size := 512
	for i := range r.Drift {
		e := &r.Drift[i]
		size += 320 + len(e.A) + len(e.B) + len(e.Diff) + len(e.Note) + len(e.Path)
	}
	w := reportWriter{b: make([]byte, 0, size)}
	w.raw(`{"a":`)
	w.digest(r.A)
	w.raw(`,"b":`)
	w.digest(r.B)
	w.raw(`,"drift":[`)
	for i := range r.Drift {
		if i > 0 {
			w.raw(",")
		}
		w.entry(&r.Drift[i])
	}
	w.raw(`],"identical":`)
	w.b = strconv.AppendBool(w.b, r.Identical)
	if len(r.Ignored) > 0 {
		w.raw(`,"ignored":`)
		w.counts(r.Ignored)
	}
	w.raw(`,"summary":`)
	w.counts(r.Summary)
	if r.VolatileMetadata > 0 {
		w.raw(`,"volatile_metadata":`)
		w.b = strconv.AppendInt(w.b, int64(r.VolatileMetadata), 10)
	}
	w.raw("}")
	if w.err != nil {
		return nil, fmt.Errorf("encoding drift report: %w", w.err)
	}
	return w.b, nil
}

// reportWriter appends canonical JSON to b, keeping the first error.
type reportWriter struct {
	b   []byte
	err error
}

func (w *reportWriter) raw(s string) { w.b = append(w.b, s...) }

func (w *reportWriter) str(s string) {
	if !utf8.ValidString(s) {
		w.fail(fmt.Errorf("string %q is not valid UTF-8", s))
		return
	}
	w.b = canon.AppendString(w.b, s)
}

func (w *reportWriter) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *reportWriter) digest(d digest.Digest) {
	if d.IsZero() {
		w.fail(errors.New("a pack's hash is missing"))
		return
	}
	w.raw(`"sha256:`)
	w.b = hex.AppendEncode(w.b, d[:])
	w.raw(`"`)
}

func (w *reportWriter) value(v jsontext.Value) {
	if !canon.IsCanonical(v) {
		w.fail(fmt.Errorf("value %.40q is not canonical JSON", v))
		return
	}
	w.b = append(w.b, v...)
}

func (w *reportWriter) counts(m map[string]int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // drift types are ASCII: byte order is canonical order
	w.raw("{")
	for i, k := range keys {
		if i > 0 {
			w.raw(",")
		}
		w.str(k)
		w.raw(":")
		w.b = strconv.AppendInt(w.b, int64(m[k]), 10)
	}
	w.raw("}")
}

// entry writes e's members in canonical (sorted) order, leaving out the
// zero ones its JSON tags mark omitzero.
func (w *reportWriter) entry(e *Entry) {
	sep := "{"
	member := func(name string) {
		w.raw(sep)
		sep = ","
		w.raw(`"`) // names are plain ASCII
		w.raw(name)
		w.raw(`":`)
	}
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
			member(side.names[0])
			w.value(side.value)
		}
		if !side.ref.IsZero() {
			member(side.names[1])
			w.digest(side.ref)
		}
		if side.size != nil {
			member(side.names[2])
			w.b = strconv.AppendInt(w.b, *side.size, 10)
		}
		if side.step != nil {
			member(side.names[3])
			w.b = strconv.AppendInt(w.b, int64(*side.step), 10)
		}
	}
	if e.Binary {
		member("binary")
		w.raw("true")
	}
	member("change")
	w.str(e.Change)
	if e.Diff != "" {
		member("diff")
		w.str(e.Diff)
	}
	if e.Note != "" {
		member("note")
		w.str(e.Note)
	}
	member("path")
	w.str(e.Path)
	if e.Tool != "" {
		member("tool")
		w.str(e.Tool)
	}
	if e.Truncated {
		member("truncated")
		w.raw("true")
	}
	member("type")
	w.str(e.Type)
	w.raw("}")
}
