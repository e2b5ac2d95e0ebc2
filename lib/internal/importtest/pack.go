package importtest

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/store"
)

// Packed is what packing an imported log gave: the manifest, the objects
// it refers to, the warnings, or the error.
type Packed struct {
	Manifest []byte
	Objects  []digest.Digest
	Warnings []string
	Err      error
}

// PackLog packs an unprinted log (ImportLog's, with its error), checked
// as ctx-pack checks it.
func PackLog(s *store.Store, l *execlog.Log, err error, po execlog.Options) Packed {
	if err != nil {
		return Packed{Err: err}
	}
	if err := l.Check(po); err != nil {
		return Packed{Err: err}
	}
	return Pack(s, l)
}

// PackPrinted packs a printed log (Import's, with its error), parsed as
// ctx-pack parses it.
func PackPrinted(s *store.Store, b []byte, err error, po execlog.Options) Packed {
	if err != nil {
		return Packed{Err: err}
	}
	l, err := execlog.Parse(b, po)
	if err != nil {
		return Packed{Err: err}
	}
	return Pack(s, l)
}

// Pack packs a checked log into s.
func Pack(s *store.Store, l *execlog.Log) Packed {
	if err := l.CheckStore(s); err != nil {
		return Packed{Err: err}
	}
	m, _, err := l.Pack(s)
	if err != nil {
		return Packed{Err: err}
	}
	b, err := s.Get(m.Hash)
	if err != nil {
		return Packed{Err: err}
	}
	refs := m.Refs()
	slices.SortFunc(refs, func(a, b digest.Digest) int { return strings.Compare(a.String(), b.String()) })
	return Packed{Manifest: b, Objects: slices.Compact(refs), Warnings: l.Warnings}
}

// Same says how two packs differ, "" when they do not: both refused
// alike (an import error E with the same message, or another), or the
// same manifest, objects and warnings.
func Same[E error](direct, printed Packed) string {
	switch {
	case (direct.Err == nil) != (printed.Err == nil):
		return fmt.Sprintf("unprinted: %v; printed: %v", direct.Err, printed.Err)
	case direct.Err != nil:
		var ie1, ie2 E
		is1, is2 := errors.As(direct.Err, &ie1), errors.As(printed.Err, &ie2)
		if is1 != is2 || is1 && ie1.Error() != ie2.Error() {
			return fmt.Sprintf("unprinted: %v; printed: %v", direct.Err, printed.Err)
		}
		return ""
	case !bytes.Equal(direct.Manifest, printed.Manifest):
		return fmt.Sprintf("manifests differ:\nunprinted: %s\nprinted:   %s", direct.Manifest, printed.Manifest)
	case !slices.Equal(direct.Objects, printed.Objects):
		return fmt.Sprintf("objects differ: %v and %v", direct.Objects, printed.Objects)
	case !slices.Equal(direct.Warnings, printed.Warnings):
		return fmt.Sprintf("warnings differ: %q and %q", direct.Warnings, printed.Warnings)
	}
	return ""
}

// NewStore makes a store for a test, not synced (nothing in it outlives
// the test).
func NewStore(t testing.TB) *store.Store {
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetSyncMode(store.SyncNone)
	return s
}
