//go:build !linux

package packlog

import (
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/store"
)

// entryReader reads packs/ entries through the store.
type entryReader struct{ s *store.Store }

func newEntryReader(s *store.Store) (*entryReader, error) { return &entryReader{s}, nil }

func (r *entryReader) close() {}

// list returns the packs whose entries packs/ holds. Inode numbers are
// not known here (0), so the cache is not used.
func (r *entryReader) list() ([]name, error) {
	ds, err := r.s.Packs("")
	if err != nil {
		return nil, err
	}
	out := make([]name, len(ds))
	for i, d := range ds {
		out[i] = name{d: d}
	}
	return out, nil
}

func (r *entryReader) id() (string, bool) { return "", false }

// read appends the entry of d to buf.
func (r *entryReader) read(d digest.Digest, buf []byte) ([]byte, error) {
	b, err := r.s.PackEntry(d)
	if err != nil {
		return buf, err
	}
	return append(buf, b...), nil
}

// mapFile reads the file name under rule r.
func mapFile(name string, r found.Rule) (b []byte, release func(), err error) {
	b, err = found.ReadFile(name, r)
	return b, func() {}, err
}
