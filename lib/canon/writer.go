package canon

import (
	"strconv"
	"unicode/utf8"
)

// Writer writes canonical JSON member by member, without building a
// document first and canonicalizing it after: on a manifest of thousands
// of steps or a drift report of a thousand entries that second pass cost
// as much as the rest. The caller writes object members in canonical
// order (by name; names it gives are plain ASCII, so byte order);
// Writer writes strings, integers and raw values in canonical form and
// refuses what canonical JSON cannot carry exactly: a string that is not
// valid UTF-8, an integer beyond 2^53, a raw value not in canonical form.
// The first refusal is kept, as an *Error naming its JSON path
// (steps[3].tool), and writing goes on, so that a caller checks Err once,
// at the end. This is the one hand-written canonical writer: the
// manifest's encoder and the drift report are written with it.
type Writer struct {
	// B is the output so far. A caller may take it and go on in fresh
	// memory (the manifest is written in parts).
	B     []byte
	comma bool
	err   error
	stack []frame // the containers open, for the path of an error
}

type frame struct {
	name  string
	index int
	array bool
}

// Err returns the first refusal, or nil.
func (w *Writer) Err() error { return w.err }

// Fail records err as the first refusal, at the current path, unless
// there is one already: for what the caller refuses itself (a digest
// that must be set).
func (w *Writer) Fail(msg string) {
	if w.err == nil {
		w.err = &Error{Path: w.path(), Offset: -1, Msg: msg}
	}
}

func (w *Writer) path() Path {
	p := make(Path, 0, len(w.stack))
	for _, f := range w.stack {
		if f.array {
			if f.index >= 0 {
				p = append(p, f.index)
			}
		} else if f.name != "" {
			p = append(p, f.name)
		}
	}
	return p
}

// Open opens an object ('{') or an array ('[').
func (w *Writer) Open(c byte) {
	w.B = append(w.B, c)
	w.comma = false
	w.stack = append(w.stack, frame{array: c == '[', index: -1})
}

// Close closes the innermost object ('}') or array (']').
func (w *Writer) Close(c byte) {
	w.B = append(w.B, c)
	w.comma = true
	if n := len(w.stack); n > 0 {
		w.stack = w.stack[:n-1]
	}
}

// Key writes a member name, plain ASCII as the caller's names are, and
// the colon: a value follows.
func (w *Writer) Key(k string) {
	if w.comma {
		w.B = append(w.B, ',')
	}
	w.B = append(w.B, '"')
	w.B = append(w.B, k...)
	w.B = append(w.B, '"', ':')
	w.comma = false
	if n := len(w.stack); n > 0 {
		w.stack[n-1].name = k
	}
}

// Name is Key for a name from the data (a map's key), written as String
// writes a string. The caller sorts such names: by byte order only when
// they are ASCII, since canonical order is that of UTF-16 code units.
func (w *Writer) Name(k string) {
	if w.comma {
		w.B = append(w.B, ',')
	}
	w.String(k)
	w.B = append(w.B, ':')
	w.comma = false
	if n := len(w.stack); n > 0 {
		w.stack[n-1].name = k
	}
}

// Elem starts an array element: a value follows.
func (w *Writer) Elem() {
	if w.comma {
		w.B = append(w.B, ',')
	}
	w.comma = false
	if n := len(w.stack); n > 0 {
		w.stack[n-1].index++
	}
}

// String writes s as a canonical JSON string (AppendString). A string
// that is not valid UTF-8 is refused, and written with U+FFFD in place of
// each invalid byte, so that the output stays JSON.
func (w *Writer) String(s string) {
	if !utf8.ValidString(s) {
		w.Fail("invalid UTF-8 in a string")
		s = ToValidUTF8(s)
	}
	w.B = AppendString(w.B, s)
	w.comma = true
}

// Int writes an integer; one beyond ±2^53 that canonical JSON would
// change (9007199254740993, not 9007199254740994) is refused.
func (w *Writer) Int(n int64) {
	start := len(w.B)
	w.B = strconv.AppendInt(w.B, n, 10)
	if n > MaxSafeInteger || n < -MaxSafeInteger {
		if err := checkNumber(string(w.B[start:])); err != nil {
			w.Fail(err.Error())
		}
	}
	w.comma = true
}

// Bool writes true or false.
func (w *Writer) Bool(v bool) {
	w.B = strconv.AppendBool(w.B, v)
	w.comma = true
}

// Raw writes v, a JSON value, as it is when it is in canonical form
// (IsCanonical); one that is not is refused and not written (null in its
// place).
func (w *Writer) Raw(v []byte) {
	if !IsCanonical(v) {
		w.Fail("value is not in canonical form")
		v = []byte("null")
	}
	w.B = append(w.B, v...)
	w.comma = true
}

// Literal writes lit, bytes the caller knows to be one canonical JSON
// value (a digest's quoted text form), unchecked. Without lit, it only
// records that a value was written (one the caller put in the document
// itself).
func (w *Writer) Literal(lit ...string) {
	for _, s := range lit {
		w.B = append(w.B, s...)
	}
	w.comma = true
}
