package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
)

// Latest is the ref moved by every ctx-pack.
const Latest = "latest"

// LockTimeout is how long UpdateRef waits for another writer's lock.
var LockTimeout = 10 * time.Second

// CheckTagName reports whether name can be a tag: letters, digits, '.', '_'
// and '-', starting with a letter or digit; not "latest"; and not all hex
// digits of length 4 or more, which would read as a hash prefix.
func CheckTagName(name string) error {
	if name == "" {
		return errors.New("empty tag name")
	}
	if name == Latest {
		return fmt.Errorf("tag name %q is reserved", name)
	}
	if err := CheckPlainName("tag", name); err != nil {
		return err
	}
	if strings.HasSuffix(name, ".lock") || strings.Contains(name, "..") {
		return fmt.Errorf("invalid tag name %q", name)
	}
	if len(name) >= 4 && digest.IsHex(name) {
		return fmt.Errorf("invalid tag name %q: it would read as a hash prefix", name)
	}
	return nil
}

// CheckPlainName accepts one plain file name: letters, digits, '.', '_'
// and '-', starting with a letter or digit, at most 128 bytes. kind names
// what the name is for in the error (tag, draft, remote).
func CheckPlainName(kind, name string) error {
	if len(name) > 128 {
		return fmt.Errorf("%s name %q is longer than 128 characters", kind, name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || i > 0 && (c == '.' || c == '_' || c == '-')
		if !ok {
			return fmt.Errorf("invalid %s name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", kind, name)
		}
	}
	return nil
}

// refPath maps "latest" to refs/latest and a tag name to refs/tags/NAME.
func (s *Store) refPath(name string) string {
	if name == Latest {
		return filepath.Join(s.root, "refs", Latest)
	}
	return filepath.Join(s.root, "refs", "tags", name)
}

// Ref returns what the ref name ("latest" or a tag) points at. Refs are
// read only from the store's own refs/ and refs/tags/ directories, never
// through a symlink.
func (s *Store) Ref(name string) (digest.Digest, error) {
	if err := s.refDirs(name); err != nil {
		return digest.Digest{}, fmt.Errorf("reading ref %s: %w", name, err)
	}
	b, err := ReadFile(s.refPath(name), MaxRefSize)
	if errors.Is(err, fs.ErrNotExist) {
		return digest.Digest{}, fmt.Errorf("ref %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return digest.Digest{}, fmt.Errorf("reading ref %s: %w", name, err)
	}
	d, err := digest.Parse(strings.TrimSpace(string(b)))
	if err != nil || !strings.HasPrefix(string(b), "sha256:") {
		text := strings.TrimSpace(string(b))
		if len(text) > 80 {
			text = text[:80] + "…"
		}
		return digest.Digest{}, &CorruptError{What: "ref " + name, Err: fmt.Errorf("content %q is not sha256:<hex>", text)}
	}
	return d, nil
}

// UpdateRef sets ref name under the lock of its directory: update gets
// the current target (nil if unset) and returns the new one. An error from
// update leaves the ref unchanged. Concurrent updaters are serialised; the
// lock dies with its holder (see lockDir).
func (s *Store) UpdateRef(name string, update func(old *digest.Digest) (digest.Digest, error)) error {
	l, err := s.LockRef(name)
	if err != nil {
		return err
	}
	defer l.Unlock()
	old, err := l.Get()
	if err != nil {
		return err
	}
	d, err := update(old)
	if err != nil {
		return err
	}
	return l.Set(d)
}

// RefLock holds the lock of a ref, for a caller that must decide on the
// ref before doing something else and set it after (ctx-pack --tag), with
// no other writer of the ref in between. Every ref in the same directory
// (refs/tags/ for tags) waits meanwhile.
type RefLock struct {
	s      *Store
	name   string
	path   string
	unlock func()
}

// LockRef takes the lock of ref name, waiting up to LockTimeout.
func (s *Store) LockRef(name string) (*RefLock, error) {
	path := s.refPath(name)
	dir := filepath.Dir(path)
	if err := s.storeDir(filepath.Join(s.root, "refs")); err != nil {
		return nil, fmt.Errorf("updating ref %s: %w", name, err)
	}
	if err := s.storeDir(dir); err != nil {
		return nil, fmt.Errorf("updating ref %s: %w", name, err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, fmt.Errorf("updating ref %s: %w", name, err)
	}
	return &RefLock{s: s, name: name, path: path, unlock: unlock}, nil
}

// Get returns what the ref points at, nil if it is unset.
func (l *RefLock) Get() (*digest.Digest, error) {
	d, err := l.s.Ref(l.name)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// Set points the ref at d, durably; unchanged refs are not written.
func (l *RefLock) Set(d digest.Digest) error {
	if old, err := l.Get(); err == nil && old != nil && *old == d {
		return nil // unchanged: no write, no fsync
	}
	if p := l.s.takePrepared(d); p != "" {
		// Its bytes were flushed with the pack's objects, before the
		// pack's entry was linked (commit.go): naming it durably is all
		// that is left.
		crashPoint("ref")
		err := os.Rename(p, l.path)
		if err == nil {
			err = syncDir(filepath.Dir(l.path))
		}
		if err != nil {
			os.Remove(p)
			return fmt.Errorf("updating ref %s: %w", l.name, err)
		}
		return nil
	}
	if err := l.s.writeRef(l.path, d); err != nil {
		return fmt.Errorf("updating ref %s: %w", l.name, err)
	}
	return nil
}

// Delete removes the ref, durably. Only tags can go: latest is moved by
// every ctx-pack, never removed. A ref that is not set is ErrNotFound.
func (l *RefLock) Delete() error {
	if l.name == Latest {
		return fmt.Errorf("removing ref %s: it is not a tag", l.name)
	}
	if _, err := l.s.Ref(l.name); err != nil {
		return err
	}
	if err := os.Remove(l.path); err != nil {
		return fmt.Errorf("removing tag %s: %w", l.name, err)
	}
	if err := syncDir(filepath.Dir(l.path)); err != nil {
		return fmt.Errorf("removing tag %s: %w", l.name, err)
	}
	return nil
}

// Unlock releases the lock; calling it again does nothing.
func (l *RefLock) Unlock() {
	if l.unlock != nil {
		l.unlock()
		l.unlock = nil
	}
}

// writeRef replaces the ref file at path with d, durably, through a
// temporary file in tmp/ (where a crash leaves only garbage that is safe
// to delete).
func (s *Store) writeRef(path string, d digest.Digest) error {
	return WriteOptions{Perm: 0o644, TmpDir: filepath.Join(s.root, "tmp"), TmpPrefix: "ref-"}.WriteFile(path, []byte(d.String()+"\n"))
}

// Tag is a named ref under refs/tags.
type Tag struct {
	Name   string
	Target digest.Digest
}

// refDirs checks that the directories holding ref name are directories of
// the store, not symlinks that lead out of it. A missing one is fine: the
// ref is then not found.
func (s *Store) refDirs(name string) error {
	rel := "refs"
	if name != Latest {
		rel = "refs/tags"
	}
	if err := s.CheckDir(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
