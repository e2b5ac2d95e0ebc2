package edit

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// divergedPatch is the costliest chunk for a search that compares the
// pattern at each position: a file of lines "x", and a chunk of
// patLines "x" lines ending in one the file does not hold.
func divergedPatch(fileLines, patLines int) (string, []PatchChunk) {
	file := strings.Repeat("x\n", fileLines)
	old := make([]string, patLines)
	for i := range old {
		old[i] = "x"
	}
	old[patLines-1] = "y"
	return file, []PatchChunk{{Old: old, New: []string{"z"}}}
}

// BenchmarkApplyChunksDiverged is a 10,000-line chunk that does not
// match a 20,000-line file.
func BenchmarkApplyChunksDiverged(b *testing.B) {
	file, chunks := divergedPatch(20000, 10000)
	for range b.N {
		_, err := ApplyChunks(file, chunks)
		var c *Conflict
		if !errors.As(err, &c) {
			b.Fatalf("err = %v, want a Conflict", err)
		}
	}
}

// TestApplyChunksLinear: a 30,000-line chunk that does not match a
// 60,000-line file, and 20,000 chunks that each need the white-space
// passes, are answered at once (a search comparing the pattern at each
// position took minutes), as a Conflict for the first.
func TestApplyChunksLinear(t *testing.T) {
	t.Parallel()
	file, chunks := divergedPatch(60000, 30000)
	done := make(chan error, 1)
	go func() {
		_, err := ApplyChunks(file, chunks)
		done <- err
	}()
	var many []PatchChunk
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "line %d\n", i)
		many = append(many, PatchChunk{Old: []string{fmt.Sprintf("line %d  ", i)}, New: []string{fmt.Sprintf("LINE %d", i)}})
	}
	go func() {
		_, err := ApplyChunks(b.String(), many)
		done <- err
	}()
	for range 2 {
		select {
		case err := <-done:
			var c *Conflict
			if err != nil && !errors.As(err, &c) {
				t.Errorf("err = %v, want nil or a Conflict", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("ApplyChunks still searching after 20 s")
		}
	}
	if _, err := ApplyChunks(file, chunks); err == nil {
		t.Error("a chunk not in the file applied")
	}
}

// FuzzSeek compares the search with the plain one (the pattern compared
// at each position, for each kind of white-space folding).
func FuzzSeek(f *testing.F) {
	f.Add("a\nb \na\nb\n", "a\nb", 0, false)
	f.Add("x\n x\nx\ny", " x\nx", 1, true)
	f.Add("ab\naab\naab\naaab", "aab\naaab", 0, false)
	f.Fuzz(func(t *testing.T, file, pattern string, start int, eof bool) {
		lines, pat := strings.Split(file, "\n"), strings.Split(pattern, "\n")
		if pattern == "" {
			pat = nil
		}
		if start < 0 || start > len(lines) {
			return
		}
		got, err := (&seeker{lines: lines, budget: 1 << 30}).seek(pat, start, eof)
		if err != nil {
			t.Fatal(err)
		}
		if want := plainSeek(lines, pat, start, eof); got != want {
			t.Fatalf("seek(%q, %q, %d, %v) = %d, want %d", lines, pat, start, eof, got, want)
		}
	})
}

func plainSeek(lines, pattern []string, start int, eof bool) int {
	if len(pattern) > len(lines) {
		return -1
	}
	from := start
	if eof {
		from = len(lines) - len(pattern)
	}
	for _, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t\r\n\v\f") },
		strings.TrimSpace,
	} {
		for i := from; i+len(pattern) <= len(lines); i++ {
			ok := true
			for j, p := range pattern {
				if norm(lines[i+j]) != norm(p) {
					ok = false
					break
				}
			}
			if ok {
				return i
			}
		}
	}
	return -1
}

// FuzzReplace compares replace with splicing each replacement in, from
// the last to the first, as apply_patch does.
func FuzzReplace(f *testing.F) {
	f.Add(uint8(5), []byte{3, 2, 1, 0, 0, 1, 5, 0, 2})
	f.Fuzz(func(t *testing.T, n uint8, spec []byte) {
		lines := make([]string, n)
		for i := range lines {
			lines[i] = fmt.Sprint(i)
		}
		var rs []repl
		for i := 0; i+2 < len(spec) && len(rs) < 8; i += 3 {
			at := int(spec[i]) % (len(lines) + 1)
			rs = append(rs, repl{at, int(spec[i+1]) % 4, strings.Split(strings.Repeat("n", int(spec[i+2])%3), "")})
		}
		want := slices.Clone(lines)
		sorted := slices.Clone(rs)
		slices.SortStableFunc(sorted, func(a, b repl) int { return a.at - b.at })
		for i := len(sorted) - 1; i >= 0; i-- {
			r := sorted[i]
			tail := append(slices.Clone(r.new), want[min(r.at+r.n, len(want)):]...)
			want = append(want[:r.at], tail...)
		}
		if got := replace(slices.Clone(lines), rs); !slices.Equal(got, want) {
			t.Fatalf("replace(%q, %v) = %q, want %q", lines, rs, got, want)
		}
	})
}
