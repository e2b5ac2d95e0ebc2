package grep

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// naive is the reference the matcher must agree with: the text split into
// lines, the regular expression run on each.
func naive(t testing.TB, p Pattern, text []byte) []Line {
	expr := p.Expr
	if p.Fixed {
		expr = regexp.QuoteMeta(expr)
	}
	if p.IgnoreCase {
		expr = "(?i)" + expr
	}
	re := regexp.MustCompile("(?m)" + expr)
	if len(text) == 0 {
		return nil
	}
	var out []Line
	start := 0
	for i, line := range bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n")) {
		if locs := re.FindAllIndex(line, -1); locs != nil {
			l := Line{Number: i + 1, Start: start, Text: line}
			for _, loc := range locs {
				l.Spans = append(l.Spans, [2]int{loc[0], loc[1]})
			}
			out = append(out, l)
		}
		start += len(line) + 1
	}
	return out
}

func collect(m *Matcher, text []byte) []Line {
	var out []Line
	m.Lines(text, func(l Line) bool { out = append(out, l); return true })
	return out
}

const sample = `package main

import "fmt"

func main() {
	fmt.Println("Hello, World") // greet
	x := 42; y := 4242
	fmt.Printf("%d %d\n", x, y)
}
KUBERNETES kubernetes Kubernetes
The Kelvin sign: 300 ` + "\u212a" + ` and the long s: ` + "\u017f" + `pring
tab	separated	line
`

func TestLinesAgreesWithNaive(t *testing.T) {
	t.Parallel()
	for _, p := range []Pattern{
		{Expr: "fmt"},
		{Expr: "fmt", Fixed: true},
		{Expr: "fmt.P"},
		{Expr: "fmt.P", Fixed: true},
		{Expr: "42"},
		{Expr: "4242|Hello"},
		{Expr: `x := \d+`},
		{Expr: `\d+`},
		{Expr: `^\s*fmt`},
		{Expr: `\)$`},
		{Expr: `main|import|nothing`},
		{Expr: `(Hel)+lo`},
		{Expr: `o(,\s)W`},
		{Expr: `a*`},
		{Expr: ``},
		{Expr: `\n`},
		{Expr: `world`, IgnoreCase: true},
		{Expr: `WORLD`, Fixed: true, IgnoreCase: true},
		{Expr: `kubernetes`, IgnoreCase: true},
		{Expr: `k`, IgnoreCase: true},
		{Expr: `spring`, IgnoreCase: true},
		{Expr: `300 K`, IgnoreCase: true},
		{Expr: `e`, IgnoreCase: true},
		{Expr: `E`},
		{Expr: `"%d`},
		{Expr: `nothing at all`},
		{Expr: `(?i)hello|GREET`},
		{Expr: `sign: 300`},
		{Expr: "tab\tsep"},
	} {
		t.Run(fmt.Sprintf("%q fixed=%v i=%v", p.Expr, p.Fixed, p.IgnoreCase), func(t *testing.T) {
			t.Parallel()
			m, err := Compile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, text := range []string{sample, strings.TrimSuffix(sample, "\n"), "", "\n", "\n\n"} {
				got, want := collect(m, []byte(text)), naive(t, p, []byte(text))
				if !reflect.DeepEqual(got, want) {
					t.Errorf("on %q:\ngot  %+v\nwant %+v", text, got, want)
				}
				if n := m.Count([]byte(text)); n != len(want) {
					t.Errorf("Count = %d, want %d", n, len(want))
				}
				if m.Match([]byte(text)) != (len(want) > 0) {
					t.Errorf("Match = %v, want %v", !(len(want) > 0), len(want) > 0)
				}
			}
		})
	}
}

func TestPrefilter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p       Pattern
		lits    []string
		litOnly bool
	}{
		{Pattern{Expr: "hello"}, []string{"hello"}, true},
		{Pattern{Expr: "a.b", Fixed: true}, []string{"a.b"}, true},
		{Pattern{Expr: "foo.*barbaz"}, []string{"barbaz"}, false},
		{Pattern{Expr: "(foo)+x"}, []string{"foo"}, false},
		{Pattern{Expr: "ab(c)d"}, []string{"ab"}, false},
		{Pattern{Expr: "error|warning"}, []string{"error", "warning"}, false},
		{Pattern{Expr: "x(error|warn)"}, []string{"error", "warn"}, false},
		{Pattern{Expr: `\d+`}, nil, false},
		{Pattern{Expr: "a|b?"}, nil, false},
		{Pattern{Expr: "HELLO", IgnoreCase: true}, []string{"hello"}, true},
		// k and s fold to non-ASCII runes: the scan keeps the longest
		// run without them, and the regexp confirms the line.
		{Pattern{Expr: "kubernetes", IgnoreCase: true}, []string{"ubernete"}, false},
		{Pattern{Expr: "ks", IgnoreCase: true}, nil, false},
		{Pattern{Expr: "word", Word: true}, []string{"word"}, false},
	} {
		m, err := Compile(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		var lits []string
		for _, l := range m.lits {
			lits = append(lits, string(l.b))
		}
		if !reflect.DeepEqual(lits, tc.lits) || m.litOnly != tc.litOnly {
			t.Errorf("%+v: literals %q litOnly %v, want %q %v", tc.p, lits, m.litOnly, tc.lits, tc.litOnly)
		}
	}
}

func TestWord(t *testing.T) {
	t.Parallel()
	text := "foo foobar barfoo foo_x (foo) -x a-x -x- foo"
	for _, tc := range []struct {
		p     Pattern
		spans [][2]int
	}{
		{Pattern{Expr: "foo", Word: true}, [][2]int{{0, 3}, {25, 28}, {41, 44}}},
		{Pattern{Expr: "foo", Fixed: true, Word: true}, [][2]int{{0, 3}, {25, 28}, {41, 44}}},
		// A fixed string starting with a non-word byte: the byte before
		// it must be a non-word byte too, as in grep -w (not in "a-x").
		{Pattern{Expr: "-x", Fixed: true, Word: true}, [][2]int{{30, 32}, {37, 39}}},
		{Pattern{Expr: "fo+", Word: true}, [][2]int{{0, 3}, {25, 28}, {41, 44}}},
	} {
		m, err := Compile(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		var got [][2]int
		for _, l := range collect(m, []byte(text)) {
			got = append(got, l.Spans...)
		}
		if !reflect.DeepEqual(got, tc.spans) {
			t.Errorf("%+v: spans %v, want %v", tc.p, got, tc.spans)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	for _, p := range []Pattern{{Expr: "a("}, {Expr: "[z-a]"}, {Expr: "a\nb"}, {Expr: `\p{Nope}`}} {
		if _, err := Compile(p); !errors.Is(err, ErrPattern) {
			t.Errorf("Compile(%q) = %v, want ErrPattern", p.Expr, err)
		}
	}
	if _, err := Compile(Pattern{Expr: "a(", Fixed: true}); err != nil {
		t.Errorf("fixed a(: %v", err)
	}
}

func TestIndexFold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text, lit string
		want      int
	}{
		{"xxHeLLo", "hello", 2},
		{"hell hello", "hello", 5},
		{"HELL", "hello", -1},
		{"a1b2", "1b", 1},
		{"", "a", -1},
		{"eeeeeEeeeX", "ex", 8},
	} {
		if got := indexFold([]byte(tc.text), []byte(tc.lit)); got != tc.want {
			t.Errorf("indexFold(%q, %q) = %d, want %d", tc.text, tc.lit, got, tc.want)
		}
	}
}

// FuzzLines checks that the prefiltered search finds exactly the lines
// and spans that running the regular expression on every line finds.
func FuzzLines(f *testing.F) {
	f.Add("fmt", false, false, sample)
	f.Add("kubernetes", false, true, sample)
	f.Add(`x|y\d`, false, false, "ax\nby1\n")
	f.Add("a.b", true, true, "A.B\naxb\n")
	f.Add(`^$`, false, false, "\n\na\n")
	f.Fuzz(func(t *testing.T, expr string, fixed, fold bool, text string) {
		p := Pattern{Expr: expr, Fixed: fixed, IgnoreCase: fold}
		m, err := Compile(p)
		if err != nil {
			return
		}
		got, want := collect(m, []byte(text)), naive(t, p, []byte(text))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v on %q:\ngot  %+v\nwant %+v", p, text, got, want)
		}
	})
}

func TestIndexRare(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ab", 5000)
	for _, tc := range []struct{ text, lit string }{
		{"deadline exceeded", "exceeded"},
		{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxy", "xy"},
		{long + "abc", "abc"}, // the anchor c is rare, then b: falls back to bytes.Index
		{long, "bab"},
		{long, "zz"},
		{"q", "qq"},
		{"", "ab"},
		{strings.Repeat("e", 100) + "ex" + strings.Repeat("e", 100), "eex"},
	} {
		if got, want := indexRare([]byte(tc.text), []byte(tc.lit)), strings.Index(tc.text, tc.lit); got != want {
			t.Errorf("indexRare(%.20q…, %q) = %d, want %d", tc.text, tc.lit, got, want)
		}
	}
}
