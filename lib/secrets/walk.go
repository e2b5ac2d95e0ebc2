package secrets

import (
	"bytes"
	"encoding/base64"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
)

// stringValue is one string value of a JSON document: where it is, its
// bytes in the document (quotes included), and its text, decoded (and
// base64-decoded for a *_base64 member, the log's form of bytes).
type stringValue struct {
	at         jsontext.Pointer
	start, end int
	text       string
	base64     bool
}

// path is where v is, as ctx names places: steps[3].output.
func (v stringValue) path() string { return canon.PathFromPointer(string(v.at)).String() }

// walk calls f with every string value of the JSON document b (valid
// JSON: a log that parsed, a stored manifest, a text that looksJSON), in
// order; member names are not values. It is the one walk this package scans and
// rewrites JSON with: a pack's manifest, a log, a JSON text inside a
// content.
func walk(b []byte, f func(stringValue)) error {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	var names []string // the member name at each depth
	for {
		kind := dec.PeekKind()
		if kind == 0 {
			break
		}
		depth := dec.StackDepth()
		parent, n := dec.StackIndex(depth)
		inObject := depth > 0 && parent == '{'
		if kind != '"' || inObject && n%2 == 0 {
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			if kind == '"' {
				for len(names) < depth {
					names = append(names, "")
				}
				names[depth-1] = tok.String()
			}
			continue
		}
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		end := int(dec.InputOffset())
		text, err := jsontext.AppendUnquote(nil, raw)
		if err != nil {
			return err
		}
		v := stringValue{at: dec.StackPointer(), start: end - len(raw), end: end, text: string(text)}
		if inObject && len(names) >= depth && strings.HasSuffix(names[depth-1], "_base64") {
			if dec, err := base64.StdEncoding.DecodeString(v.text); err == nil {
				v.text, v.base64 = string(dec), true
			}
		}
		f(v)
	}
	return nil
}
