package importer

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

const attachmentScheme = "attachment://"

// fixup makes the encoded log portable and canonicalisable in one pass over
// its tokens, when it needs it at all: absolute paths under a recorded
// working directory become relative, Inspect attachment:// references are
// replaced by their content, and numbers canonical JSON cannot carry
// exactly (integers beyond 2^53, numbers beyond float64) become strings
// holding their digits.
func (b *builder) fixup(doc []byte) ([]byte, error) {
	rewrite := b.rewriteNeeded(doc)
	if !rewrite && !bigNumbers(doc) {
		return doc, nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(doc))
	var out bytes.Buffer
	out.Grow(len(doc))
	enc := jsontext.NewEncoder(&out)
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch tok.Kind() {
		case '"':
			if rewrite {
				if s := tok.String(); b.needs(s) {
					tok = jsontext.String(b.rewrite(s))
				}
			}
		case '0':
			if lit := tok.String(); !exactNumber(lit) {
				tok = jsontext.String(lit)
			}
		}
		if err := enc.WriteToken(tok); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}

func (b *builder) rewriteNeeded(doc []byte) bool {
	if len(b.attachments) > 0 && bytes.Contains(doc, []byte(attachmentScheme)) {
		return true
	}
	for _, r := range b.roots {
		if bytes.Contains(doc, []byte(r)) || bytes.Contains(doc, quote(r)[1:len(quote(r))-1]) {
			return true
		}
		// Paths written with escaped slashes or \u escapes.
		if bytes.Contains(doc, []byte(`\/`)) || bytes.Contains(doc, []byte(`\u`)) {
			return true
		}
	}
	return false
}

func (b *builder) needs(s string) bool {
	if len(b.attachments) > 0 && strings.Contains(s, attachmentScheme) {
		return true
	}
	for _, r := range b.roots {
		if strings.Contains(s, r) {
			return true
		}
	}
	return false
}

// rewrite applies the string rewrites to s.
func (b *builder) rewrite(s string) string {
	if strings.HasPrefix(s, attachmentScheme) {
		if a, ok := b.attachments[s[len(attachmentScheme):]]; ok {
			s = a
		}
	}
	for _, r := range b.roots {
		s = relativize(s, r)
	}
	return s
}

// relativize makes absolute paths under dir relative to it: "dir/a/b"
// becomes "a/b" and "dir" alone becomes ".". Only whole path components
// match: "dir2/x" and "/x/dir" are left alone.
func relativize(s, dir string) string {
	if !strings.Contains(s, dir) {
		return s
	}
	sep := byte('/')
	if strings.IndexByte(dir, '/') < 0 {
		sep = '\\'
	}
	var sb strings.Builder
	for {
		i := strings.Index(s, dir)
		if i < 0 {
			break
		}
		j := i + len(dir)
		if i > 0 && pathChar(s[i-1]) {
			sb.WriteString(s[:j])
			s = s[j:]
			continue
		}
		switch {
		case j < len(s) && s[j] == sep:
			sb.WriteString(s[:i])
			rest := s[j+1:]
			if rest == "" || !pathChar(rest[0]) {
				sb.WriteString(".")
				if rest != "" && rest[0] == sep {
					sb.WriteByte(sep)
					rest = rest[1:]
				}
			}
			s = rest
		case j == len(s) || !pathChar(s[j]) || s[j] == '.' && (j+1 == len(s) || !pathChar(s[j+1]) && s[j+1] != sep):
			// The directory alone, or ending a sentence ("in /work/proj.").
			sb.WriteString(s[:i])
			sb.WriteByte('.')
			s = s[j:]
		default:
			sb.WriteString(s[:j])
			s = s[j:]
		}
	}
	sb.WriteString(s)
	return sb.String()
}

func pathChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '-' || c == '~' || c >= 0x80
}

// bigNumbers reports whether doc may hold a number canonical JSON cannot
// carry: a run of 16 or more digits, or an exponent of 3 digits.
func bigNumbers(doc []byte) bool {
	run := 0
	for i, c := range doc {
		if c >= '0' && c <= '9' {
			run++
			if run >= 16 {
				return true
			}
			continue
		}
		run = 0
		if (c == 'e' || c == 'E') && i > 0 && doc[i-1] >= '0' && doc[i-1] <= '9' {
			k := i + 1
			if k < len(doc) && (doc[k] == '+' || doc[k] == '-') {
				k++
			}
			n := 0
			for k < len(doc) && doc[k] >= '0' && doc[k] <= '9' {
				k++
				n++
			}
			if n >= 3 {
				return true
			}
		}
	}
	return false
}

// exactNumber reports whether canonical JSON carries the number literal lit
// unchanged in value, as lib/canon requires.
func exactNumber(lit string) bool {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return false
	}
	if strings.ContainsAny(lit, ".eE") {
		return true
	}
	digits := strings.TrimPrefix(lit, "-")
	if n, err := strconv.ParseUint(digits, 10, 64); err == nil && n <= 1<<53 {
		return true
	}
	return string(jsontext.AppendFloat(nil, f, 64)) == lit
}
