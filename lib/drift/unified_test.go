package drift

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\n", "x\n", ""},
		{"change", "a\nb\nc\n", "a\nB\nc\n", `--- a/f
+++ b/f
@@ -1,3 +1,3 @@
 a
-b
+B
 c
`},
		{"no final newline", "a\nb\nc\n", "a\nB\nc", `--- a/f
+++ b/f
@@ -1,3 +1,3 @@
 a
-b
-c
+B
+c
\ No newline at end of file
`},
		{"from empty", "", "one\ntwo\n", `--- a/f
+++ b/f
@@ -0,0 +1,2 @@
+one
+two
`},
		{"to empty", "one\n", "", `--- a/f
+++ b/f
@@ -1 +0,0 @@
-one
`},
		{"append", "1\n2\n3\n4\n5\n", "1\n2\n3\n4\n5\n6\n", `--- a/f
+++ b/f
@@ -3,3 +3,4 @@
 3
 4
 5
+6
`},
		// Changes 6 unchanged lines apart share a hunk; 7 apart do not.
		{"joined", "x\n1\n2\n3\n4\n5\n6\nx\n", "y\n1\n2\n3\n4\n5\n6\ny\n", `--- a/f
+++ b/f
@@ -1,8 +1,8 @@
-x
+y
 1
 2
 3
 4
 5
 6
-x
+y
`},
		{"split", "x\n1\n2\n3\n4\n5\n6\n7\nx\n", "y\n1\n2\n3\n4\n5\n6\n7\ny\n", `--- a/f
+++ b/f
@@ -1,4 +1,4 @@
-x
+y
 1
 2
 3
@@ -6,4 +6,4 @@
 5
 6
 7
-x
+y
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, trunc := Unified("f", []byte(tt.a), []byte(tt.b), 0, 0, 0)
			if got != tt.want {
				t.Errorf("Unified =\n%s\nwant\n%s", got, tt.want)
			}
			if trunc {
				t.Error("truncated")
			}
		})
	}
}

func TestUnifiedTruncated(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&a, "line %d\n", i)
		fmt.Fprintf(&b, "line %d changed\n", i)
	}
	// 1000 removed + 1000 added + 1 hunk header
	got, trunc := Unified("f", []byte(a.String()), []byte(b.String()), 0, 10, 0)
	want := "--- a/f\n+++ b/f\n@@ -1,1000 +1,1000 @@\n-line 0\n-line 1\n-line 2\n-line 3\n-line 4\n" +
		"-line 5\n-line 6\n-line 7\n-line 8\n\\ diff truncated: 1991 more lines not shown\n"
	if got != want || !trunc {
		t.Errorf("Unified = %q, %v\nwant %q, true", got, trunc, want)
	}
	got, trunc = Unified("f", []byte(a.String()), []byte(b.String()), 0, 0, 100)
	if !trunc || len(got) > 100+len("\\ diff truncated: 9999 more lines not shown\n") {
		t.Errorf("byte bound: %d bytes, truncated %v", len(got), trunc)
	}
	if !strings.HasSuffix(got, " more lines not shown\n") {
		t.Errorf("no truncation note: %q", got)
	}
}

// TestUnifiedNoBareHeader checks that a hunk header is never the last
// line shown: with room for one more line only, the next hunk is left out
// whole.
func TestUnifiedNoBareHeader(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&a, "%d\n", i)
		if i == 2 || i == 15 {
			fmt.Fprintf(&b, "%d changed\n", i)
		} else {
			fmt.Fprintf(&b, "%d\n", i)
		}
	}
	got, trunc := Unified("f", []byte(a.String()), []byte(b.String()), 3, 8, 0)
	want := "--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n 1\n-2\n+2 changed\n 3\n 4\n 5\n" +
		"\\ diff truncated: 9 more lines not shown\n"
	if got != want || !trunc {
		t.Errorf("Unified = %q, %v\nwant %q", got, trunc, want)
	}
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)

// apply applies an untruncated unified diff to a, checking every context
// and removed line, as patch(1) would.
func apply(t testing.TB, a, diff string) string {
	t.Helper()
	if diff == "" {
		return a
	}
	la := splitLines(nil, []byte(a))
	lines := strings.SplitAfter(diff, "\n")
	if !strings.HasPrefix(lines[0], "--- a/") || !strings.HasPrefix(lines[1], "+++ b/") {
		t.Fatalf("bad headers in\n%s", diff)
	}
	var out strings.Builder
	ai := 0
	var last *string // the output line a "\ No newline" marker applies to
	lastIsA := false
	for _, l := range lines[2:] {
		if l == "" {
			continue
		}
		body := l[1:]
		switch l[0] {
		case '@':
			m := hunkHeader.FindStringSubmatch(strings.TrimSuffix(l, "\n"))
			if m == nil {
				t.Fatalf("bad hunk header %q", l)
			}
			start, _ := strconv.Atoi(m[1])
			n := 1
			if m[2] != "" {
				n, _ = strconv.Atoi(m[2])
			}
			if n > 0 {
				start--
			}
			if start < ai {
				t.Fatalf("hunk %q goes back to line %d from %d", l, start, ai)
			}
			for ; ai < start; ai++ {
				out.WriteString(la[ai])
			}
			last = nil
		case ' ', '-':
			if ai >= len(la) || strings.TrimSuffix(la[ai], "\n") != strings.TrimSuffix(body, "\n") {
				t.Fatalf("line %q does not match a[%d]", l, ai)
			}
			s := body
			last, lastIsA = &s, l[0] == '-'
			if l[0] == ' ' {
				out.WriteString(la[ai])
				last = nil
			}
			ai++
		case '+':
			out.WriteString(body)
			s := body
			last, lastIsA = &s, false
		case '\\':
			if l != noNewline {
				t.Fatalf("unexpected marker %q", l)
			}
			if last != nil && !lastIsA {
				// the added line lacks its newline
				str := out.String()
				out.Reset()
				out.WriteString(strings.TrimSuffix(str, "\n"))
			}
		default:
			t.Fatalf("bad diff line %q", l)
		}
	}
	for ; ai < len(la); ai++ {
		out.WriteString(la[ai])
	}
	return out.String()
}

func randomText(r *rand.Rand, base []string, edits int) string {
	lines := append([]string(nil), base...)
	for e := 0; e < edits; e++ {
		i := r.IntN(len(lines) + 1)
		switch {
		case r.IntN(3) == 0 && i < len(lines):
			lines = append(lines[:i], lines[i+1:]...)
		case r.IntN(2) == 0 && i < len(lines):
			lines[i] = fmt.Sprintf("changed %d", r.IntN(5))
		default:
			lines = append(lines[:i], append([]string{fmt.Sprintf("new %d", r.IntN(5))}, lines[i:]...)...)
		}
	}
	s := strings.Join(lines, "\n")
	if r.IntN(2) == 0 && s != "" {
		s += "\n"
	}
	return s
}

func TestUnifiedApplies(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 3000; iter++ {
		base := make([]string, r.IntN(40))
		for i := range base {
			base[i] = fmt.Sprintf("l%d", r.IntN(12))
		}
		a := randomText(r, base, r.IntN(3))
		b := randomText(r, base, r.IntN(10))
		d, trunc := Unified("f", []byte(a), []byte(b), 1+r.IntN(4), 1<<30, 1<<30)
		if trunc {
			t.Fatal("truncated without limits")
		}
		if got := apply(t, a, d); got != b {
			t.Fatalf("applying\n%s\nto %q gives %q, want %q", d, a, got, b)
		}
	}
}

func TestIsText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"", true}, {"héllo\n", true}, {"a\x00b", false}, {"\xff\xfe", false},
	} {
		if got := IsText([]byte(tt.in)); got != tt.want {
			t.Errorf("IsText(%q) = %v", tt.in, got)
		}
	}
}
