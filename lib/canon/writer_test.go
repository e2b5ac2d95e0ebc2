package canon

import (
	"bytes"
	"errors"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/internal/sharedtest"
)

// rewrite writes the JSON value in, token by token, through a Writer.
// Object members are written in the order in gives them.
func rewrite(t *testing.T, in []byte) *Writer {
	t.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(in))
	var w Writer
	type open struct{ object, name bool }
	var stack []open
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return &w
		}
		if err != nil {
			t.Fatal(err)
		}
		kind := tok.Kind()
		if n := len(stack); n > 0 && kind != '}' && kind != ']' {
			top := &stack[n-1]
			switch {
			case top.object && top.name:
				w.Name(tok.String())
				top.name = false
				continue
			case top.object:
				top.name = true
			default:
				w.Elem()
			}
		}
		switch kind {
		case '{', '[':
			w.Open(byte(kind))
			stack = append(stack, open{object: kind == '{', name: kind == '{'})
		case '}', ']':
			w.Close(byte(kind))
			stack = stack[:len(stack)-1]
		case '"':
			w.String(tok.String())
		case '0':
			w.Raw([]byte(tok.String()))
		default:
			w.Literal(tok.String())
		}
	}
}

// TestWriterVectors writes RFC 8785's expected outputs through a Writer,
// string by string and number by number: the bytes must come out the
// same (escapes, non-ASCII text and names, numbers).
func TestWriterVectors(t *testing.T) {
	dir := sharedtest.Dir(t, "jcs")
	names, err := filepath.Glob(filepath.Join(dir, "output", "*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no vectors in %s: %v", dir, err)
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			want := bytes.TrimSuffix(readFile(t, name), []byte("\n"))
			w := rewrite(t, want)
			if w.Err() != nil {
				t.Fatal(w.Err())
			}
			if !bytes.Equal(w.B, want) {
				t.Errorf("written\n got %s\nwant %s", w.B, want)
			}
		})
	}
}

// TestWriterRefuses: what canonical JSON cannot carry is an *Error naming
// its JSON path; the output stays JSON.
func TestWriterRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(w *Writer)
		want  string
	}{
		{"invalid UTF-8", func(w *Writer) {
			w.Open('{')
			w.Key("steps")
			w.Open('[')
			w.Elem()
			w.Open('{')
			w.Key("tool")
			w.String("ok")
			w.Close('}')
			w.Elem()
			w.Open('{')
			w.Key("tool")
			w.String("a\xffb")
			w.Close('}')
			w.Close(']')
			w.Close('}')
		}, "steps[1].tool: invalid UTF-8 in a string"},
		{"integer beyond 2^53", func(w *Writer) {
			w.Open('{')
			w.Key("size")
			w.Int(1<<53 + 1)
			w.Close('}')
		}, "size: integer 9007199254740993 is beyond 2^53 and would change to 9007199254740992 in canonical JSON (write it as a string)"},
		{"raw value not canonical", func(w *Writer) {
			w.Open('[')
			w.Elem()
			w.Raw([]byte(`{"b":1,"a":2}`))
			w.Close(']')
		}, "[0]: value is not in canonical form"},
		{"invalid UTF-8 in a name", func(w *Writer) {
			w.Open('{')
			w.Key("tool_versions")
			w.Open('{')
			w.Name("x\xfe")
			w.String("1")
			w.Close('}')
			w.Close('}')
		}, `tool_versions: invalid UTF-8 in a string`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var w Writer
			c.write(&w)
			var e *Error
			if !errors.As(w.Err(), &e) || e.Error() != c.want {
				t.Fatalf("error %v, want %q", w.Err(), c.want)
			}
			if !jsontext.Value(w.B).IsValid() {
				t.Fatalf("output is not JSON: %q", w.B)
			}
		})
	}
}

// FuzzWriter holds the Writer to the definition: a document written
// member by member is what encoding the same values and canonicalizing
// gives, or a refusal exactly when that fails.
func FuzzWriter(f *testing.F) {
	f.Add("text", "é\n\"\\\x01", int64(7), true)
	f.Add("a\xffb", "", int64(math.MaxInt64), false)
	f.Add("\u2028<>&", "😀", int64(-1<<53), true)
	f.Fuzz(func(t *testing.T, s1, s2 string, n int64, b bool) {
		var w Writer
		w.Open('{')
		w.Key("a")
		w.String(s1)
		w.Key("b")
		w.Open('[')
		w.Elem()
		w.Int(n)
		w.Elem()
		w.String(s2)
		w.Elem()
		w.Bool(b)
		w.Close(']')
		w.Close('}')
		doc := map[string]any{"a": s1, "b": []any{n, s2, b}}
		enc, err := json.Marshal(doc, json.Deterministic(true))
		var want []byte
		if err == nil {
			want, err = Canonicalize(enc)
		}
		if (err != nil) != (w.Err() != nil) {
			t.Fatalf("writer error %v, definition's %v", w.Err(), err)
		}
		if err == nil && !bytes.Equal(w.B, want) {
			t.Fatalf("written %s, canonical %s", w.B, want)
		}
		if !jsontext.Value(w.B).IsValid() {
			t.Fatalf("output is not JSON: %q", w.B)
		}
		if w.Err() != nil && !strings.Contains(w.Err().Error(), ": ") {
			t.Fatalf("refusal without a path: %v", w.Err())
		}
	})
}
