package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain text, ünïcode ✓", "plain text, ünïcode ✓"},
		{`back\slash`, `back\slash`},
		{"osc \x1b]0;pwned\x07", `osc \u001b]0;pwned\u0007`},
		{"csi \x1b[31mred", `csi \u001b[31mred`},
		{"c1 csi \u009b31m", `c1 csi \u009b31m`},
		{"nel \u0085 del \x7f nul \x00", `nel \u0085 del \u007f nul \u0000`},
		{"line\nbreak\ttab\rcr", `line\u000abreak\u0009tab\u000dcr`},
		{"rlo \u202egnp.exe", `rlo \u202egnp.exe`},
		{"isolates \u2066\u2067\u2068\u2069 marks \u200e\u200f\u061c", `isolates \u2066\u2067\u2068\u2069 marks \u200e\u200f\u061c`},
		{"embeddings \u202a\u202b\u202c\u202d", `embeddings \u202a\u202b\u202c\u202d`},
		{"separators \u2028\u2029", `separators \u2028\u2029`},
		{"bad utf-8 \xff\xfe \xc3", `bad utf-8 \xff\xfe \xc3`},
		{"\xed\xa0\x80", `\xed\xa0\x80`}, // a surrogate is not UTF-8
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestTextEscapes checks that Env.Text keeps a rendering's newlines and
// tabs and escapes everything else a terminal would act on.
func TestTextEscapes(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	env := &Env{Name: "ctx-test", Stdout: &out}
	if err := env.Text("a\tb\n\x1b[2Jc\u009b\u202e\r"); err != nil {
		t.Fatal(err)
	}
	if want := "a\tb\n\\u001b[2Jc\\u009b\\u202e\\u000d\n"; out.String() != want {
		t.Errorf("Text wrote %q, want %q", out.String(), want)
	}
}

// TestMessagesEscape checks errors, warnings and notes on stderr.
func TestMessagesEscape(t *testing.T) {
	t.Parallel()
	var errb bytes.Buffer
	env := &Env{Name: "ctx-test", Stderr: &errb}
	env.Warnf("w %s", "\x1b]0;t\x07")
	env.Problem(fmt.Errorf("e %s", "\u009b2J"))
	env.Infof("i %s", "\u2066")
	env.printErr(Errorf(ExitError, "x %s", "\x1b[2J"))
	if s := errb.String(); strings.ContainsAny(s, "\x1b\x07\u009b\u2066") {
		t.Errorf("stderr carries terminal controls: %q", s)
	}
}

func BenchmarkEscapeClean(b *testing.B) {
	s := strings.Repeat("model gpt-4o, 12 steps, ünïcode ✓\n", 100)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		escape(s, true)
	}
}
