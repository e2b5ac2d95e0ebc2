package ref

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"
)

// Item is one reference read from a stream, with the input value it came
// from (an object's raw JSON, for callers that want more of its fields).
type Item struct {
	Ref string
	Raw []byte
}

// ReadStream reads references from r: a stream of JSON values, each a
// string (the reference) or an object carrying "hash" (else "uri", else
// "pack", else "b", the compared pack of a diff report), as
// every ctx tool prints. Input that does not start as JSON is read as
// whitespace-separated words, so `echo latest | ctx-show` works too.
func ReadStream(r io.Reader) ([]Item, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading references from stdin: %w", err)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, nil
	}
	if c := trimmed[0]; c != '"' && c != '{' {
		var items []Item
		for _, w := range strings.Fields(string(trimmed)) {
			items = append(items, Item{Ref: w})
		}
		return items, nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	var items []Item
	for n := 1; ; n++ {
		v, err := dec.ReadValue()
		if errors.Is(err, io.EOF) {
			return items, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading references from stdin: value %d: %w", n, err)
		}
		raw := bytes.Clone(v)
		switch v.Kind() {
		case '"':
			items = append(items, Item{Ref: gjson.ParseBytes(raw).String(), Raw: raw})
		case '{':
			var res gjson.Result
			// hash, else uri; a replay or verify report names its pack in
			// "pack", a diff report the pack it compared in "b".
			for _, key := range []string{"hash", "uri", "pack", "b"} {
				if res = gjson.GetBytes(raw, key); res.Type == gjson.String {
					break
				}
			}
			if res.Type != gjson.String {
				return nil, fmt.Errorf("reading references from stdin: value %d: object has no \"hash\", \"uri\", \"pack\" or \"b\" string", n)
			}
			items = append(items, Item{Ref: res.String(), Raw: raw})
		default:
			return nil, fmt.Errorf("reading references from stdin: value %d: want a string or an object with \"hash\", got %s", n, v.Kind())
		}
	}
}
