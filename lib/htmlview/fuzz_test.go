package htmlview

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzText checks the one function every untrusted string goes through:
// whatever the input, the markup is well-formed, holds no character that
// would be invisible or act on the display, and its plain runs are the
// input with only those characters taken out.
func FuzzText(f *testing.F) {
	for _, s := range evil {
		f.Add(s)
	}
	f.Add("a\r\nb\rc\u2028d\ufeff\U000e0001")
	f.Fuzz(func(t *testing.T, s string) {
		text := vis(s)
		markup := string(text.HTML())
		var w strings.Builder
		writeVis(&w, s)
		if w.String() != markup {
			t.Fatalf("writeVis(%q) = %q, vis(%[1]q).HTML() = %q", s, w.String(), markup)
		}
		if !utf8.ValidString(markup) {
			t.Fatalf("markup is not UTF-8: %q", markup)
		}
		for i, r := range markup {
			if !shown(r) && !(r == '\r' && strings.HasPrefix(markup[i:], "\r\n")) {
				t.Fatalf("markup of %q holds %U", s, r)
			}
		}
		var plain, want strings.Builder
		for _, sg := range text {
			if !sg.Esc {
				plain.WriteString(sg.S)
			}
		}
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			keep := r != utf8.RuneError || n > 1
			keep = keep && (shown(r) || r == '\r' && strings.HasPrefix(s[i+n:], "\n"))
			if keep {
				want.WriteString(s[i : i+n])
			}
			i += n
		}
		if plain.String() != want.String() {
			t.Fatalf("plain runs of %q are %q, want %q", s, plain.String(), want.String())
		}
		dec := xml.NewDecoder(strings.NewReader("<pre>" + markup + "</pre>"))
		dec.Strict = true
		var got bytes.Buffer
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("markup of %q is not well-formed: %v\n%s", s, err, markup)
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				if tok.Name.Local != "pre" && (tok.Name.Local != "span" || len(tok.Attr) != 1 || tok.Attr[0].Value != "esc") {
					t.Fatalf("markup of %q has element %v", s, tok)
				}
			case xml.CharData:
				got.Write(tok)
			}
		}
		// What a reader sees is the text with escapes in place (XML
		// parsers turn \r\n into \n, as browsers do).
		if w := strings.ReplaceAll(text.String(), "\r\n", "\n"); got.String() != w {
			t.Fatalf("markup of %q reads %q, want %q", s, got.String(), w)
		}
	})
}
