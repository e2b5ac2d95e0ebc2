package store

import "github.com/ctx-tools/ctx/lib/digest"

// PackDir lists and reads the entries of packs/, each opened relative to
// the directory, which it holds open until Close: ctx-log reads every
// entry of a store of 100,000 packs, and system calls are most of the
// cost of that. Where the system has no such opens it reads as
// Store.Packs and Store.PackEntry do.
type PackDir struct {
	s *Store
	packDir
}

// PackName is a packs/ entry found by listing the directory: the pack,
// and the entry file's inode number (0 where the platform does not say).
type PackName struct {
	Digest digest.Digest
	Ino    uint64
}

// OpenPackDir opens s's packs/ directory. A missing one is an error.
func (s *Store) OpenPackDir() (*PackDir, error) {
	p := &PackDir{s: s}
	if err := p.open(s); err != nil {
		return nil, err
	}
	return p, nil
}

// List returns the packs whose entries packs/ holds: every name of 64
// lowercase hex digits, as Packs, in directory order, with its inode
// number.
func (p *PackDir) List() ([]PackName, error) { return p.list() }

// ID identifies the packs/ directory itself (device and inode), so that a
// cache made for one store is not taken for another at the same path; ok
// is false where the platform does not say.
func (p *PackDir) ID() (id string, ok bool) { return p.id() }

// Read appends the entry of d to buf, refusing anything but a regular
// file of at most MaxEntrySize bytes. buf should have room for a whole
// entry: a read that does not fill it is taken as the end of the file, as
// it is for regular files on local file systems. (Were it ever short, the
// entry would not parse in canonical form, and the caller re-reads it
// with PackEntry.) An entry removed since it was listed is ErrNotFound.
func (p *PackDir) Read(d digest.Digest, buf []byte) ([]byte, error) { return p.read(d, buf) }

// Close closes the directory.
func (p *PackDir) Close() error { return p.close() }
