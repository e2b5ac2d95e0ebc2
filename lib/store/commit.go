package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctx-tools/ctx/lib/digest"
)

// Committing a pack, and the order of its writes and flushes.
//
// A pack is committed when its packs/ entry appears, and a ref names only
// committed packs. So a power loss must never leave on disk an entry
// whose manifest or objects are missing or torn, nor a ref whose pack has
// no entry; and once a pack is reported, it, its objects and the refs set
// to it must survive one. Without a journal (this store's ext4 runs
// without one) nothing orders two writes on disk but a flush between
// them, and a name is durable only once its directory is flushed. So:
//
//  1. the objects are written and linked into objects/ (Put), unflushed;
//  2. PutPackEntry writes the entry's bytes to a temporary file in
//     packs/, and the new content of each ref the caller moves to the
//     pack (PrepareRefs) to a temporary file in tmp/, unflushed;
//  3. one flush makes 1 and 2 durable: syncfs(2) of the store's file
//     system, or, where there is none, fsync of every file and of every
//     fan-out directory (Sync);
//  4. the temporary entry is linked as packs/<hex> (never replacing),
//     its temporary name removed, and packs/ fsynced: the commit point
//     is durable, after everything it names;
//  5. RefLock.Set, under the ref's lock, renames a prepared file onto the
//     ref and fsyncs the ref's directory: the ref is durable, after the
//     entry it names.
//
// A crash before 4 leaves no entry (only unreferenced objects and
// temporary files, which ctx-gc removes); one between 4 and 5 leaves a
// committed pack that no ref names yet, as if the ref had not been asked
// for. A pack with one ref costs three flushes (syncfs, packs/, refs/)
// where writing and syncing each file in turn cost five.

// crashHook, set only by tests, is called at the points of a commit named
// by crashPoint, to stop the process there as a crash would.
var crashHook func(point string)

func crashPoint(point string) {
	if crashHook != nil {
		crashHook(point)
	}
}

// preparedRef is a temporary file in tmp/ holding a ref's content.
type preparedRef struct {
	path    string
	d       digest.Digest
	durable bool // its bytes were flushed with the pack d's objects
}

// PrepareRefs declares that the caller will point n refs at each pack it
// commits through s from now on (ctx-pack moves latest, and a tag):
// PutPackEntry then writes each ref's new content before its one flush,
// which makes it durable with the pack's objects, and RefLock.Set of that
// pack only has to rename it into place and sync the ref's directory.
// DiscardPreparedRefs removes what was prepared and not used.
func (s *Store) PrepareRefs(n int) {
	s.mu.Lock()
	s.refsToPrepare = n
	s.mu.Unlock()
}

// DiscardPreparedRefs removes the prepared refs no RefLock.Set used, and
// prepares none for later commits.
func (s *Store) DiscardPreparedRefs() {
	s.mu.Lock()
	prepared := s.prepared
	s.prepared, s.refsToPrepare = nil, 0
	s.mu.Unlock()
	for _, p := range prepared {
		os.Remove(p.path)
	}
}

// prepareRefs writes the content of the refs to be moved to d to
// temporary files, unflushed, and returns their names.
func (s *Store) prepareRefs(d digest.Digest) ([]string, error) {
	s.mu.Lock()
	n := s.refsToPrepare
	s.mu.Unlock()
	if n == 0 {
		return nil, nil
	}
	dir := filepath.Join(s.root, "tmp")
	if err := s.ensureDir(dir); err != nil {
		return nil, err
	}
	var names []string
	for range n {
		name, err := writeTemp(dir, "ref-", []byte(d.String()+"\n"), 0o644)
		if err != nil {
			for _, name := range names {
				os.Remove(name)
			}
			return nil, fmt.Errorf("preparing refs for %s: %w", d, err)
		}
		names = append(names, name)
	}
	s.mu.Lock()
	for _, name := range names {
		s.prepared = append(s.prepared, preparedRef{path: name, d: d})
	}
	s.mu.Unlock()
	return names, nil
}

// refsFlushed marks the prepared refs names durable, or removes them when
// their flush failed.
func (s *Store) refsFlushed(names []string, ok bool) {
	if len(names) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.prepared[:0]
	for _, p := range s.prepared {
		if !contains(names, p.path) {
			kept = append(kept, p)
		} else if ok {
			p.durable = true
			kept = append(kept, p)
		} else {
			os.Remove(p.path)
		}
	}
	s.prepared = kept
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// takePrepared returns a durable prepared ref holding d, now the
// caller's, or "" if there is none.
func (s *Store) takePrepared(d digest.Digest) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, p := range s.prepared {
		if p.d == d && p.durable {
			s.prepared = append(s.prepared[:i], s.prepared[i+1:]...)
			return p.path
		}
	}
	return ""
}

// PutPackEntry commits the pack d: it makes every object this Store
// created durable, then writes packs/<hex of d>, the commit point,
// durably and without replacing (steps 2 to 4 above). Writing the same
// bytes again is a no-op; other bytes under the same name are
// ErrImmutable.
func (s *Store) PutPackEntry(d digest.Digest, entry []byte) (created bool, err error) {
	return s.PutPackEntryFunc(d, entry, nil)
}

// PutPackEntryFunc is PutPackEntry, but an existing entry with other
// bytes is kept, not an error, when same reports that it says the same
// of the pack (an entry written by an earlier version of ctx).
func (s *Store) PutPackEntryFunc(d digest.Digest, entry []byte, same func(old []byte) bool) (created bool, err error) {
	if err := s.HoldWrites(); err != nil {
		return false, err
	}
	dir := filepath.Join(s.root, "packs")
	name := filepath.Join(dir, d.Hex())
	if err := s.ensureDir(dir); err != nil {
		return false, err
	}
	// Re-packing is common: an existing entry costs a read, and a flush
	// only if objects it names had to be written again.
	if _, err := os.Lstat(name); err == nil {
		if err := s.Sync(); err != nil {
			return false, fmt.Errorf("committing pack %s: %w", d, err)
		}
		return false, samePackEntry(d, name, entry, same)
	}
	tmp, err := writeTemp(dir, ".tmp-"+d.Hex()+"-", entry, 0o444)
	if err != nil {
		return false, fmt.Errorf("writing pack entry %s: %w", d, err)
	}
	linked := false
	defer func() {
		if !linked {
			os.Remove(tmp)
		}
	}()
	refs, err := s.prepareRefs(d)
	if err != nil {
		return false, err
	}
	crashPoint("written")
	err = s.syncWith(append(refs, tmp))
	s.refsFlushed(refs, err == nil)
	if err != nil {
		return false, fmt.Errorf("committing pack %s: %w", d, err)
	}
	crashPoint("flushed")
	err = linkNew(tmp, name)
	if errors.Is(err, fs.ErrExist) {
		// Another writer committed it meanwhile.
		return false, samePackEntry(d, name, entry, same)
	}
	if err != nil {
		return false, fmt.Errorf("writing pack entry %s: %w", d, err)
	}
	// Before packs/ is synced, so that its one write drops the temporary
	// name as well.
	linked = true
	os.Remove(tmp)
	crashPoint("linked")
	if s.sync != SyncNone {
		if err := syncDir(dir); err != nil {
			return false, fmt.Errorf("writing pack entry %s: %w", d, err)
		}
	}
	return true, nil
}

// samePackEntry checks that the existing entry name holds entry, and sets
// its time to now.
func samePackEntry(d digest.Digest, name string, entry []byte, same func([]byte) bool) error {
	old, err := ReadFile(name, MaxEntrySize)
	if err != nil {
		return fmt.Errorf("reading pack entry %s: %w", d, err)
	}
	if !bytes.Equal(old, entry) && (same == nil || !same(old)) {
		return fmt.Errorf("pack entry %s exists with other bytes: %w", d, ErrImmutable)
	}
	// Packed again: the entry's time is when the pack was last made,
	// which orders the snapshots of a session created at one instant
	// (best effort: a store someone else owns keeps its times).
	touch(name)
	return nil
}

// writeTemp writes b to a new file in dir named prefix followed by random
// characters, with mode perm, and returns its name. Nothing is flushed.
func writeTemp(dir, prefix string, b []byte, perm fs.FileMode) (string, error) {
	f, err := os.CreateTemp(dir, prefix)
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
