package execlog

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Large objects are written without holding them in memory: the log is
// first encoded and canonicalized with a placeholder string where each
// one goes, a string no content can produce (it carries a random nonce),
// and the canonical bytes are then copied out with every placeholder
// replaced by the object's bytes, quoted as canonical JSON (RFC 8785)
// quotes them, or base64-encoded. Canonicalization only orders members,
// so the result is what canonicalizing the fully inlined log would give.

// Large text held in memory (over streamAbove bytes) is written the same
// way: canonicalizing the log would otherwise copy it several times over
// (the encoded log, its canonical copy, the reordered members), and an
// import of a log with one large message would take many times its size.

// streamAbove is the size of text in memory above which JSON writes it
// in place of a placeholder rather than through canonicalization.
const streamAbove = 1 << 20

// streamed is one object to write in place of a placeholder.
type streamed struct {
	c    *Content
	text bool
}

const placeholderPrefix = "\x00ctx-stream-"

// placeholder writes key with a placeholder string standing for c.
func (w *writer) placeholder(key string, c *Content, text bool) {
	if w.nonce == "" {
		var b [16]byte
		rand.Read(b[:])
		w.nonce = hex.EncodeToString(b[:])
	}
	w.key(key)
	w.b, _ = jsontext.AppendQuote(w.b, placeholderPrefix+w.nonce+"-"+strconv.Itoa(len(w.streamed)))
	w.comma = true
	w.streamed = append(w.streamed, streamed{c: c, text: text})
}

// inMemory writes key with a placeholder standing for c, text held in
// memory. A JSON string literal (Quoted) is checked here, before anything
// is written: canonicalization, which would have rejected it, does not
// see it.
func (w *writer) inMemory(key string, c *Content) {
	if c.kind == inline {
		if err := canonicalLiteral(c.raw, func([]byte) error { return nil }); err != nil && w.err == nil {
			w.err = err
		}
	}
	w.placeholder(key, c, true)
}

// canonicalLiteral calls emit with the pieces of the canonical form
// (between the quotes) of the JSON string literal lit: runs without
// escapes as they are (they hold no character canonical JSON escapes),
// each escape sequence decoded and escaped again as RFC 8785 does.
func canonicalLiteral(lit []byte, emit func([]byte) error) error {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return fmt.Errorf("not a JSON string literal")
	}
	body := lit[1 : len(lit)-1]
	var dec, esc []byte
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\\')
		if i < 0 {
			i = len(body)
		}
		run := body[:i]
		if !utf8.Valid(run) {
			return fmt.Errorf("invalid UTF-8 in a string")
		}
		for _, c := range run {
			if c < 0x20 || c == '"' {
				return fmt.Errorf("invalid character %q in a string", c)
			}
		}
		if len(run) > 0 {
			if err := emit(run); err != nil {
				return err
			}
		}
		body = body[i:]
		if len(body) == 0 {
			break
		}
		// One escape; \uXXXX with the low half of a surrogate pair after it.
		n := 2
		if len(body) >= 6 && body[1] == 'u' {
			n = 6
			if len(body) >= 12 && body[6] == '\\' && body[7] == 'u' && (body[2] == 'd' || body[2] == 'D') && strings.ContainsRune("89abAB", rune(body[3])) {
				n = 12
			}
		}
		if n > len(body) {
			return fmt.Errorf("truncated escape in a string")
		}
		var err error
		dec, err = jsontext.AppendUnquote(dec[:0], append(append([]byte{'"'}, body[:n]...), '"'))
		if err != nil {
			return err
		}
		esc = canon.AppendEscaped(esc[:0], dec)
		if err := emit(esc); err != nil {
			return err
		}
		body = body[n:]
	}
	return nil
}

// stream writes the canonical log b to out, each placeholder replaced by
// its object.
func (w *writer) stream(out io.Writer, b []byte) error {
	if buf, ok := out.(*bytes.Buffer); ok {
		// JSON: room for the text in memory, so that the buffer does
		// not grow by doubling (objects from the store are not counted).
		n := len(b)
		for _, s := range w.streamed {
			switch c := s.c; {
			case c.from != nil:
			case c.kind == inline:
				n += len(c.raw) // canonical escaping is never longer than JSON's
			case c.kind == text:
				n += escapedLen(c.text)
			case c.kind == data:
				n += escapedLen(c.data)
			}
		}
		buf.Grow(n)
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	// Canonical JSON escapes U+0000 as \u0000 and leaves the rest as is.
	open := []byte(`"\u0000ctx-stream-` + w.nonce + "-")
	seen := 0
	for {
		i := bytes.Index(b, open)
		if i < 0 {
			break
		}
		rest := b[i+len(open):]
		j := bytes.IndexByte(rest, '"')
		n, err := strconv.Atoi(string(rest[:max(j, 0)]))
		if j < 0 || err != nil || n < 0 || n >= len(w.streamed) {
			return fmt.Errorf("encoding log: malformed placeholder at byte %d", i)
		}
		bw.Write(b[:i])
		if err := writeObject(bw, w.streamed[n]); err != nil {
			return err
		}
		b = rest[j+1:]
		seen++
	}
	if seen != len(w.streamed) {
		return fmt.Errorf("encoding log: %d of %d streamed objects placed", seen, len(w.streamed))
	}
	bw.Write(b)
	return bw.Flush()
}

// writeObject writes one object as a JSON string: its text, quoted, or
// its standard base64.
func writeObject(w *bufio.Writer, s streamed) error {
	if s.c.from == nil {
		return writeMemory(w, s.c)
	}
	r, err := s.c.from.Open(s.c.ref)
	if err != nil {
		return err
	}
	defer r.Close()
	w.WriteByte('"')
	if s.text {
		buf := make([]byte, 64<<10)
		var esc []byte
		for {
			n, err := r.Read(buf)
			esc = canon.AppendEscaped(esc[:0], buf[:n])
			if _, werr := w.Write(esc); werr != nil {
				return werr
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
		}
	} else {
		enc := base64.NewEncoder(base64.StdEncoding, w)
		if _, err := io.Copy(enc, r); err != nil {
			return err
		}
		if err := enc.Close(); err != nil {
			return err
		}
	}
	return w.WriteByte('"')
}

// scanObject reads object d through the store's verifying reader and
// reports whether it is valid UTF-8, holding at most one buffer of it.
func scanObject(s *store.Store, d digest.Digest) (text bool, err error) {
	r, err := s.Open(d)
	if err != nil {
		return false, err
	}
	defer r.Close()
	var v utf8Checker
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		v.write(buf[:n])
		if err == io.EOF {
			return v.valid(), nil
		}
		if err != nil {
			return false, err
		}
	}
}

// utf8Checker validates UTF-8 given in pieces cut anywhere.
type utf8Checker struct {
	carry   [utf8.UTFMax]byte
	n       int // bytes of an unfinished character in carry
	invalid bool
}

func (v *utf8Checker) write(b []byte) {
	if v.invalid {
		return
	}
	if v.n > 0 {
		// Complete the character cut at the end of the last piece.
		k := min(utf8.UTFMax-v.n, len(b))
		tmp := append(v.carry[:v.n:v.n], b[:k]...)
		if !utf8.FullRune(tmp) {
			copy(v.carry[:], tmp)
			v.n = len(tmp)
			return
		}
		r, size := utf8.DecodeRune(tmp)
		if r == utf8.RuneError && size <= 1 {
			v.invalid = true
			return
		}
		b = b[size-v.n:]
		v.n = 0
	}
	// Keep an unfinished character at the end for the next piece.
	tail := 0
	for k := 1; k <= min(utf8.UTFMax-1, len(b)); k++ {
		if i := len(b) - k; utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				tail = k
			}
			break
		}
	}
	if !utf8.Valid(b[:len(b)-tail]) {
		v.invalid = true
		return
	}
	v.n = copy(v.carry[:], b[len(b)-tail:])
}

func (v *utf8Checker) valid() bool { return !v.invalid && v.n == 0 }

// writeMemory writes text held in memory as a canonical JSON string, a
// piece at a time.
func writeMemory(w *bufio.Writer, c *Content) error {
	w.WriteByte('"')
	var esc []byte
	const piece = 64 << 10
	switch c.kind {
	case inline:
		if err := canonicalLiteral(c.raw, func(b []byte) error {
			_, err := w.Write(b)
			return err
		}); err != nil {
			return err
		}
	case text:
		for i := 0; i < len(c.text); i += piece {
			esc = canon.AppendEscaped(esc[:0], c.text[i:min(i+piece, len(c.text))])
			w.Write(esc)
		}
	case data:
		for i := 0; i < len(c.data); i += piece {
			esc = canon.AppendEscaped(esc[:0], c.data[i:min(i+piece, len(c.data))])
			w.Write(esc)
		}
	}
	return w.WriteByte('"')
}

// escapedLen returns the length of what canon.AppendEscaped writes for s.
func escapedLen[T ~string | ~[]byte](s T) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}
