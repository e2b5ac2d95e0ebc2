package secrets

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/internal/zerocopy"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/secrets/verdict"
	"github.com/ctx-tools/ctx/lib/store"
)

// Finding is one place a secret is: which rule found it, in which pack
// and object, at which JSON path of the pack (its log form: steps[3].output,
// steps[3].parameters.command) and line of that value. It never holds the
// secret: Mark names it by the first 8 hex digits of its SHA-256, which
// tells the same secret apart from others without telling it.
type Finding struct {
	Rule   string        `json:"rule"`
	Pack   digest.Digest `json:"pack,omitzero"`
	Object digest.Digest `json:"object,omitzero"`
	Path   string        `json:"path"`
	Line   int           `json:"line,omitzero"`
	// Key says the secret is a member name: the last element of Path,
	// which shows it as its mark.
	Key  bool   `json:"key,omitzero"`
	Mark string `json:"mark"`
}

// String renders f for a message: "aws-access-token at steps[3].output
// line 2 (object sha256:…) in pack sha256:…".
func (f Finding) String() string {
	s := f.Rule + " at " + f.Path
	if f.Key {
		s += " (a member name)"
	}
	if f.Line > 0 {
		s += fmt.Sprintf(" line %d", f.Line)
	}
	switch {
	case f.Object.IsZero():
	case f.Object == f.Pack:
		s += " (the manifest)"
	default:
		s += " (object " + f.Object.String() + ")"
	}
	if !f.Pack.IsZero() {
		s += " in pack " + f.Pack.String()
	}
	return s
}

// ScanStats counts what a scan read.
type ScanStats struct {
	Objects int   // objects of the pack, its manifest included
	Scanned int   // objects scanned (the others were known clean)
	Bytes   int64 // bytes scanned
	// Binary counts the objects scanned as binary (a NUL byte or bytes
	// that are not UTF-8 in their first 8000): only the runs of
	// printable text they hold, where a secret in a binary is written,
	// went through the rules.
	Binary int
}

// ScanPack scans every object of the pack m (m.Hash set, as loaded): its
// manifest, each string value decoded, and every object it references,
// each once, skipping those c knows clean and remembering the clean ones
// (and the pack, when all are) in c, which Save writes. Findings come in
// manifest order. The work is spread over GOMAXPROCS goroutines, the
// manifest's values among them, since a long session's manifest holds
// much of its text (commands, file contents written, edits).
func (s *Scanner) ScanPack(st *store.Store, m *manifest.Manifest, c *verdict.Cache) ([]Finding, ScanStats, error) {
	if c.PackClean(m.Hash) {
		return nil, ScanStats{}, nil
	}
	// An object, and the units of text it is scanned as.
	type object struct {
		d     digest.Digest
		path  string // "" for the manifest
		units int
	}
	type unit struct {
		obj  int
		path string
		text string      // the manifest's strings; content is read when scanned
		v    stringValue // a string of the manifest
	}
	objs := []object{{d: m.Hash}}
	seen := map[digest.Digest]bool{m.Hash: true}
	for sl := range m.Slots() {
		d := *sl.Ref
		if d.IsZero() || seen[d] {
			continue
		}
		seen[d] = true
		objs = append(objs, object{d: d, path: contentPath(sl.Path)})
	}
	stats := ScanStats{Objects: len(objs)}
	var units []unit
	for i, o := range objs {
		if c.Clean(o.d) {
			continue
		}
		stats.Scanned++
		if o.path != "" {
			units = append(units, unit{obj: i, path: o.path})
			objs[i].units = 1
			continue
		}
		b, err := st.Get(o.d)
		if err != nil {
			return nil, stats, fmt.Errorf("scanning pack %s: %w", m.Hash, err)
		}
		stats.Bytes += int64(len(b))
		walk(b, func(v stringValue) {
			if !isDigest(v.text) {
				units = append(units, unit{obj: i, path: v.path(), text: v.text, v: v})
				objs[i].units++
			}
		})
	}
	if len(units) > 0 {
		if err := s.init(); err != nil {
			return nil, stats, err
		}
	}
	results := make([][]Finding, len(units))
	keys := make([][]hit, len(units)) // the secrets that are member names
	errs := make([]error, len(units))
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		next   int
		bytes  int64
		binary int
	)
	for range min(runtime.GOMAXPROCS(0), len(units)) {
		wg.Go(func() {
			for {
				mu.Lock()
				if next == len(units) {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				u := units[i]
				text := u.text
				if objs[u.obj].path != "" {
					b, err := st.Get(objs[u.obj].d)
					if err != nil {
						errs[i] = fmt.Errorf("scanning pack %s: %w", m.Hash, err)
						continue
					}
					// The bytes are this goroutine's and never written:
					// a string of them, not a copy, which would double
					// the memory a large object costs.
					text = zerocopy.String(b)
					bin := isBinary(text)
					mu.Lock()
					bytes += int64(len(b))
					if bin {
						binary++
					}
					mu.Unlock()
				}
				hs := s.scan(text)
				fs := findings(text, u.path, hs)
				for k := range fs {
					fs[k].Pack, fs[k].Object, fs[k].Key = m.Hash, objs[u.obj].d, u.v.key
				}
				if u.v.key {
					keys[i] = hs
				}
				results[i] = fs
			}
		})
	}
	wg.Wait()
	stats.Bytes += bytes
	stats.Binary = binary
	for _, err := range errs {
		if err != nil {
			return nil, stats, err
		}
	}
	// A secret that is a member name of the manifest is in the paths of
	// its member and of what the member holds: shown as its mark.
	var named []hit
	for _, hs := range keys {
		named = append(named, hs...)
	}
	dirty := make([]bool, len(objs))
	var out []Finding
	for i, fs := range results {
		if len(named) > 0 && objs[units[i].obj].path == "" {
			for k := range fs {
				fs[k].Path = units[i].v.maskedPath(named)
			}
		}
		out = append(out, fs...)
		if len(fs) > 0 {
			dirty[units[i].obj] = true
		}
	}
	for i, o := range objs {
		if !dirty[i] && (o.units > 0 || o.path == "") && !c.Clean(o.d) {
			c.Add(o.d)
		}
	}
	if len(out) == 0 {
		c.AddPack(m.Hash)
	}
	return out, stats, nil
}

// ScanText scans a text that is no pack (a file about to be shared),
// reporting each place a secret occurs in it under the name path.
func (s *Scanner) ScanText(text, path string) ([]Finding, error) {
	if err := s.init(); err != nil {
		return nil, err
	}
	return s.scanObject(text, path), nil
}

// contentPath names an object by the log member that holds it inline:
// steps[3].output_ref is steps[3].output.
func contentPath(p canon.Path) string {
	s := p.String()
	return strings.TrimSuffix(s, "_ref")
}

// scanObject scans a content object, reporting each place a secret
// occurs in it at path.
func (s *Scanner) scanObject(text, path string) []Finding {
	return findings(text, path, s.scan(text))
}

// findings are the places the secrets hs, found in text, occur in it,
// text being at path.
func findings(text, path string, hs []hit) []Finding {
	var out []Finding
	for _, h := range hs {
		lines := occurrences(text, h.secret)
		if len(lines) == 0 {
			lines = []int{0} // held encoded: the place is the value
		}
		for _, ln := range lines {
			out = append(out, Finding{Rule: h.rule, Path: path, Line: ln, Mark: Mark(h.rule, h.secret)})
		}
	}
	return out
}

// isDigest reports whether v is a sha256:<64 hex> reference.
func isDigest(v string) bool {
	if len(v) != 71 || !strings.HasPrefix(v, "sha256:") {
		return false
	}
	return !slices.ContainsFunc([]byte(v[7:]), func(c byte) bool {
		return !('0' <= c && c <= '9' || 'a' <= c && c <= 'f')
	})
}

// Place fills in the pack and object of findings made on the log form of
// the pack m (ctx-fork's): a content member (steps[3].output) is the
// object m references there, anything else is in m's manifest.
func Place(m *manifest.Manifest, fs []Finding) {
	objects := map[string]digest.Digest{}
	for sl := range m.Slots() {
		if !sl.Ref.IsZero() {
			objects[contentPath(sl.Path)] = *sl.Ref
		}
	}
	for i := range fs {
		f := &fs[i]
		f.Pack, f.Object = m.Hash, m.Hash
		for _, p := range []string{f.Path, strings.TrimSuffix(f.Path, "_base64"), strings.TrimSuffix(f.Path, ".content"), strings.TrimSuffix(f.Path, ".content_base64")} {
			if d, ok := objects[p]; ok {
				f.Object = d
				break
			}
		}
	}
}
