package ref

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
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
		for n, line := range strings.Split(string(trimmed), "\n") {
			for _, w := range strings.Fields(line) {
				if !Valid(w) {
					return nil, &StreamError{Msg: fmt.Sprintf("stdin holds text that is not pack references (line %d: %q)", n+1, clip(line)),
						Hint: "pipe the JSON a ctx command prints (without --human), or name the packs as arguments"}
				}
				items = append(items, Item{Ref: w})
			}
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
				if gjson.GetBytes(raw, "steps").Exists() || gjson.GetBytes(raw, "model").Exists() {
					return nil, &StreamError{Msg: fmt.Sprintf("stdin value %d is an execution log, not a pack reference", n),
						Hint: "pack it first (ctx-pack LOG, or … | ctx-pack | this command), or name a pack"}
				}
				return nil, &StreamError{Msg: fmt.Sprintf("reading references from stdin: value %d: object has no \"hash\", \"uri\", \"pack\" or \"b\" string", n),
					Hint: "pipe a line a ctx command prints (ctx-log, ctx-pack, ctx-show …), or name the packs as arguments"}
			}
			items = append(items, Item{Ref: res.String(), Raw: raw})
		default:
			return nil, fmt.Errorf("reading references from stdin: value %d: want a string or an object with \"hash\", got %s", n, v.Kind())
		}
	}
}

// StreamError reports stdin that holds no pack references, with a hint
// that says what to pipe instead.
type StreamError struct {
	Msg, Hint string
}

func (e *StreamError) Error() string { return e.Msg }

// clip shortens a line of text for a message.
func clip(line string) string {
	line = strings.TrimSpace(line)
	if r := []rune(line); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return line
}

// Valid reports whether r is written as a reference: a hash, a hash
// prefix, latest or a tag name, with ^ and ~N suffixes. It does not look
// at any store.
func Valid(r string) bool {
	base, _, err := split(r)
	if err != nil {
		return false
	}
	hex, isHash := strings.CutPrefix(base, "sha256:")
	if !isHash {
		hex, isHash = strings.CutPrefix(base, "ctx://")
	}
	switch {
	case isHash:
		return len(hex) == digest.HexSize && digest.IsHex(hex)
	case base == store.Latest:
		return true
	case digest.IsHex(base) && len(base) >= MinPrefix:
		return len(base) <= digest.HexSize
	}
	return store.CheckTagName(base) == nil
}

// Unwrap makes a StreamError an ErrInvalid: a usage error.
func (e *StreamError) Unwrap() error { return ErrInvalid }
