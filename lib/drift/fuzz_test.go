package drift

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzAlign checks that Align never panics, that applying its alignment
// reproduces both sequences, and that it is a longest common subsequence
// when the inputs are small enough for the exact search.
func FuzzAlign(f *testing.F) {
	f.Add([]byte("abcabba"), []byte("cbabac"))
	f.Add([]byte(""), []byte("x"))
	f.Add([]byte("aaaaaaaaaa"), []byte("aaaa"))
	f.Add(bytes.Repeat([]byte("ab"), 300), bytes.Repeat([]byte("ba"), 200))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ms := Align(a, b)
		n := checkAlignment(t, a, b, ms)
		// Within these sizes the exact search always finishes.
		if len(a)+len(b) <= 256 && n != lcsLen(a, b) {
			t.Fatalf("matched %d, want LCS length %d", n, lcsLen(a, b))
		}
	})
}

// FuzzUnified checks that Unified never panics, that an untruncated diff
// applies to a and gives b, and that a bounded one respects its bounds.
func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc", uint8(3))
	f.Add("", "x", uint8(0))
	f.Add("x\n\n\ny\n", "\n\nx\ny", uint8(1))
	f.Fuzz(func(t *testing.T, a, b string, ctx uint8) {
		context := int(ctx%6) + 1
		d, trunc := Unified("f", []byte(a), []byte(b), context, 1<<30, 1<<30)
		if trunc {
			t.Fatal("truncated without limits")
		}
		if (d == "") != (a == b) {
			t.Fatalf("diff %q for a == b: %v", d, a == b)
		}
		if got := apply(t, a, d); got != b {
			t.Fatalf("applying\n%s\nto %q gives %q, want %q", d, a, got, b)
		}
		small, trunc := Unified("f", []byte(a), []byte(b), context, 5, 64)
		if !trunc && small != d {
			t.Fatalf("untruncated bounded diff differs:\n%s\nvs\n%s", small, d)
		}
		if trunc {
			i := strings.LastIndex(small, "\\ diff truncated: ")
			if i < 0 {
				t.Fatalf("no truncation note:\n%s", small)
			}
			body, note := small[:i], small[i:]
			lines := strings.Count(body, "\n") - strings.Count(body, noNewline)
			if len(body) > 64 || lines > 5+2 || !strings.HasSuffix(note, " more lines not shown\n") {
				t.Fatalf("bounded diff breaks its bounds:\n%s", small)
			}
		}
	})
}
