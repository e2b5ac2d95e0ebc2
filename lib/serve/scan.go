package serve

import "bytes"

// A request's conversation is most of its bytes, and most of those are
// inside strings (tool results, file contents). The scanner here finds
// the members of an object and the elements of an array by jumping over
// strings to their closing quote, rather than reading them byte by byte
// as a JSON parser does; gjson then reads the few values needed. It
// assumes nothing of its input but stays within it: on text that is not
// JSON it returns what it found so far.

// members returns the raw text of the members named of a JSON object,
// read in one pass.
func members(body []byte, names ...string) map[string][]byte {
	out := make(map[string][]byte, len(names))
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return out
	}
	i++
	for len(out) < len(names) {
		i = skipSpace(body, i)
		if i >= len(body) || body[i] != '"' {
			return out
		}
		kEnd := skipString(body, i+1)
		key := body[i:kEnd]
		i = skipSpace(body, kEnd)
		if i >= len(body) || body[i] != ':' {
			return out
		}
		i = skipSpace(body, i+1)
		vEnd := skipValue(body, i)
		for _, n := range names {
			// Names are plain: the key is its text in quotes.
			if len(key) == len(n)+2 && string(key[1:len(key)-1]) == n {
				if _, seen := out[n]; !seen {
					out[n] = body[i:vEnd]
				}
				break
			}
		}
		i = skipSpace(body, vEnd)
		if i >= len(body) || body[i] != ',' {
			return out
		}
		i++
	}
	return out
}

// elements returns the raw text of each element of a JSON array.
func elements(b []byte) [][]byte {
	var out [][]byte
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] == ']' {
			return out
		}
		end := skipValue(b, i)
		if end == i {
			return out
		}
		out = append(out, b[i:end])
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			return out
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the closing quote of the string
// whose first byte after the opening quote is at i.
func skipString(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		k := i + j
		n := 0
		for m := k - 1; m >= i && b[m] == '\\'; m-- {
			n++
		}
		if n%2 == 0 {
			return k + 1
		}
		i = k + 1
	}
}

// skipValue returns the index after the value that starts at i.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i+1)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}

// isArray reports whether raw is a JSON array.
func isArray(raw []byte) bool {
	i := skipSpace(raw, 0)
	return i < len(raw) && raw[i] == '['
}
