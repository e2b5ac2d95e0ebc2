package importer

import (
	"bytes"
	"testing"
)

// TestNextDigit compares nextDigit with a byte-by-byte search on every
// byte value at every place of a word, and on runs of text.
func TestNextDigit(t *testing.T) {
	slow := func(doc []byte, i int) int {
		if j := bytes.IndexAny(doc[i:], "0123456789"); j >= 0 {
			return i + j
		}
		return -1
	}
	for c := range 256 {
		for at := range 19 {
			doc := bytes.Repeat([]byte{'x'}, 19)
			doc[at] = byte(c)
			for i := range len(doc) {
				if got, want := nextDigit(doc, i), slow(doc, i); got != want {
					t.Fatalf("byte %#x at %d, from %d: got %d, want %d", c, at, i, got, want)
				}
			}
		}
	}
	doc := []byte("func handler(w http.ResponseWriter) { // \xff\x80/:9 see routes.go line 42\n")
	for i := range len(doc) {
		if got, want := nextDigit(doc, i), slow(doc, i); got != want {
			t.Fatalf("from %d: got %d, want %d", i, got, want)
		}
	}
}

func FuzzNextDigit(f *testing.F) {
	f.Add([]byte("abc/:0123456789e+308"), 0)
	f.Fuzz(func(t *testing.T, doc []byte, i int) {
		if i < 0 || i > len(doc) {
			return
		}
		want := -1
		if j := bytes.IndexAny(doc[i:], "0123456789"); j >= 0 {
			want = i + j
		}
		if got := nextDigit(doc, i); got != want {
			t.Fatalf("nextDigit(%q, %d) = %d, want %d", doc, i, got, want)
		}
	})
}
