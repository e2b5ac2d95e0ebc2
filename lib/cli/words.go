package cli

import (
	"fmt"
	"regexp"
	"strconv"
)

// Plural writes a count with its noun: "1 object", "2 objects". The
// plural adds "s", which every noun ctx counts takes.
func Plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

// Size writes a size as every rendering does: bytes below 1 KiB ("1
// byte", "59 bytes"), then KiB, MiB and GiB with one decimal.
func Size(n int64) string {
	switch {
	case n < 1<<10:
		return Plural(n, "byte")
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// quoted matches a Go-quoted string (%q) in a message.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// Bounds of a quoted value in a warning: longer ones keep their start and
// end around "…".
const (
	maxQuoted  = 120
	quotedHead = 70
	quotedTail = 40
)

// elideQuoted shortens every quoted value of msg longer than maxQuoted
// runes to its start and end: a warning about a 1,000-character command
// names it without quoting all of it. A value is cut as text and quoted
// again, so no escape is cut in two.
func elideQuoted(msg string) string {
	if len(msg) <= maxQuoted {
		return msg
	}
	return quoted.ReplaceAllStringFunc(msg, func(q string) string {
		v, err := strconv.Unquote(q)
		if err != nil {
			return q
		}
		r := []rune(v)
		if len(r) <= maxQuoted {
			return q
		}
		return strconv.Quote(string(r[:quotedHead]) + "…" + string(r[len(r)-quotedTail:]))
	})
}
