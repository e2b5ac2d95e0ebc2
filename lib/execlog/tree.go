package execlog

import (
	"bytes"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

// node is one JSON value of the log. Scalars keep their raw bytes, which
// alias the input buffer: a 1 GiB inline string is never copied.
type node struct {
	kind  jsontext.Kind
	raw   []byte // the value's raw bytes (for containers, the whole value)
	off   int64  // offset of the value in the input
	keys  []string
	vals  []*node // object members, in input order
	elems []*node // array elements
}

// parseTree builds the tree of data, which canon.Check has already
// validated. The decoder reads the bytes.Buffer in place.
func parseTree(data []byte) (*node, error) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(data))
	return readNode(dec, data)
}

func readNode(dec *jsontext.Decoder, data []byte) (*node, error) {
	switch k := dec.PeekKind(); k {
	case '{', '[':
		start := dec.InputOffset()
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		// InputOffset before ReadToken may precede whitespace; find the delimiter.
		for start < int64(len(data)) && data[start] != byte(k) {
			start++
		}
		n := &node{kind: k, off: start}
		for dec.PeekKind() != k+2 { // '}' = '{'+2, ']' = '['+2
			if k == '{' {
				tok, err := dec.ReadToken()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, tok.String())
			}
			v, err := readNode(dec, data)
			if err != nil {
				return nil, err
			}
			if k == '{' {
				n.vals = append(n.vals, v)
			} else {
				n.elems = append(n.elems, v)
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		n.raw = data[start:dec.InputOffset()]
		return n, nil
	case 0:
		return nil, fmt.Errorf("unexpected end of input")
	default:
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		end := dec.InputOffset()
		start := end - int64(len(v))
		return &node{kind: v.Kind(), raw: data[start:end], off: start}, nil
	}
}

// member returns the value of key in an object node, or nil.
func (n *node) member(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "invalid"
}
