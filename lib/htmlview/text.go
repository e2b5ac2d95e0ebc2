package htmlview

import (
	"fmt"
	"html/template"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctx-tools/ctx/lib/visible"
)

// seg is a run of text: plain, or the visible escape of characters that
// would otherwise be invisible or act on the display.
type seg struct {
	S   string
	Esc bool
}

// Text is untrusted text prepared for a page: the template writes each
// plain run escaped, and each escape inside <span class="esc">.
type Text []seg

// String returns the text as shown, escapes included.
func (t Text) String() string {
	var b strings.Builder
	for _, s := range t {
		b.WriteString(s.S)
	}
	return b.String()
}

// HTML is the text as markup for an element's content: each run escaped
// by html/template's own escaper, escapes inside <span class="esc">. It
// is valid only where text is (the template writes it between tags, never
// in an attribute); rendering thousands of rows this way is several times
// faster than ranging over the runs in the template.
func (t Text) HTML() template.HTML {
	var b strings.Builder
	t.write(&b)
	return template.HTML(b.String())
}

// writeVis writes s as vis(s).HTML() would, without building the Text
// when s is printable ASCII.
func writeVis(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			vis(s).write(b)
			return
		}
	}
	b.WriteString(template.HTMLEscapeString(s))
}

func (t Text) write(b *strings.Builder) {
	for _, s := range t {
		if s.Esc {
			b.WriteString(`<span class="esc">`)
			b.WriteString(template.HTMLEscapeString(s.S))
			b.WriteString(`</span>`)
		} else {
			b.WriteString(template.HTMLEscapeString(s.S))
		}
	}
}

// shown reports whether r is shown as itself: tab, newline and what
// lib/visible does not hide. A carriage return is shown only before a
// newline (see vis): HTML turns a lone one into a line break, hiding what
// it does on a terminal.
func shown(r rune) bool {
	return r == '\t' || r == '\n' || !visible.Hidden(r)
}

// vis prepares s for a page.
func vis(s string) Text {
	var t Text
	plain := 0 // start of the current plain run
	flush := func(i int) {
		if i > plain {
			t = append(t, seg{S: s[plain:i]})
		}
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == utf8.RuneError && n == 1:
			esc = fmt.Sprintf(`\x%02x`, s[i])
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
		case !shown(r):
			esc = fmt.Sprintf(`\u%04x`, r)
		}
		if esc != "" {
			flush(i)
			if k := len(t) - 1; k >= 0 && t[k].Esc {
				t[k].S += esc
			} else {
				t = append(t, seg{S: esc, Esc: true})
			}
			plain = i + n
		}
		i += n
	}
	flush(len(s))
	return t
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	i := 0
	for k := 0; k < n; k++ {
		if i >= len(s) {
			return s
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + "…"
}

// firstLine returns the first non-blank line of s, clipped ("" when s is
// blank).
func firstLine(s string) string {
	rest := s
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) != "" {
			return clip(line, previewRunes)
		}
	}
	return ""
}

// previewRunes is how much of a first line a preview shows.
const previewRunes = 120

func lines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// size formats a byte count for reading.
func size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// plural is "1 step", "2 steps".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// delta formats the time from one step to the next: +850 ms, +1.2 s, +3m4s.
func delta(d time.Duration) string {
	sign := "+"
	if d < 0 {
		sign, d = "−", -d
	}
	switch {
	case d < time.Second:
		return fmt.Sprintf("%s%d ms", sign, d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%s%.1f s", sign, d.Seconds())
	}
	return sign + d.Round(time.Second).String()
}

func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}
