// Package htmlview renders context packs, drift reports and replay reports
// as self-contained HTML documents: one file that opens from file:// with
// no server, no network and no JavaScript.
//
// Pack content is untrusted. Every value goes through html/template's
// contextual escaping, and content appears only as text (in <pre>), never
// as markup. Control characters, bidirectional overrides and other
// invisible formatting characters are shown as visible escapes (\u202e),
// and invalid UTF-8 as \xNN. The document carries a Content-Security-Policy
// that allows no script, no connection and no frame, the one embedded style
// sheet by its hash, and images only as data: URIs; images are inlined
// only when their bytes are PNG, JPEG, GIF or WebP. Objects larger than
// Options.MaxInline are shown by size and hash with the ctx-show --blob
// command that prints them.
//
// The output is polyglot XHTML (well-formed XML and valid HTML) and
// deterministic: the same input gives the same bytes, so a page can be
// golden-tested and content-addressed like any other object.
package htmlview
