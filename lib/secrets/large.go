package secrets

import (
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Large texts are scanned in chunks, as gitleaks' own file source reads
// a file: its detector copies and decodes the whole text it is given
// (lowercased for its keywords, each decoding level), so a 64 MB object
// in one piece costs many times its size in memory, and one core. A
// chunk is chunkSize bytes (gitleaks' own 100 kB: its rules run on a
// fragment holding one of their keywords, so smaller fragments run fewer
// of them; 512 KiB cost half as much CPU again), ended at the next line
// break when one comes within chunkPeek bytes; chunks overlap by
// chunkOverlap bytes (from a line start when there is one), so that a
// secret of up to that size (a 4096-bit RSA key is 3.2 KB) across a cut
// is still found whole.
const (
	chunkSize    = 100 << 10
	chunkPeek    = 25 << 10
	chunkOverlap = 8 << 10
)

// chunks cuts text into the pieces it is scanned as.
func chunks(text string) []string {
	if len(text) <= chunkSize+chunkPeek {
		return []string{text}
	}
	var out []string
	for start := 0; ; {
		end := start + chunkSize
		if end >= len(text)-chunkPeek {
			return append(out, text[start:])
		}
		if i := strings.IndexByte(text[end:end+chunkPeek], '\n'); i >= 0 {
			end += i + 1
		}
		out = append(out, text[start:end])
		next := end - chunkOverlap
		if i := strings.IndexByte(text[next:end], '\n'); i >= 0 && i+1 < end-next {
			next += i + 1
		}
		start = next
	}
}

// each calls f with every chunk of text, on GOMAXPROCS goroutines when
// there are several, and returns what they found, in chunk order.
func each(text string, f func(string) []hit) []hit {
	cs := chunks(text)
	if len(cs) == 1 {
		return f(text)
	}
	found := make([][]hit, len(cs))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
	)
	for range min(runtime.GOMAXPROCS(0), len(cs)) {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(cs) {
					return
				}
				found[i] = f(cs[i])
			}
		})
	}
	wg.Wait()
	var out []hit
	for _, hs := range found {
		out = append(out, hs...)
	}
	return out
}

// IsBinary reports whether b is scanned as binary: a NUL byte, or bytes
// that are not UTF-8, in its first 8000 bytes (git's rule). Only the runs
// of printable text of a binary go through the rules.
func IsBinary(b []byte) bool {
	return isBinary(unsafe.String(unsafe.SliceData(b), len(b)))
}

// sniffSize is how much of a text tells whether it is binary: git's
// rule (buffer_is_binary) looks at as much.
const sniffSize = 8000

// isBinary reports whether text is binary rather than text: a NUL byte,
// or bytes that are not UTF-8, in its first sniffSize bytes.
func isBinary(text string) bool {
	head := text[:min(len(text), sniffSize)]
	if strings.IndexByte(head, 0) >= 0 {
		return true
	}
	if len(head) < len(text) {
		// A character cut at the end of the sniffed bytes is no sign.
		for i := 0; i < utf8.UTFMax && len(head) > 0; i++ {
			if r, _ := utf8.DecodeLastRuneInString(head); r != utf8.RuneError {
				break
			}
			head = head[:len(head)-1]
		}
	}
	return !utf8.ValidString(head)
}

// minPrintable is the shortest run of printable text kept from a binary
// text (strings(1) keeps 4): shorter than any secret a rule finds.
const minPrintable = 8

// printable returns the runs of printable ASCII (tabs and line breaks
// included) of at least minPrintable bytes in the binary text b, one a
// line: what a secret in a binary (a key compiled into a program, a
// token in a database file) is written as, and all gitleaks' rules can
// find there. Random bytes hold few such runs, so a binary object costs
// a pass over its bytes rather than every rule over all of them.
func printable(b string) string {
	var out strings.Builder
	start := -1
	flush := func(end int) {
		if start >= 0 && end-start >= minPrintable {
			out.WriteString(b[start:end])
			out.WriteByte('\n')
		}
		start = -1
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' || c == '\r' {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(b))
	return out.String()
}
