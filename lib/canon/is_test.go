package canon

import (
	"bytes"
	"testing"
)

func TestIsCanonicalValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{"a":1,"b":[true,false,null,"x"]}`, true},
		{`{"b":1,"a":2}`, false},
		{`{"a":1,"a":1}`, false},
		{`{"a": 1}`, false},
		{` 1`, false},
		{`1 `, false},
		{`0`, true}, {`-0`, false}, {`01`, false}, {`1.0`, false}, {`1.5`, true}, {`1e3`, false}, {`1e+21`, true},
		{`123456789012345`, true}, {`9007199254740993`, false}, {`9007199254740992`, true}, {`1e400`, false},
		{`"a\nb\u001f"`, true}, {`"\u000a"`, false}, {`"\u001F"`, false}, {`"\/"`, false}, {`"é"`, true}, {`"\u00e9"`, false},
		{"\"\xff\"", false}, {"\"\x01\"", false}, {`"`, false}, {`"\ud800"`, false},
		// Member names in UTF-16 order: U+FF61 (one unit, 0xFF61) after
		// U+1F600 (0xD83D 0xDE00), though its code point is smaller.
		{`{"😀":1,"｡":2}`, true}, {`{"｡":1,"😀":2}`, false},
		{`{"\n":1,"a":2}`, true},
		{`[`, false}, {`{}`, true}, {`[]`, true}, {`{"a":}`, false}, {`tru`, false}, {``, false},
	} {
		if got := IsCanonical([]byte(tc.in)); got != tc.want {
			t.Errorf("IsCanonical(%s) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzIsCanonicalValue checks IsCanonical against Canonicalize: true exactly
// for the bytes Canonicalize gives.
func FuzzIsCanonicalValue(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `1e300`, `"\u00e9\ud83d\ude02"`, `[9007199254740993]`, `{"a":1,"a":2}`, `-0.0`, `{"😀":1,"｡":2}`, `"\u001f\n"`, `[1.5e-7,100,0.1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Canonicalize(in)
		is := IsCanonical(in)
		if is && (err != nil || !bytes.Equal(out, in)) {
			t.Fatalf("IsCanonical(%q) but Canonicalize gives %q (%v)", in, out, err)
		}
		if err == nil && !IsCanonical(out) {
			t.Fatalf("IsCanonical(%q) is false for what Canonicalize gives", out)
		}
	})
}

// FuzzReorder: whatever Canonicalize's fast path takes, it canonicalizes
// as the full path does.
func FuzzReorder(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":{"d":[{"z":1,"y":"\n"}],"c":null}}`, ` { "b" : [ 1 , 2 ] , "a" : "x" } `, `{"a":1,"a":2}`, `{"😀":1,"｡":2,"\n":3}`, `{"b":1.0,"a":1}`, `[{"b":1,"a":2},{"d":1,"c":2}]`, `{"b":"\u00e9","a":1}`, `{"a":1}x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fast, ok := reorder(in)
		if !ok {
			return
		}
		want, err := canonicalize(in)
		if err != nil || !bytes.Equal(fast, want) {
			t.Fatalf("reorder(%q) = %q; Canonicalize's full path gives %q (%v)", in, fast, want, err)
		}
	})
}
