package canon

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
)

func TestVectors(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t, "jcs")
	names, err := filepath.Glob(filepath.Join(dir, "input", "*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no vectors in %s: %v", dir, err)
	}
	for _, in := range names {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			input := readFile(t, in)
			want := readFile(t, filepath.Join(dir, "output", name+".json"))
			hexText := readFile(t, filepath.Join(dir, "outhex", name+".txt"))
			wantHex, err := hex.DecodeString(strings.Join(strings.Fields(string(hexText)), ""))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, wantHex) {
				t.Fatalf("output and outhex disagree for %s", name)
			}
			orig := bytes.Clone(input)
			got, err := Canonicalize(input)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Canonicalize(%s)\n got %s\nwant %s", name, got, want)
			}
			if !bytes.Equal(input, orig) {
				t.Errorf("Canonicalize modified its input")
			}
		})
	}
}

func TestNumbers(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t, "jcs")
	f, err := os.Open(filepath.Join(dir, "numbers", "es6testfile100m.first10000.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		bitsHex, want, ok := strings.Cut(sc.Text(), ",")
		if !ok {
			t.Fatalf("line %d: malformed %q", n, sc.Text())
		}
		bits, err := strconv.ParseUint(bitsHex, 16, 64)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		fl := math.Float64frombits(bits)
		for _, lit := range []string{strconv.FormatFloat(fl, 'g', -1, 64), strconv.FormatFloat(fl, 'e', 16, 64)} {
			got, err := Canonicalize([]byte("[" + lit + "]"))
			if err != nil {
				t.Fatalf("line %d: %s: %v", n, lit, err)
			}
			if string(got) != "["+want+"]" {
				t.Fatalf("line %d: %s canonicalised to %s, want [%s]", n, lit, got, want)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 10000 {
		t.Fatalf("read %d lines, want 10000", n)
	}
}

func TestScalars(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`true`: `true`, `false`: `false`, `null`: `null`,
		`"simple"`: `"simple"`, ` 1.0 `: `1`, `-0`: `0`,
		`9007199254740992`: `9007199254740992`, `-9007199254740992`: `-9007199254740992`,
		`1e300`: `1e+300`, `100000000000000000000`: `100000000000000000000`, `{"b":[],"a":{}}`: `{"a":{},"b":[]}`,
		`"<&>\u00e9\/"`:      `"<&>é/"`,
		`9007199254740992.0`: `9007199254740992`, `1.5e300`: `1.5e+300`, `0e-400`: `0`, `-0.0e-999`: `0`,
		`5e-324`: `5e-324`, `1e-320`: `1e-320`, `0.1`: `0.1`, `1e20`: `100000000000000000000`,
	} {
		got, err := Canonicalize([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("Canonicalize(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
}

func TestRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, path, msg string
		line, col     int
	}{
		{`{"a":[1,{"b":9007199254740993}]}`, `a[1].b`, "beyond 2^53", 1, 14},
		{`[-9007199254740993]`, `[0]`, "beyond 2^53", 1, 2},
		{`[1152921504606846976]`, `[0]`, "would change to 1152921504606847000", 1, 2},
		{"{\n \"x\": 1e400}", `x`, "outside the float64 range", 2, 7},
		{`{"n":9007199254740993.0}`, `n`, "would change to 9007199254740992", 1, 6},
		{`[9.007199254740993e15]`, `[0]`, "would change to 9007199254740992", 1, 2},
		{`[123456789012345678901.5]`, `[0]`, "would change to 123456789012345680000", 1, 2},
		{`{"a":{"t":1e-400}}`, `a.t`, "too small for float64", 1, 11},
		{`[-0.00000e-330, -2.5E-999]`, `[1]`, "too small for float64", 1, 17},
		{`{"a":1,"a":2}`, `a`, "duplicate", 1, 8},
		{"[\"\xff\"]", `[0]`, "invalid UTF-8", 1, 3},
		{`{"a":tru}`, `a`, "invalid character", 1, 9},
		{`[1] x`, ``, "invalid character 'x'", 1, 5},
		{`{"a":`, `a`, "unexpected end", 1, 6},
		{``, ``, "unexpected end", 1, 1},
		{`{"steps":[{"p":{"n":1e999}}]}`, `steps[0].p.n`, "float64", 1, 21},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			_, err := Canonicalize([]byte(tc.in))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Canonicalize(%q) error = %v, want *Error", tc.in, err)
			}
			gotPath := ""
			if len(ce.Path) > 0 {
				gotPath = ce.Path.String()
			}
			if gotPath != tc.path || !strings.Contains(ce.Msg, tc.msg) || ce.Line != tc.line || ce.Column != tc.col {
				t.Fatalf("error = %q (path %q, line %d col %d), want path %q, msg ~%q, line %d col %d",
					err, gotPath, ce.Line, ce.Column, tc.path, tc.msg, tc.line, tc.col)
			}
		})
	}
}

func TestPath(t *testing.T) {
	t.Parallel()
	p := Path{}.Key("steps").Index(3).Key("parameters").Key("path")
	if got := p.String(); got != "steps[3].parameters.path" {
		t.Fatalf("got %s", got)
	}
	if got := (Path{"outputs", "result.md"}).String(); got != `outputs["result.md"]` {
		t.Fatalf("got %s", got)
	}
	if got := PathFromPointer("/a~1b/0/x~0"); got.String() != `["a/b"][0]["x~"]` {
		t.Fatalf("got %s", got)
	}
}

func TestMarshalIndent(t *testing.T) {
	t.Parallel()
	got, err := Marshal(map[string]any{"z": 1, "a": "<x>"})
	if err != nil || string(got) != `{"a":"<x>","z":1}` {
		t.Fatalf("Marshal = %s, %v", got, err)
	}
	if ind := string(Indent(got)); ind != "{\n  \"a\": \"<x>\",\n  \"z\": 1\n}" {
		t.Fatalf("Indent = %q", ind)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
