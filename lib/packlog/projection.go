package packlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

// Manifest projections. A --where query on a manifest field reads every
// candidate's manifest, and in a store of agent sessions nearly all of a
// manifest's bytes are its steps (every file read, every command's
// output, in each snapshot): a year of sessions holds gigabytes of them.
// Most such queries ask about something else (metadata.session.cwd,
// environment.os, model.parameters.temperature). So for large stores (as
// many packs as the entry cache needs) List keeps, in a manifests/
// directory beside the entry caches, each manifest it read without its
// top-level steps member: its projection, one file per manifest named by
// the manifest's digest. A manifest never changes under its digest, so a
// projection never goes stale, and stores share them; ctx-gc removes
// those of the packs it drops (Forget).
//
// A query is answered from a projection only when gjson, evaluating it on
// the manifest, would read nothing but a member the projection keeps
// (onProjection): then the projection, which holds that member's bytes
// unchanged and in the same place among the members gjson compares, gives
// the same answer. Anything else reads the manifest.
//
// A projection file is
//
//	ctx-manifest-projection 1 <64 hex of the manifest digest> <body bytes> <CRC-32C of the body, 8 hex>\n
//	<body>
//
// and one whose header, length or checksum is wrong is not used (the
// manifest is read, and the file written again). A projection is taken
// only while the manifest's object is in the store, so a pack whose
// manifest is missing is reported as without the cache; a manifest object
// damaged in place is ctx-verify --fsck's to find.

const projectionMagic = "ctx-manifest-projection 1"

// projectionDir is the directory of the projections under Options.CacheDir.
const projectionDir = "manifests"

// projectionCache is the cache of manifest projections under dir, the
// directory of Options.CacheDir.
func projectionCache(dir string) userconfig.DigestCache {
	return userconfig.DigestCache{Dir: filepath.Join(dir, projectionDir), Magic: projectionMagic, What: "manifest projection"}
}

// DefaultCacheDir is where ctx-log keeps large stores' entry caches and
// their manifests' projections (Options.CacheDir): $CTX_LOG_CACHE, ""
// when that is "off", else ctx/packlog in the user's cache directory.
func DefaultCacheDir() string { return userconfig.CacheDir("CTX_LOG_CACHE", "packlog") }

// Forget removes from dir, the cache of Options.CacheDir, the
// projections of the manifests ps, packs a store no longer holds (ctx-gc
// removed them), and returns how many files went: one removal each,
// whatever the cache holds. Projections are shared by the stores that use
// dir, so one that still holds such a pack makes its projection again
// when a query needs it. A store's entry cache needs nothing: an entry
// is used only while packs/ lists it, and the cache is written again
// once enough of its entries are gone (cache.stale).
func Forget(dir string, ps []digest.Digest) (int, error) {
	if dir == "" {
		return 0, nil
	}
	return projectionCache(dir).Forget(ps)
}

// project returns the manifest doc without its top-level steps members
// (every member whose name reads as "steps"), the others' bytes unchanged
// and in their order; false for a manifest that is not a valid JSON
// object, which gjson may read in ways a projection would not keep.
func project(doc []byte) ([]byte, bool) {
	if !gjson.ValidBytes(doc) {
		return nil, false
	}
	// Valid JSON: members are found by skipping strings and brackets.
	i := skipSpace(doc, 0)
	if i == len(doc) || doc[i] != '{' {
		return nil, false
	}
	out := make([]byte, 0, 4096)
	out = append(out, '{')
	var name []byte
	for i = skipSpace(doc, i+1); i < len(doc) && doc[i] == '"'; {
		k := i
		i = skipString(doc, i)
		key := doc[k:i]
		i = skipSpace(doc, skipSpace(doc, i)+1) // the colon
		v := i
		i = skipValue(doc, i)
		value := doc[v:i]
		i = skipSpace(doc, i)
		if i < len(doc) && doc[i] == ',' {
			i = skipSpace(doc, i+1)
		}
		var err error
		if name, err = jsontext.AppendUnquote(name[:0], key); err != nil {
			return nil, false
		}
		if string(name) == "steps" {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, key...), ':'), value...)
	}
	return append(out, '}'), true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the end of the valid JSON string at b[i].
func skipString(b []byte, i int) int {
	for i++; ; {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		n := 0 // backslashes before the quote
		for n < i && b[i-1-n] == '\\' {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// skipValue returns the end of the valid JSON value at b[i].
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i = skipString(b, i)
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			i++
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
			i++
		default:
			i++
		}
		if depth == 0 && i < len(b) && (b[i] == ',' || b[i] == '}' || b[i] <= ' ') {
			return i
		}
	}
	return i
}

// onProjection reports whether gjson, evaluating the condition text as
// Query.Match does (#(text) on an array of the manifest), reads nothing
// but the value at a path whose first element is a top-level member a
// projection keeps. It splits the condition as gjson's parseQuery does
// (v1.20: the path ends at the first comparison character outside
// brackets and strings; the query at the parenthesis that closes it), and
// accepts only a condition that ends where Match's parenthesis does (no
// path after it) and a path of plain names ([A-Za-z0-9_-]), the first not
// steps, ending in at most one # (a count): no wildcard, modifier, pipe,
// multipath, escape or nested query. Such a query compares the value at
// that path, which is the same in the manifest and in its projection.
func onProjection(text string) bool {
	q := "#(" + text + ")"
	i, j, depth := 2, 0, 1
scan:
	for ; i < len(q); i++ {
		if depth == 1 && j == 0 {
			switch q[i] {
			case '!', '=', '<', '>', '%':
				j = i
				continue
			}
		}
		switch q[i] {
		case '\\':
			i++
		case '[', '(':
			depth++
		case ']', ')':
			depth--
			if depth == 0 {
				break scan
			}
		case '"':
			for i++; i < len(q); i++ {
				if q[i] == '\\' {
					i++
				} else if q[i] == '"' {
					break
				}
			}
		}
	}
	if depth != 0 || i != len(q)-1 {
		return false
	}
	end := i
	if j > 0 {
		end = j
	}
	// Trimmed as gjson trims it.
	p := q[2:end]
	for len(p) > 0 && p[0] <= ' ' {
		p = p[1:]
	}
	for len(p) > 0 && p[len(p)-1] <= ' ' {
		p = p[:len(p)-1]
	}
	path := strings.Split(p, ".")
	if path[0] == "steps" {
		return false
	}
	for k, el := range path {
		if el == "#" && k > 0 && k == len(path)-1 {
			continue
		}
		if !plainName(el) {
			return false
		}
	}
	return true
}

func plainName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// matchManifest reports whether pack d's manifest passes opt's manifest
// queries: matched on its projection when every query reads only what
// one keeps and pc holds it, else on the manifest, whose projection pc
// then keeps (best effort: a cache that cannot be written is only
// slower). pc may be nil.
func matchManifest(s *store.Store, pc *userconfig.DigestCache, d digest.Digest, opt *Options) (bool, error) {
	onProj := opt.onProjection()
	cached := false
	if pc != nil {
		if onProj {
			if proj, ok := pc.Load(d); ok {
				// A pack whose manifest is gone is reported, as without
				// the cache.
				if has, err := s.Has(d); err == nil && has {
					return opt.matchManifest(proj), nil
				}
			}
		} else {
			_, err := os.Lstat(pc.Path(d))
			cached = err == nil
		}
	}
	doc, err := s.Get(d)
	if err != nil {
		return false, err
	}
	if pc != nil && !cached {
		if proj, ok := project(doc); ok {
			_ = pc.Save(d, proj)
			if onProj {
				// The same answer, without copying the whole manifest
				// for the query.
				return opt.matchManifest(proj), nil
			}
		}
	}
	return opt.matchManifest(doc), nil
}
