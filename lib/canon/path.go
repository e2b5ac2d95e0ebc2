package canon

import (
	"strconv"
	"strings"
)

// Path locates a value inside a JSON document: each element is an object
// member name (string) or an array index (int). Its String form reads like
// jq: steps[3].parameters.path, outputs["result.md"].
type Path []any

// Key returns p extended by an object member name. p itself is not changed.
func (p Path) Key(name string) Path { return append(p.clone(), name) }

// Index returns p extended by an array index. p itself is not changed.
func (p Path) Index(i int) Path { return append(p.clone(), i) }

func (p Path) clone() Path { return append(Path(nil), p...) }

// String renders p; the empty path is "(root)".
func (p Path) String() string {
	if len(p) == 0 {
		return "(root)"
	}
	var b strings.Builder
	for i, e := range p {
		switch e := e.(type) {
		case int:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e))
			b.WriteByte(']')
		case string:
			if isIdent(e) {
				if i > 0 {
					b.WriteByte('.')
				}
				b.WriteString(e)
			} else {
				b.WriteByte('[')
				b.WriteString(strconv.Quote(e))
				b.WriteByte(']')
			}
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// PathFromPointer converts an RFC 6901 JSON pointer to a Path. Tokens made
// only of digits are taken as array indices.
func PathFromPointer(ptr string) Path {
	if ptr == "" {
		return nil
	}
	var p Path
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if n, err := strconv.Atoi(tok); err == nil && n >= 0 && strconv.Itoa(n) == tok {
			p = append(p, n)
		} else {
			p = append(p, tok)
		}
	}
	return p
}
