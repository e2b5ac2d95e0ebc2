package store

import (
	"errors"

	"github.com/ctx-tools/ctx/lib/digest"
)

// ObjectDir reads many objects of a store, each opened relative to the
// store's objects directory, which it holds open until Close: a diff
// reads thousands of objects, and the kernel then looks up two path
// components for each instead of the whole path. Where the system has no
// such opens it reads as Store.GetUpTo does.
type ObjectDir struct {
	s *Store
	objectDir
}

// OpenObjectDir opens s's objects directory for reading many objects.
func (s *Store) OpenObjectDir() (*ObjectDir, error) {
	o := &ObjectDir{s: s}
	if err := o.open(s.Path("objects")); err != nil {
		return nil, err
	}
	return o, nil
}

// GetUpTo is Store.GetUpTo, read through o.
func (o *ObjectDir) GetUpTo(d digest.Digest, max int64) ([]byte, int64, error) {
	return o.s.getUpTo(d, max, o.read)
}

// GetUpToInto is GetUpTo reading into buf when it has room for the
// object, else into a new slice: a search reads thousands of objects one
// after the other and keeps none of them, and reusing one buffer spares
// the allocation, zeroing and page faults of each. The result is a
// slice of buf or the new slice, to be reused in turn.
func (o *ObjectDir) GetUpToInto(d digest.Digest, max int64, buf []byte) ([]byte, int64, error) {
	b, size, err := o.s.getUpTo(d, max, func(name, rel string, max int64) ([]byte, int64, error) {
		return o.readInto(name, rel, max, buf)
	})
	if errors.Is(err, ErrCorrupt) {
		// A read into buf may have ended short of the end of the file
		// (readRegularAt): the sized read says.
		return o.GetUpTo(d, max)
	}
	return b, size, err
}

// Close closes the directory.
func (o *ObjectDir) Close() error { return o.close() }
