package importer

import (
	"bytes"
	"io"

	"encoding/json"
	"errors"
	"fmt"
	"github.com/go-json-experiment/json/jsontext"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// at joins a record location and a path inside it: "line 3" and
// "message" give "line 3: message", "[2].request" and "messages[0]" give
// "[2].request.messages[0]".
func At(where, sub string) string {
	switch {
	case where == "":
		return sub
	case sub == "":
		return where
	case strings.HasPrefix(where, "line ") && !strings.ContainsAny(where, ":.") || strings.HasSuffix(where, ".json") && !strings.Contains(where, ":"):
		return where + ": " + sub
	case sub[0] == '[':
		return where + sub
	}
	return where + "." + sub
}

// wholeDoc parses data as one JSON document. It reports false, with no
// error, when data looks like JSON Lines instead (its first line is a
// complete JSON value and more follows).
func (b *Builder) WholeDoc(data []byte) (gjson.Result, bool, error) {
	if gjson.ValidBytes(data) {
		if !utf8.Valid(data) {
			return gjson.Result{}, false, b.Errorf(invalidUTF8At(data), "invalid UTF-8")
		}
		if err := checkSurrogates(data); err != nil {
			return gjson.Result{}, false, b.Errorf("", "%v", err)
		}
		return Parse(data), true, nil
	}
	firstLine := data
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		firstLine = data[:i]
	}
	if t := bytes.TrimSpace(firstLine); len(t) > 0 && gjson.ValidBytes(t) {
		return gjson.Result{}, false, nil
	}
	return gjson.Result{}, false, b.Errorf("", "invalid JSON: %s", jsonError(data))
}

// jsonError describes why data is not JSON, with the line and column.
func jsonError(data []byte) string {
	var v json.RawMessage
	err := json.Unmarshal(data, &v)
	if err == nil {
		return "not a JSON value"
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		if off > len(data) {
			off = len(data)
		}
		line := 1 + bytes.Count(data[:off], []byte{'\n'})
		col := off - bytes.LastIndexByte(data[:off], '\n')
		return fmt.Sprintf("%s (line %d, column %d)", se.Error(), line, col)
	}
	return err.Error()
}

func invalidUTF8At(data []byte) string {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Sprintf("line %d", 1+bytes.Count(data[:i], []byte{'\n'}))
		}
		i += n
	}
	return ""
}

// jsonLines calls fn for every line of data, each of which must be a JSON
// object. A last line that is cut short (a log still being written) is
// left out with a warning naming it, unless it is the only one; any other
// line that is not JSON is an error naming it.
func (b *Builder) JSONLines(data []byte, fn func(where string, rec gjson.Result) error) error {
	return b.jsonLinesIn(data, 0, len(data), fn)
}

// jsonLinesIn is jsonLines for the lines of data[from:to] only (from and
// to at the start of a line, or len(data)), named and judged as lines of
// data: the lines before from were read before.
func (b *Builder) jsonLinesIn(data []byte, from, to int, fn func(where string, rec gjson.Result) error) error {
	last := lastLine(data)
	seen := len(bytes.TrimSpace(data[:from])) > 0 // a line before from was read, so was JSON
	first := 1 + bytes.Count(data[:from], []byte{'\n'})
	return lines(data[from:to], func(n int, line []byte) error {
		n += first - 1
		where := fmt.Sprintf("%sline %d", b.LinePrefix, n)
		if !gjson.ValidBytes(line) {
			if n == last && seen && truncated(line) {
				b.Warn("%s is cut short (the log was still being written?); it is left out", where)
				return nil
			}
			return b.Errorf(where, "invalid JSON: %s", jsonErrorShort(line))
		}
		seen = true
		if !utf8.Valid(line) {
			return b.Errorf(where, "invalid UTF-8")
		}
		if err := checkSurrogates(line); err != nil {
			return b.Errorf(where, "%v", err)
		}
		rec := Parse(line)
		if !rec.IsObject() {
			return b.Errorf(where, "expected a JSON object, got %s", Kind(rec))
		}
		return fn(where, rec)
	})
}

// lastLine returns the number of the last non-blank line of data.
func lastLine(data []byte) int {
	trimmed := bytes.TrimRight(data, " \t\r\n")
	return 1 + bytes.Count(trimmed, []byte{'\n'})
}

// truncated reports whether line is the beginning of a JSON value that
// ends too early, as a record being written when the file was copied.
func truncated(line []byte) bool {
	_, err := jsontext.NewDecoder(bytes.NewReader(line)).ReadValue()
	return errors.Is(err, io.ErrUnexpectedEOF)
}

func jsonErrorShort(line []byte) string {
	var v json.RawMessage
	if err := json.Unmarshal(line, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Sprintf("%s (column %d)", se.Error(), se.Offset)
		}
		return err.Error()
	}
	return "not a JSON value"
}

// eachRecord calls fn for each record of data: the elements of a top-level
// array, a lone top-level object, or the lines of JSON Lines.
func (b *Builder) eachRecord(data []byte, fn func(where string, rec gjson.Result) error) error {
	doc, whole, err := b.WholeDoc(data)
	if err != nil {
		return err
	}
	if !whole {
		return b.JSONLines(data, fn)
	}
	switch {
	case doc.IsArray():
		i := 0
		Each(doc, func(_, rec gjson.Result) bool {
			where := fmt.Sprintf("[%d]", i)
			i++
			if !rec.IsObject() {
				err = b.Errorf(where, "expected a JSON object, got %s", Kind(rec))
				return false
			}
			err = fn(where, rec)
			return err == nil
		})
		return err
	case doc.IsObject():
		return fn("", doc)
	}
	return b.Errorf("", "expected a JSON object or array, got %s", Kind(doc))
}

// checkSurrogates rejects \u escapes that are not valid UTF-16 (a lone
// surrogate), which gjson would silently turn into U+FFFD. Only data that
// has a surrogate escape at all is decoded strictly.
func checkSurrogates(data []byte) error {
	if !bytes.Contains(data, []byte(`\ud`)) && !bytes.Contains(data, []byte(`\uD`)) {
		return nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	for {
		_, err := dec.ReadToken()
		if err == io.EOF {
			return nil
		}
		var se *jsontext.SyntacticError
		if errors.As(err, &se) {
			return fmt.Errorf("invalid text at byte %d: %v", se.ByteOffset, se.Err)
		}
		if err != nil {
			return err
		}
	}
}
