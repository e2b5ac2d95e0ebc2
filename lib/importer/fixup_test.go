package importer

import (
	"bytes"
	"testing"
)

// TestNextDigit compares nextDigit with a byte-by-byte search on every
// byte value at every place of a word, and on runs of text.
func TestNextDigit(t *testing.T) {
	t.Parallel()
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

// TestBigNumbersByWord compares bigNumbers with bigNumbersIn over the whole
// document: long runs of digits and exponents at every place around the
// words bigNumbers reads, in base64-like text full of digits and e's.
func TestBigNumbersByWord(t *testing.T) {
	t.Parallel()
	// Text with digits and e's everywhere, and text whose e's follow no
	// digit (which bigNumbers skips word by word).
	for _, filler := range []string{"a1E9e7Q2+5xe8Z0/k3E", "ab1cE+de2fg9hEij"} {
		for _, pat := range []string{
			"1234567890123456", "123456789012345", "12345678901234567890", "1234567890123456789012345678901234",
			"1e308", "1E+308", "9e-999", "1e30", "e308", "1.5e100", "-0E-0001", "1e+30", "1ee308",
		} {
			for at := range 40 {
				for n := at + len(pat); n < at+len(pat)+10; n++ {
					doc := bytes.Repeat([]byte(filler), 8)[:n]
					copy(doc[at:], pat)
					if got, want := bigNumbers(doc), bigNumbersIn(doc); got != want {
						t.Fatalf("%q: got %v, want %v", doc, got, want)
					}
				}
			}
		}
	}
}

func FuzzBigNumbers(f *testing.F) {
	f.Add([]byte(`{"encrypted_content":"gAAAAABo1e3Q9x+7E5e123","n":12345678901234567}`))
	f.Add([]byte("0123456789abcdef0123456789"))
	f.Add([]byte("x7e999"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if got, want := bigNumbers(doc), bigNumbersIn(doc); got != want {
			t.Fatalf("bigNumbers(%q) = %v, bigNumbersIn says %v", doc, got, want)
		}
	})
}
