package codex

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/replay/render"
)

func TestParseRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // Prog Files From To Numbered, "nil", or "error: …"
	}{
		{"cat a b", "cat [a b] 1 end false"},
		{"sed -n 120,200p f", "sed [f] 120 200 false"},
		{"sed -n 7p f", "sed [f] 7 7 false"},
		{"head f", "head [f] 1 10 false"},
		{"head -n 40 f", "head [f] 1 40 false"},
		{"head -3 f", "head [f] 1 3 false"},
		{"head -n 0 f", "head [f] 1 0 false"},
		{"nl -ba f", "nl [f] 1 end true"},
		{"nl -ba f | sed -n 1,80p", "nl [f] 1 80 true"},
		{"nl -ba f | head -n 5", "nl [f] 1 5 true"},
		{"ls", "nil"},
		{"rg x | head", "nil"},
		{"cat -n f", "error: cat: option -n is not a plain read"},
		{"cat", "error: cat: cat without a file is not a plain read"},
		{"cat f | head", "error: cat: a pipeline is not a plain read"},
		{"sed -n 1,5p a b", "error: sed: sed of several files is not a plain read"},
		{"sed -i s/a/b/ f", "error: sed: a sed other than sed -n 'A,Bp' FILE is not a plain read"},
		{"sed -n 5,2p f", "error: sed: sed range 5,2p is not a plain read"},
		{"sed -n 0,2p f", "error: sed: sed range 0,2p is not a plain read"},
		{"sed -n $p f", "error: sed: sed script \"$p\" is not a plain read"},
		{"head -n -5 f", "error: head: head -n -5 is not a plain read"},
		{"head -c 5 f", "error: head: option -c is not a plain read"},
		{"head a b", "error: head: a head other than head [-n N] FILE is not a plain read"},
		{"nl f", "error: nl: an nl other than nl -ba FILE is not a plain read"},
		{"nl -ba f | grep x", `error: nl: a pipeline into "grep x" is not a plain read`},
		{"nl -ba f | sed -n 1,2p | head", "error: nl: a pipeline is not a plain read"},
		{"nl -ba f | head f", "error: head: a head other than head [-n N] FILE is not a plain read"},
	}
	for _, tt := range tests {
		var stages [][]string
		for s := range strings.SplitSeq(tt.in, " | ") {
			stages = append(stages, strings.Fields(s))
		}
		r, err := ParseRead(stages)
		var got string
		switch {
		case err != nil:
			var nr *NotARead
			if !errors.As(err, &nr) {
				t.Errorf("%q: error %v is not a *NotARead", tt.in, err)
			}
			got = "error: " + err.Error()
		case r == nil:
			got = "nil"
		default:
			to := "end"
			if r.To != ToEnd {
				to = strconv.Itoa(r.To)
			}
			got = fmt.Sprintf("%s %v %d %s %v", r.Prog, r.Files, r.From, to, r.Numbered)
		}
		if got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestReadShown(t *testing.T) {
	t.Parallel()
	const f = "one\ntwo\nthree"
	tests := []struct {
		read     string
		out      string
		lines    []string
		ended    bool
		err      string
		printsIt bool // out is what the read prints of f
	}{
		{"sed -n 1,2p f", "one\ntwo\n", []string{"one", "two"}, false, "", true},
		{"sed -n 2,9p f", "two\nthree", []string{"two", "three"}, true, "", true},
		{"sed -n 3p f", "three", []string{"three"}, true, "", true},
		{"sed -n 5,9p f", "", nil, true, "", true},
		{"sed -n 1,2p f", "one\ntwo\nthree\n", nil, false, "3 lines printed where at most 2 were asked for", false},
		{"head -n 2 f", "one\ntwo\n", []string{"one", "two"}, false, "", true},
		{"head -n 0 f", "", nil, false, "", true},
		{"cat f", f, []string{"one", "two", "three"}, true, "", true},
		{"nl -ba f", "     1\tone\n     2\ttwo\n     3\tthree\n", []string{"one", "two", "three"}, true, "", true},
		{"nl -ba f | sed -n 2,2p", "     2\ttwo\n", []string{"two"}, false, "", true},
		{"nl -ba f | sed -n 3,4p", "     3\tthree\n", []string{"three"}, true, "", true},
		{"nl -ba f | head -n 1", "     1\tone\n", []string{"one"}, false, "", true},
		{"nl -ba f | sed -n 2,2p", "     1\tone\n", nil, false, "line 1 printed does not start with its number 2 as nl -ba writes it", false},
		{"nl -ba f", "     1\tone", nil, false, "the last line printed has no line ending, which nl -ba always writes", false},
		{"nl -ba f", "1\tone\n", nil, false, "line 1 printed does not start with its number 1 as nl -ba writes it", false},
	}
	for _, tt := range tests {
		var stages [][]string
		for s := range strings.SplitSeq(tt.read, " | ") {
			stages = append(stages, strings.Fields(s))
		}
		r, err := ParseRead(stages)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(r.Print([]byte(f))); tt.printsIt != (got == tt.out) {
			t.Errorf("%s prints %q of %q; the case says %q is printed: %v", tt.read, got, f, tt.out, tt.printsIt)
		}
		lines, ended, err := r.Shown([]byte(tt.out))
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s shown %q: error %v, want %s", tt.read, tt.out, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(lines, tt.lines) || ended != tt.ended {
			t.Errorf("%s shown %q = %q, %v, %v; want %q, %v", tt.read, tt.out, lines, ended, err, tt.lines, tt.ended)
		}
		if !tt.ended || strings.HasSuffix(tt.out, "\n") || r.Numbered {
			if got := string(r.PrintLines(lines)); got != tt.out {
				t.Errorf("%s: PrintLines(%q) = %q, want %q", tt.read, lines, got, tt.out)
			}
		}
	}
}

func TestCoreutils(t *testing.T) {
	t.Parallel()
	const f = "one\ntwo\nthree\nfour"
	tests := []struct{ name, got, want string }{
		{"sed range", string(Sed([]byte(f), 2, 3)), "two\nthree\n"},
		{"sed last line keeps no newline", string(Sed([]byte(f), 3, 9)), "three\nfour"},
		{"sed one line", string(Sed([]byte(f), 1, 1)), "one\n"},
		{"sed past end", string(Sed([]byte(f), 7, 9)), ""},
		{"nl -ba", string(Nl([]byte("a\n\nb"))), "     1\ta\n     2\t\n     3\tb\n"},
		{"nl empty", string(Nl(nil)), ""},
		{"ls lines", string(Lines([]string{"a", "b"})), "a\nb\n"},
		{"ls none", string(Lines(nil)), ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// FuzzRead prints arbitrary files with arbitrary plain reads and
// reads the output back: Shown must accept what Print prints, give the
// file's lines from the first one printed, say the file ended exactly when
// it did, and PrintLines must print those lines again as Print did when
// the last of them ends in a line break.
func FuzzRead(f *testing.F) {
	f.Add("nl -ba f | sed -n '2,3p'", "a\nb\nc\nd")
	f.Add("sed -n '2,9p' f", "a\nb\n")
	f.Add("head -n 2 f", "")
	f.Add("cat f", "x")
	f.Add("nl -ba f | head -1", "\n\n")
	f.Fuzz(func(t *testing.T, script, content string) {
		stages, err := render.SplitPipeline(script)
		if err != nil {
			return
		}
		r, err := ParseRead(stages)
		if err != nil || r == nil {
			return
		}
		if r.From < 1 || r.To < 0 || len(r.Files) == 0 {
			t.Fatalf("%q read as %+v", script, r)
		}
		out := r.Print([]byte(content))
		lines, ended, err := r.Shown(out)
		if err != nil {
			t.Fatalf("%q of %q printed %q, which Shown refuses: %v", script, content, out, err)
		}
		var file []string
		if content != "" {
			file = strings.Split(strings.TrimSuffix(content, "\n"), "\n")
		}
		last := r.From - 1 + len(lines)
		if len(lines) > 0 && (last > len(file) || !slices.Equal(lines, file[r.From-1:last])) {
			t.Fatalf("%q of %q: Shown(%q) = %q, not the file's lines from %d", script, content, out, lines, r.From)
		}
		if ended && len(file) > last || !ended && len(file) < last {
			t.Fatalf("%q of %q: Shown(%q) says ended %v, but the file has %d lines", script, content, out, ended, len(file))
		}
		if len(lines) == 0 && len(file) >= r.From && r.To >= r.From {
			t.Fatalf("%q of %q: nothing shown of a file of %d lines", script, content, len(file))
		}
		if r.Numbered || bytes.HasSuffix(out, []byte("\n")) || len(out) == 0 {
			if again := r.PrintLines(lines); !bytes.Equal(again, out) {
				t.Fatalf("%q of %q: PrintLines(%q) = %q, want %q", script, content, lines, again, out)
			}
		}
	})
}
