package drift

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
)

// JSON returns the report as canonical JSON: WriteJSON's bytes.
func (r *Report) JSON() ([]byte, error) {
	size := 512
	for i := range r.Drift {
		e := &r.Drift[i]
		size += 320 + len(e.A) + len(e.B) + len(e.Diff) + len(e.Note) + len(e.Path)
	}
	w := reportWriter{b: make([]byte, 0, size)}
	if err := r.write(&w); err != nil {
		return nil, err
	}
	return w.b, nil
}

// WriteJSON writes the report to out as canonical JSON, a piece at a
// time: a report of a thousand unified diffs is megabytes, and held
// whole it was the largest piece of fresh memory a diff touched. It is
// written member by member in canonical order, not encoded and then
// canonicalized: on a report of a thousand entries the second pass cost
// as much as the comparison. The values an entry holds (A, B) are
// canonical as Diff makes them; a value that is not, or a string that is
// not UTF-8, is an error found before anything is written, never
// written as it is.
func (r *Report) WriteJSON(out io.Writer) error {
	w := reportWriter{b: make([]byte, 0, 2*flushAt), out: out}
	if err := r.write(&w); err != nil {
		return err
	}
	return w.flush()
}

// flushAt is how much WriteJSON holds before it writes.
const flushAt = 32 << 10

// write checks r, then writes it through w.
func (r *Report) write(w *reportWriter) error {
	if err := r.check(); err != nil {
		return fmt.Errorf("encoding drift report: %w", err)
	}
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
		if len(w.b) >= flushAt && w.out != nil {
			if err := w.flush(); err != nil {
				return err
			}
		}
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
	return nil
}

// check returns the first reason, in the order they would be written,
// that r cannot be written as canonical JSON.
func (r *Report) check() error {
	if r.A.IsZero() || r.B.IsZero() {
		return errors.New("a pack's hash is missing")
	}
	for i := range r.Drift {
		e := &r.Drift[i]
		for _, v := range [2]jsontext.Value{e.A, e.B} {
			if v != nil && !canon.IsCanonical(v) {
				return fmt.Errorf("value %.40q is not canonical JSON", v)
			}
		}
		for _, s := range [6]string{e.Change, e.Diff, e.Note, e.Path, e.Tool, e.Type} {
			if !utf8.ValidString(s) {
				return fmt.Errorf("string %q is not valid UTF-8", s)
			}
		}
	}
	for _, m := range [2]map[string]int{r.Ignored, r.Summary} {
		for k := range m {
			if !utf8.ValidString(k) {
				return fmt.Errorf("string %q is not valid UTF-8", k)
			}
		}
	}
	return nil
}

// reportWriter appends canonical JSON, checked beforehand (Report.check),
// to b, and writes b to out (when set) at flush.
type reportWriter struct {
	b   []byte
	out io.Writer
}

func (w *reportWriter) flush() error {
	if _, err := w.out.Write(w.b); err != nil {
		return err
	}
	w.b = w.b[:0]
	return nil
}

func (w *reportWriter) raw(s string) { w.b = append(w.b, s...) }

func (w *reportWriter) str(s string) { w.b = canon.AppendString(w.b, s) }

func (w *reportWriter) digest(d digest.Digest) {
	w.raw(`"sha256:`)
	w.b = hex.AppendEncode(w.b, d[:])
	w.raw(`"`)
}

func (w *reportWriter) value(v jsontext.Value) { w.b = append(w.b, v...) }

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
