package kernelpack

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
)

// The vectors the rules give, checked against the kernel's reference.
func TestCanonicalHashVectors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, canonical, hash string
	}{
		{`{}`, `{}`, "ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356"},
		{`{"b":1,"a":[true,null,"x"]}`, `{"a":[true,null,"x"],"b":1}`, "9d226b929aa02948b87f2e7dca77c6d37dc39a291fc20e34b1a89ec9acb98d69"},
	}
	for _, tt := range tests {
		c, err := Canonicalize([]byte(tt.in))
		if err != nil {
			t.Fatalf("Canonicalize(%s): %v", tt.in, err)
		}
		if string(c) != tt.canonical {
			t.Errorf("Canonicalize(%s) = %s, want %s", tt.in, c, tt.canonical)
		}
		h, err := CanonicalHash([]byte(tt.in))
		if err != nil {
			t.Fatalf("CanonicalHash(%s): %v", tt.in, err)
		}
		if h != tt.hash {
			t.Errorf("CanonicalHash(%s) = %s, want %s", tt.in, h, tt.hash)
		}
	}
}

// The rules' upstream fixture valid_pack_bundle; the shared corpus's
// valid-bundle hashes to c5b2… with the LF and 0a20… without it.
func TestCanonicalHashOfBundleFixture(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t, "kernel-packs")
	data, err := os.ReadFile(filepath.Join(dir, "valid-bundle", "bundle.json"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := CanonicalHash(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := "c5b24c4fea5c371f879d946b2d2bf8381ccdaf4abd2c1810ee080e6565609a5e"; h != want {
		t.Errorf("CanonicalHash(valid-bundle/bundle.json) = %s, want %s", h, want)
	}
	c, err := Canonicalize(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := sha256Hex(c); !strings.HasPrefix(got, "0a2099464ce6755a") {
		t.Errorf("SHA-256 of the canonical text without LF = %s, want 0a2099464ce6755a…", got)
	}
}

func TestCanonicalize(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		// Numbers go through float64 and come out in ECMAScript form.
		{`[1.0, 12.50, 1e21, 1e-7, -0, 8200e-2, 7.4E+1, 1e20, 0.000001, 123e-20]`, `[1,12.5,1e+21,1e-7,0,82,74,100000000000000000000,0.000001,1.23e-18]`},
		{`123456789012345678901234567890`, `1.2345678901234568e+29`},
		{`9007199254740993`, `9007199254740992`},
		{`1e-400`, `0`},
		// Duplicate keys collapse to the last value, as JSON.parse does.
		{`{"dup":1,"a":0,"dup":2}`, `{"a":0,"dup":2}`},
		// Keys sort by UTF-16 code units: U+1F600 before U+FB01.
		{`{"ﬁ":3,"😀":2,"a":1}`, `{"a":1,"😀":2,"ﬁ":3}`},
		// Only '"', '\\' and control characters are escaped.
		{`"<>&\u2028\u2029\u007f/\/é\u00e9"`, "\"<>&\u2028\u2029\u007f//éé\""},
		{`"\u0000\u0001\b\t\n\f\r\u001f\"\\"`, `"\u0000\u0001\b\t\n\f\r\u001f\"\\"`},
		// Surrogate pairs join; lone surrogates stay, as lowercase escapes.
		{`"\ud83d\ude00"`, `"😀"`},
		{`["\uD800","\udc00x","\ud83d"]`, `["\ud800","\udc00x","\ud83d"]`},
		{"[ 1 ,\t{ } ,\r\n[ ] ]", `[1,{},[]]`},
		{`{"__proto__":1,"toString":2}`, `{"__proto__":1,"toString":2}`},
	}
	for _, tt := range tests {
		got, err := Canonicalize([]byte(tt.in))
		if err != nil {
			t.Errorf("Canonicalize(%s): %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("Canonicalize(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

func TestCanonicalizeRejectsInfinity(t *testing.T) {
	t.Parallel()
	for in, path := range map[string]string{
		`1e400`:               "$",
		`{"a":[0,-1e400]}`:    "$.a[1]",
		`[{"x":{"y":1e999}}]`: "$[0].x.y",
	} {
		_, err := Canonicalize([]byte(in))
		var ce *CanonicalizeError
		if !errors.As(err, &ce) {
			t.Errorf("Canonicalize(%s) error = %v, want a *CanonicalizeError", in, err)
			continue
		}
		if ce.Path != path {
			t.Errorf("Canonicalize(%s) error path = %s, want %s", in, ce.Path, path)
		}
	}
}

// Node reads files with the WHATWG UTF-8 decoder: each maximal ill-formed
// subsequence becomes one U+FFFD, and a BOM is kept (and then rejected by
// JSON.parse).
func TestDecodeText(t *testing.T) {
	t.Parallel()
	in := []byte{'a', 0xE2, 0x82, 'A', 0xF0, 0x9F, 0x98, 0xED, 0xA0, 0x80, 0xC0, 0xAF, 0xFF, 'b'}
	want := "a\uFFFDA" + strings.Repeat("\uFFFD", 7) + "b"
	if got := decodeText(in); got != want {
		t.Errorf("decodeText = %+q, want %+q", got, want)
	}
	if _, err := parseBytes([]byte("\xEF\xBB\xBF{}")); err == nil {
		t.Error("a leading byte order mark parsed; JSON.parse rejects it")
	}
	c, err := Canonicalize([]byte("\"caf\xE9\""))
	if err != nil || string(c) != "\"caf\uFFFD\"" {
		t.Errorf("Canonicalize of Latin-1 text = %q, %v; want the replacement character", c, err)
	}
}

func TestCompareUTF16(t *testing.T) {
	t.Parallel()
	sorted := []string{"", "A", "B", "a", "ab", "b", "é", "\ud7ff", "😀", "😂", "\ue000", "ﬁ", "דּ", "\uffff"}
	shuffled := slices.Clone(sorted)
	slices.Reverse(shuffled)
	slices.SortFunc(shuffled, compareUTF16)
	if !slices.Equal(shuffled, sorted) {
		t.Errorf("UTF-16 order\n got %q\nwant %q", shuffled, sorted)
	}
	// Byte order disagrees for supplementary characters.
	if strings.Compare("😀", "ﬁ") < 0 || compareUTF16("😀", "ﬁ") > 0 {
		t.Error(`"😀" must sort before "ﬁ" by UTF-16 but after it by bytes`)
	}
	// A lone high surrogate sorts with the first half of a pair.
	lone := "\xed\xa0\xbd" // U+D83D
	if compareUTF16(lone, "😀") >= 0 || compareUTF16("😀", lone+"\xed\xb8\x81") >= 0 {
		t.Error("lone surrogates must compare by code unit")
	}
	vs := []Violation{
		{"PK2", "a", "m"}, {"PK12", "b", "m"}, {"PK8", "runner.json", "RN1: x"},
		{"PK8", "runner.json", "RN10: x"}, {"IO", "p", "m"}, {"PK1", "run.json", "m"}, {"PK1", "bundle.json", "m"},
	}
	sortViolations(vs)
	want := []Violation{
		{"IO", "p", "m"}, {"PK1", "bundle.json", "m"}, {"PK1", "run.json", "m"}, {"PK12", "b", "m"},
		{"PK2", "a", "m"}, {"PK8", "runner.json", "RN10: x"}, {"PK8", "runner.json", "RN1: x"},
	}
	if !slices.Equal(vs, want) {
		t.Errorf("sortViolations\n got %v\nwant %v", vs, want)
	}
}

func TestNumberToString(t *testing.T) {
	t.Parallel()
	tests := map[float64]string{
		0: "0", math.Copysign(0, -1): "0", 1: "1", -1.5: "-1.5", 0.30000000000000004: "0.30000000000000004",
		1e21: "1e+21", 1e20: "100000000000000000000", 123456789012345680000: "123456789012345680000",
		1e-6: "0.000001", 1e-7: "1e-7", 1.5e-7: "1.5e-7", 5e-324: "5e-324",
		math.MaxFloat64: "1.7976931348623157e+308", math.Inf(1): "Infinity", math.Inf(-1): "-Infinity",
		math.NaN(): "NaN", 300: "300", 2147483648: "2147483648",
	}
	for f, want := range tests {
		if got := numberToString(f); got != want {
			t.Errorf("numberToString(%v) = %s, want %s", f, got, want)
		}
	}
}

// ECMAScript number serialisation over the RFC 8785 number file.
func TestNumberToStringES6File(t *testing.T) {
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
		bitsHex, want, _ := strings.Cut(sc.Text(), ",")
		bits, err := strconv.ParseUint(bitsHex, 16, 64)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if got := numberToString(math.Float64frombits(bits)); got != want {
			t.Fatalf("line %d: %s formats as %s, want %s", n, bitsHex, got, want)
		}
	}
	if n != 10000 {
		t.Fatalf("read %d lines, want 10000", n)
	}
}

// For JSON that RFC 8785 accepts, the kernel's canonical form is JCS.
func TestJCSVectors(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t, "jcs")
	names, _ := filepath.Glob(filepath.Join(dir, "input", "*.json"))
	if len(names) == 0 {
		t.Fatalf("no vectors in %s", dir)
	}
	for _, in := range names {
		name := filepath.Base(in)
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			t.Parallel()
			input, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, "output", name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Canonicalize(input)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Canonicalize(%s)\n got %s\nwant %s", name, got, want)
			}
		})
	}
}

func TestSyntaxErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{``, "line 1, column 1: unexpected end of input, expected a JSON value"},
		{"{\n  \"a\": 1,,\n}", "line 2, column 10: unexpected character ',', expected a property name in double quotes"},
		{`{"a" 1}`, "line 1, column 6: unexpected character '1', expected ':' after a property name"},
		{`[1,]`, "line 1, column 4: unexpected character ']', expected a JSON value"},
		{`[1 2]`, "line 1, column 4: unexpected character '2', expected ',' or ']' in an array"},
		{`{"a":1`, "line 1, column 7: unexpected end of input, expected ',' or '}' in an object"},
		{`01`, "line 1, column 2: unexpected data after the JSON value"},
		{`-`, "line 1, column 2: unexpected end of input, expected a digit"},
		{`1.`, "line 1, column 3: unexpected end of input, expected a digit after the decimal point"},
		{`1e+`, "line 1, column 4: unexpected end of input, expected a digit in the exponent"},
		{`tru`, "line 1, column 4: unexpected end of input, expected \"true\""},
		{"\"a\nb\"", "line 1, column 3: control character U+000A in a string (it must be escaped)"},
		{`"\x"`, `line 1, column 3: invalid escape '\x' in a string`},
		{`"\u12G4"`, `line 1, column 3: invalid \u escape in a string`},
		{`"abc`, "line 1, column 5: unexpected end of input in a string"},
		{"é  x", "line 1, column 1: unexpected character 'é', expected a JSON value"},
		{"\ufeff{}", "line 1, column 1: unexpected character U+FEFF, expected a JSON value"},
		{"{} {}", "line 1, column 4: unexpected data after the JSON value"},
		{"'a'", "line 1, column 1: unexpected character ''', expected a JSON value"},
	}
	for _, tt := range tests {
		_, err := parseBytes([]byte(tt.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("parse(%q) error = %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("parse(%q)\n got %s\nwant %s", tt.in, err, tt.want)
		}
	}
	se := &SyntaxError{File: "run.json", Line: 3, Column: 7, Msg: "unexpected end of input"}
	if got, want := se.Error(), "run.json: line 3, column 7: unexpected end of input"; got != want {
		t.Errorf("SyntaxError with a file = %q, want %q", got, want)
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// JSON.parse takes any depth; the kernel's recursive canonicalize and
// Array.prototype.join overflow V8's stack, under Node 20 beyond 1,932
// nested arrays, 4,330 nested objects, and 3,211 arrays turned to a string.
func TestNestingLimits(t *testing.T) {
	t.Parallel()
	arrays := func(n int) value {
		v, err := parseText(strings.Repeat("[", n) + strings.Repeat("]", n))
		if err != nil {
			t.Fatalf("parsing %d nested arrays: %v", n, err)
		}
		return v
	}
	objects := func(n int) value {
		v, err := parseText(strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n))
		if err != nil {
			t.Fatalf("parsing %d nested objects: %v", n, err)
		}
		return v
	}
	if _, err := canonicalize(arrays(1932)); err != nil {
		t.Errorf("1932 nested arrays: %v", err)
	}
	if _, err := canonicalize(arrays(1933)); err == nil {
		t.Error("1933 nested arrays canonicalised; the kernel throws")
	}
	if _, err := canonicalize(objects(4330)); err != nil {
		t.Errorf("4330 nested objects: %v", err)
	}
	if _, err := canonicalize(objects(4331)); err == nil {
		t.Error("4331 nested objects canonicalised; the kernel throws")
	}
	if _, err := toString(arrays(3211)); err != nil {
		t.Errorf("`${3211 nested arrays}`: %v", err)
	}
	if _, err := toString(arrays(3212)); err == nil || err.Error() != "Maximum call stack size exceeded" {
		t.Errorf("`${3212 nested arrays}` error = %v, want the stack overflow", err)
	}
	arrays(200000) // parsing never overflows
}

// Canonicalize returns the kernel's canonical form of the JSON text data:
// canonicalize(JSON.parse(data)), without the trailing newline. For JSON that
// RFC 8785 accepts it equals the JCS form; unlike JCS, duplicate keys collapse
// to the last one and lone surrogates are written as \udxxx escapes. Invalid
// UTF-8 in data is replaced by U+FFFD first, as Node reads files.
func Canonicalize(data []byte) ([]byte, error) {
	v, err := parseBytes(data)
	if err != nil {
		return nil, err
	}
	s, err := canonicalize(v)
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// CanonicalHash returns the kernel's canonicalHash(JSON.parse(data)): the
// lowercase hex SHA-256 of the canonical form followed by "\n". It has no
// "sha256:" prefix; the pack verifier adds one.
func CanonicalHash(data []byte) (string, error) {
	v, err := parseBytes(data)
	if err != nil {
		return "", err
	}
	return canonicalHash(v)
}
