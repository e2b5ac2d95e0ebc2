package drift

import (
	"encoding/hex"
	"fmt"
	"slices"

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
	w := reportWriter{canon.Writer{B: make([]byte, 0, size)}}
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
	if err := w.Err(); err != nil {
		return nil, fmt.Errorf("encoding drift report: %w", err)
	}
	return w.B, nil
}

// reportWriter is canon.Writer with the report's own values.
type reportWriter struct{ canon.Writer }

func (w *reportWriter) digest(d digest.Digest) {
	if d.IsZero() {
		w.Fail("a pack's hash is missing")
	}
	w.Literal(`"sha256:`, hex.EncodeToString(d[:]), `"`)
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
			w.Raw(side.value)
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
	w.String(e.Change)
	if e.Diff != "" {
		w.Key("diff")
		w.String(e.Diff)
	}
	if e.Note != "" {
		w.Key("note")
		w.String(e.Note)
	}
	w.Key("path")
	w.String(e.Path)
	if e.Tool != "" {
		w.Key("tool")
		w.String(e.Tool)
	}
	if e.Truncated {
		w.Key("truncated")
		w.Bool(true)
	}
	w.Key("type")
	w.String(e.Type)
	w.Close('}')
}
