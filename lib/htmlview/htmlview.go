package htmlview

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"sync"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/cost"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/drift"
)

// Objects reads the content a page shows; *store.Store is one. Get must
// verify the bytes against d.
type Objects interface {
	Size(d digest.Digest) (int64, error)
	Get(d digest.Digest) ([]byte, error)
}

// DefaultMaxInline is the largest object shown inline by default.
const DefaultMaxInline = 64 << 10

// DefaultMaxTotal is how much content a page shows inline by default, all
// objects together; objects met after it is spent are shown by size and
// hash like large ones, so a page of many steps stays a size a browser
// opens.
const DefaultMaxTotal = 16 << 20

// Options tune a page. The zero value uses the defaults.
type Options struct {
	// MaxInline is the largest object (or parameter value) shown inline;
	// larger ones are shown by size and hash (zero: DefaultMaxInline).
	MaxInline int64
	// MaxTotal bounds the content of all objects shown inline, in page
	// order (zero: DefaultMaxTotal).
	MaxTotal int64
	// Prices prices the steps' usage (nil: lib/cost's default table).
	Prices *cost.Table
}

func (o Options) maxTotal() int64 {
	if o.MaxTotal <= 0 {
		return DefaultMaxTotal
	}
	return o.MaxTotal
}

func (o Options) maxInline() int64 {
	if o.MaxInline <= 0 {
		return DefaultMaxInline
	}
	return o.MaxInline
}

//go:embed view.css
var css string

//go:embed page.html
var pageTemplate string

// CSP is the Content-Security-Policy every page carries: nothing is
// allowed but its one style sheet, by hash, and data: images. With meta
// delivery, frame-ancestors cannot be set; the rest still holds.
var CSP = "default-src 'none'; style-src 'sha256-" + styleHash() + "'; img-src data:; base-uri 'none'; form-action 'none'"

func styleHash() string {
	h := sha256.Sum256([]byte(css))
	return base64.StdEncoding.EncodeToString(h[:])
}

// tmpl is the page template, parsed when a page is first rendered: not
// at the start of every command that can render one (ctx-diff, ctx-show).
var tmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"plural": plural,
	}).Parse(pageTemplate))
})

// page is what the layout needs; Body is one of packPage or diffPage.
type page struct {
	Title string
	CSP   string
	CSS   template.CSS
	Pack  *packPage
	Diff  *diffPage
	Blame *blamePage
}

// render executes the page template; sizeHint is the expected size of the
// page, so that a large one is not copied as it grows.
func render(title string, p page, sizeHint int) ([]byte, error) {
	p.Title, p.CSP, p.CSS = title, CSP, template.CSS(css)
	var b bytes.Buffer
	b.Grow(max(sizeHint, 0) + len(css) + 4<<10)
	if err := tmpl().ExecuteTemplate(&b, "page", &p); err != nil {
		return nil, fmt.Errorf("rendering page: %w", err)
	}
	return b.Bytes(), nil
}

// Content is an object as a page shows it.
type Content struct {
	Ref  string // sha256:<hex>
	Size int64
	// Kind is text, image, binary, empty, large (over the per-object
	// limit) or budget (past the page's budget).
	Kind    string
	Summary Text // first line, clipped
	More    bool // the content goes on past Summary
	Lines   int
	Body    Text
	Image   template.URL // data: URI of an image
	Media   string       // image media type
}

// Short is the first 12 hex digits of the reference.
func (c *Content) Short() string { return shortRef(c.Ref) }

// HumanSize is the size for reading.
func (c *Content) HumanSize() string { return size(c.Size) }

// BlobCmd prints the object's bytes.
func (c *Content) BlobCmd() string { return "ctx-show --blob " + c.Ref }

func shortRef(r string) string {
	const p = len("sha256:")
	if len(r) >= p+12 {
		return r[p : p+12]
	}
	return r
}

// content reads d for showing: size always, bytes when within the
// per-object limit and what is left of the page's budget (*budget, which
// it decreases).
func content(objs Objects, d digest.Digest, opt Options, budget *int64) (*Content, error) {
	if d.IsZero() {
		return nil, nil
	}
	n, err := objs.Size(d)
	if err != nil {
		return nil, err
	}
	c := &Content{Ref: d.String(), Size: n}
	switch {
	case n > opt.maxInline():
		c.Kind = "large"
		return c, nil
	case n > *budget:
		c.Kind = "budget"
		return c, nil
	}
	*budget -= n
	b, err := objs.Get(d)
	if err != nil {
		return nil, err
	}
	fillContent(c, b)
	return c, nil
}

func fillContent(c *Content, b []byte) {
	switch {
	case len(b) == 0:
		c.Kind = "empty"
	case imageType(b) != "":
		c.Kind, c.Media = "image", imageType(b)
		c.Image = template.URL("data:" + c.Media + ";base64," + base64.StdEncoding.EncodeToString(b))
	case !drift.IsText(b):
		c.Kind = "binary"
	default:
		c.Kind = "text"
		s := string(b)
		line := firstLine(s)
		c.Summary, c.Lines = vis(line), lines(s)
		// Anything not in the summary (more lines, a clipped line,
		// leading blank lines) is in the body.
		c.More = s != line && s != line+"\n"
		if c.More {
			c.Body = vis(s)
		}
	}
}

// imageType names the raster image formats inlined as data: URIs, by
// their bytes rather than by any recorded media type. SVG is never one:
// it is a document, not a picture.
func imageType(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && bytes.HasPrefix(b, []byte("RIFF")) && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// JSON is a JSON value as a page shows it: indented text, or its size
// when over the inline limit.
type JSON struct {
	Body  Text
	Short Text // canonical, clipped to one line
	Size  int64
	Lines int
	Large bool
	// OneLine is set when the canonical form is short enough to read on
	// one line; Short is then all of it.
	OneLine bool
}

// oneLineJSON is the longest JSON value shown on one line.
const oneLineJSON = 100

func jsonView(v []byte, opt Options) *JSON {
	if len(v) == 0 {
		return nil
	}
	j := &JSON{Size: int64(len(v))}
	j.Short = vis(clip(string(v), previewRunes))
	j.OneLine = len(v) <= oneLineJSON && !bytes.ContainsAny(v, "\n\r")
	if j.Size > opt.maxInline() {
		j.Large = true
		return j
	}
	body := string(canon.Indent(v))
	j.Body, j.Lines = vis(body), lines(body)
	return j
}
