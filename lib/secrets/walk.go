package secrets

import (
	"bytes"
	"encoding/base64"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
)

// stringValue is one string of a JSON document, a value or a member
// name: where it is, its bytes in the document (quotes included), and
// its text, decoded (and base64-decoded for a *_base64 member, the log's
// form of bytes).
type stringValue struct {
	at         jsontext.Pointer
	start, end int
	text       string
	base64     bool
	key        bool // a member name; at is its member
}

// path is where v is, as ctx names places: steps[3].output.
func (v stringValue) path() string { return canon.PathFromPointer(string(v.at)).String() }

// maskedPath is where v is, each secret of hs that a member name on the
// way is or holds shown as its mark: model.parameters["[REDACTED:…]"].
func (v stringValue) maskedPath(hs []hit) string {
	p := canon.PathFromPointer(string(v.at))
	for i, e := range p {
		if name, ok := e.(string); ok {
			for _, h := range hs {
				name = strings.ReplaceAll(name, h.secret, Mark(h.rule, h.secret))
			}
			p[i] = name
		}
	}
	return p.String()
}

// walk calls f with every string of the JSON document b (valid JSON: a
// log that parsed, a stored manifest, a text that looksJSON), member
// names included (a secret may be a key: a token under
// model.parameters, an access key id under metadata.env), in order. It
// is the one walk this package scans and rewrites JSON with: a pack's
// manifest, a log, a JSON text inside a content.
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
		if kind != '"' {
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			continue
		}
		key := inObject && n%2 == 0
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		end := int(dec.InputOffset())
		text, err := jsontext.AppendUnquote(nil, raw)
		if err != nil {
			return err
		}
		v := stringValue{at: dec.StackPointer(), start: end - len(raw), end: end, text: string(text), key: key}
		if key {
			for len(names) < depth {
				names = append(names, "")
			}
			names[depth-1] = v.text
		} else if inObject && len(names) >= depth && strings.HasSuffix(names[depth-1], "_base64") {
			if dec, err := base64.StdEncoding.DecodeString(v.text); err == nil {
				v.text, v.base64 = string(dec), true
			}
		}
		f(v)
	}
	return nil
}
