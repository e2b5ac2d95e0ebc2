package execlog

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/internal/zerocopy"
	"github.com/ctx-tools/ctx/lib/store"
)

type contentKind int

const (
	inline     contentKind = iota // a JSON string
	base64Text                    // a JSON string of standard base64
	file                          // a file to read
	ref                           // an object already stored
	data                          // bytes in memory
	text                          // a string in memory
)

// Content is where one piece of content comes from: text or bytes in
// memory (Text, Bytes), an object already stored (Ref), or, in a parsed
// log, the log's own string, base64 string or file.
type Content struct {
	kind   contentKind
	raw    []byte // quoted JSON string token (inline, base64Text)
	dir    string // the log's directory (file)
	file   string // a local path under dir (file)
	ref    digest.Digest
	data   []byte
	text   string
	at     canon.Path // where the log gives it, for messages
	stated int64      // the size the log states, or -1
	lines  int64      // the line count the log's ranges cover, or -1

	// from is set on an object (ref) that JSON writes inline, streamed
	// from this store; isText says whether its bytes are valid UTF-8.
	from   *store.Store
	isText bool

	// stored is the object a literal's text is known to be (QuotedStored),
	// of storedSize bytes; checked says the literal is canonical JSON.
	stored     digest.Digest
	storedSize int64
	checked    bool
}

// Text returns content holding s.
func Text(s string) *Content { return &Content{kind: text, text: s, stated: -1, lines: -1} }

// Bytes returns content holding b, which must not change afterwards.
func Bytes(b []byte) *Content { return &Content{kind: data, data: b, stated: -1, lines: -1} }

// Quoted returns content given as a JSON string token, quotes included:
// its decoded text, read only when packed or printed. lit must be a valid
// JSON string; printing the log (JSON) reports one that is not.
func Quoted(lit []byte) *Content { return &Content{kind: inline, raw: lit, stated: -1, lines: -1} }

// QuotedStored is Quoted content whose text is known to be the object d
// of size bytes, and lit known to be canonical JSON (QuotedObject said
// so of the same bytes before): packed, the object is looked for by its
// name and size, as a log's sha256 reference is, and stored only when it
// is not there; the literal is not checked again.
func QuotedStored(lit []byte, d digest.Digest, size int64) *Content {
	return &Content{kind: inline, raw: lit, stated: -1, lines: -1, stored: d, storedSize: size, checked: true}
}

// TextStored is Text content known to be the object d of size bytes
// (found by name and size when packed, as QuotedStored is).
func TextStored(s string, d digest.Digest, size int64) *Content {
	return &Content{kind: text, text: s, stated: -1, lines: -1, stored: d, storedSize: size}
}

// QuotedObject returns the object the text of the JSON string literal lit
// is stored as, and its size, or an error when lit is not a canonical
// JSON string (Canonical would refuse it).
func QuotedObject(lit []byte) (digest.Digest, int64, error) {
	if err := checkLiteral(lit); err != nil {
		return digest.Digest{}, 0, err
	}
	if b, ok := plain(lit); ok {
		return digest.Of(b), int64(len(b)), nil
	}
	text := decodeString(lit)
	return digest.Of([]byte(text)), int64(len(text)), nil
}

// Base64 returns content given as standard base64 text, decoded only when
// packed; printed, it stays the base64 it is (content_base64). Text that
// is not valid base64 is reported when the printed log is parsed.
func Base64(s string) *Content {
	lit, _ := jsontext.AppendQuote(nil, s)
	return &Content{kind: base64Text, raw: lit, stated: -1, lines: -1}
}

// Base64Text returns the base64 text content was given as (Base64, or a
// log's content_base64), ok false for content in any other form.
func (c *Content) Base64Text() (string, bool) {
	if c == nil || c.kind != base64Text {
		return "", false
	}
	return decodeString(c.raw), true
}

// Ref returns content that is the object d, already in the store.
func Ref(d digest.Digest) *Content { return &Content{kind: ref, ref: d, stated: -1, lines: -1} }

// The four member names that can give content, in this order: text,
// base64, file, object.
type keySet [4]string

var (
	contentKeys   = keySet{"content", "content_base64", "path", "content_ref"}
	outputKeys    = keySet{"output", "output_base64", "output_path", "output_ref"}
	reasoningKeys = keySet{"reasoning", "reasoning_base64", "reasoning_path", "reasoning_ref"}
)

// content reads the one member of keys that gives the content.
func (o *object) content(keys keySet, required bool) *Content {
	var given []string
	var c *Content
	for i, k := range keys {
		v := o.get(k)
		if v == nil {
			continue
		}
		given = append(given, k)
		at := o.at.Key(k)
		if v.kind != '"' {
			o.p.errorf(v, at, "expected string, got %s", kindName(v.kind))
			continue
		}
		c = &Content{kind: contentKind(i), raw: v.raw, at: at, stated: -1, lines: -1}
		switch c.kind {
		case base64Text:
			o.check(v, at, checkBase64(v.raw))
		case file:
			name := decodeString(v.raw)
			if name == "" {
				o.p.errorf(v, at, "empty path")
				continue
			}
			// A log names files beside it, never elsewhere: a log someone
			// sent you must not pull ~/.ssh into a pack you then share.
			if !filepath.IsLocal(name) {
				o.p.errorf(v, at, "%q must be a path inside the log's directory (not absolute, no \"..\")", name)
				continue
			}
			fi, err := statInRoot(o.p.opts.Dir, name)
			switch {
			case err != nil:
				o.p.errorf(v, at, "cannot read %s: %v", name, unwrapPathErr(err))
			case !fi.Mode().IsRegular():
				o.p.errorf(v, at, "%s is not a regular file", name)
			}
			c.dir, c.file = o.p.opts.Dir, name
		case ref:
			d, err := digest.Parse(decodeString(v.raw))
			if err != nil {
				o.p.errorf(v, at, "%v", err)
			}
			c.ref = d
		}
	}
	switch {
	case len(given) > 1:
		o.p.errorf(o.n, o.at, "give only one of %s (got %s)", strings.Join(keys[:], ", "), strings.Join(given, " and "))
		return nil
	case len(given) == 0 && required:
		o.p.errorf(o.n, o.at.Key(keys[0]), "required field is missing (or one of %s)", strings.Join(keys[1:], ", "))
	}
	return c
}

// statInRoot stats name inside dir without following anything out of it.
func statInRoot(dir, name string) (os.FileInfo, error) {
	root, err := os.OpenRoot(dirOrDot(dir))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.Stat(name)
}

func dirOrDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// Size returns the content's size in bytes.
func (c *Content) Size(s *store.Store) (int64, error) {
	switch c.kind {
	case inline:
		if b, ok := plain(c.raw); ok {
			return int64(len(b)), nil
		}
	case file:
		fi, err := statInRoot(c.dir, c.file)
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	case ref:
		return s.Size(c.ref)
	case data:
		return int64(len(c.data)), nil
	case text:
		return int64(len(c.text)), nil
	}
	r, err := c.open(s)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	return io.Copy(io.Discard, r)
}

// open returns a reader of the content's bytes.
func (c *Content) open(s *store.Store) (io.ReadCloser, error) {
	switch c.kind {
	case inline:
		if b, ok := plain(c.raw); ok {
			return io.NopCloser(bytes.NewReader(b)), nil
		}
		return io.NopCloser(newStringReader(c.raw)), nil
	case base64Text:
		return io.NopCloser(base64Reader(c.raw)), nil
	case data:
		return io.NopCloser(bytes.NewReader(c.data)), nil
	case text:
		return io.NopCloser(strings.NewReader(c.text)), nil
	case file:
		f, err := os.OpenInRoot(dirOrDot(c.dir), c.file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.at, err)
		}
		return f, nil
	}
	return s.Open(c.ref)
}

// base64Reader streams the bytes a quoted JSON string of standard base64
// encodes, in time linear in its length; most such strings have no JSON
// escapes and are decoded straight from the log's bytes.
func base64Reader(quoted []byte) io.Reader {
	if b, ok := plain(quoted); ok {
		return base64.NewDecoder(base64.StdEncoding, bytes.NewReader(b))
	}
	return base64.NewDecoder(base64.StdEncoding, newStringReader(quoted))
}

// smallInline is the size below which escaped text is decoded in memory
// rather than streamed through a temporary file.
const smallInline = 1 << 20

// sameKey returns the bytes content held in memory is given as, and in
// which form (1: the bytes themselves, 2: a JSON string literal), so that
// two contents with the same form and key are the same bytes stored: one
// put does for both. ok is false for content in another form. The key
// shares the content's memory, which does not change while it is packed.
func (c *Content) sameKey() (form int, key string, ok bool) {
	switch c.kind {
	case text:
		return 1, c.text, true
	case data:
		return 1, zerocopy.String(c.data), true
	case inline:
		return 2, zerocopy.String(c.raw), true
	}
	return 0, "", false
}

// put stores the content and returns its digest and size.
func (c *Content) put(s *store.Store) (d digest.Digest, size int64, created bool, err error) {
	if !c.stored.IsZero() {
		// As a ref is: by name and size (s.Size).
		if size, err := s.Size(c.stored); err == nil && size == c.storedSize {
			return c.stored, size, false, nil
		}
		// Not there (another store, collected): stored as any text.
	}
	switch c.kind {
	case inline:
		if b, ok := plain(c.raw); ok {
			d, created, err = s.Put(b)
			return d, int64(len(b)), created, err
		}
		if len(c.raw) < smallInline {
			b := []byte(decodeString(c.raw))
			d, created, err = s.Put(b)
			return d, int64(len(b)), created, err
		}
	case ref:
		size, err = s.Size(c.ref)
		return c.ref, size, false, err
	case data:
		d, created, err = s.Put(c.data)
		return d, int64(len(c.data)), created, err
	case text:
		d, created, err = s.Put([]byte(c.text))
		return d, int64(len(c.text)), created, err
	}
	r, err := c.open(s)
	if err != nil {
		return d, 0, false, err
	}
	defer r.Close()
	d, size, created, err = s.PutReader(r)
	if err != nil {
		err = fmt.Errorf("%s: %w", c.at, err)
	}
	return d, size, created, err
}

// sizeHint estimates the bytes c takes in the log's JSON.
func (c *Content) sizeHint() int {
	if c == nil {
		return 0
	}
	if c.inMemoryText() > streamAbove {
		return 80 // a placeholder (stream.go)
	}
	return len(c.raw) + len(c.data)*4/3 + len(c.text) + len(c.file) + 80
}

// inMemoryText returns the size of the text c holds in memory, if it
// holds text (a string literal, a string, bytes), else 0.
func (c *Content) inMemoryText() int {
	switch c.kind {
	case inline:
		return len(c.raw)
	case text:
		return len(c.text)
	case data:
		return len(c.data)
	}
	return 0
}

// countLines returns the number of lines of the content: its newlines,
// plus one for a last line without one.
func (c *Content) countLines(s *store.Store) (int64, error) {
	r, err := c.open(s)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var n int64
	var last byte
	some := false
	buf := make([]byte, 64<<10)
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			last, some = buf[k-1], true
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if some && last != '\n' {
		n++
	}
	return n, nil
}

// Inline reads every content of the log given as a file or an object
// reference into memory, so that JSON prints the log self-contained (what
// a tool rewriting content, such as a redaction, needs). Sizes the log
// states are dropped, since rewritten content no longer has them.
func (l *Log) Inline(s *store.Store) error {
	for _, c := range l.contents() {
		c.stated = -1
		if c.kind != file && c.kind != ref {
			continue
		}
		if c.kind == ref && s == nil {
			return fmt.Errorf("%s: %s is an object reference, and there is no store to read it from", c.at, c.ref)
		}
		r, err := c.open(s)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", c.at, err)
		}
		*c = Content{kind: data, data: b, at: c.at, stated: -1, lines: c.lines}
	}
	return nil
}
