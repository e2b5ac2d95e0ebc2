//go:build !linux

package packlog

import (
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// entryReader reads packs/ entries through the store.
type entryReader struct{ s *store.Store }

func newEntryReader(s *store.Store) (*entryReader, error) { return &entryReader{s}, nil }

func (r *entryReader) close() {}

func (r *entryReader) list() ([]digest.Digest, error) { return r.s.Packs("") }

// read appends the entry of d to buf.
func (r *entryReader) read(d digest.Digest, buf []byte) ([]byte, error) {
	b, err := r.s.PackEntry(d)
	if err != nil {
		return buf, err
	}
	return append(buf, b...), nil
}
