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

// stream writes the canonical log b to out, each placeholder replaced by
// its object.
func (w *writer) stream(out io.Writer, b []byte) error {
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
