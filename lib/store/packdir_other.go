//go:build !linux

package store

import "github.com/ctx-tools/ctx/lib/digest"

type packDir struct{ s *Store }

func (p *packDir) open(s *Store) error { p.s = s; return nil }

func (p *packDir) close() error { return nil }

func (p *packDir) list() ([]PackName, error) {
	ds, err := p.s.Packs("")
	if err != nil {
		return nil, err
	}
	out := make([]PackName, len(ds))
	for i, d := range ds {
		out[i] = PackName{Digest: d}
	}
	return out, nil
}

func (p *packDir) id() (string, bool) { return "", false }

func (p *packDir) read(d digest.Digest, buf []byte) ([]byte, error) {
	b, err := p.s.PackEntry(d)
	if err != nil {
		return buf, err
	}
	return append(buf, b...), nil
}
