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
	if err := checkPlainName("tag", name); err != nil {
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

// checkPlainName accepts one plain file name: letters, digits, '.', '_'
// and '-', starting with a letter or digit, at most 128 bytes.
func checkPlainName(kind, name string) error {
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

// Ref returns what the ref name ("latest" or a tag) points at.
func (s *Store) Ref(name string) (digest.Digest, error) {
	b, err := os.ReadFile(s.refPath(name))
	if errors.Is(err, fs.ErrNotExist) {
		return digest.Digest{}, fmt.Errorf("ref %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return digest.Digest{}, fmt.Errorf("reading ref %s: %w", name, err)
	}
	d, err := digest.Parse(strings.TrimSpace(string(b)))
	if err != nil || !strings.HasPrefix(string(b), "sha256:") {
		return digest.Digest{}, &CorruptError{What: "ref " + name, Err: fmt.Errorf("content %q is not sha256:<hex>", strings.TrimSpace(string(b)))}
	}
	return d, nil
}

// UpdateRef sets ref name under its lock file: update gets the current
// target (nil if unset) and returns the new one. An error from update
// leaves the ref unchanged. Concurrent updaters are serialised.
func (s *Store) UpdateRef(name string, update func(old *digest.Digest) (digest.Digest, error)) error {
	path := s.refPath(name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("updating ref %s: %w", name, err)
	}
	lock, err := acquire(path + ".lock")
	if err != nil {
		return fmt.Errorf("updating ref %s: %w", name, err)
	}
	committed := false
	defer func() {
		if !committed {
			lock.Close()
			os.Remove(lock.Name())
		}
	}()
	var old *digest.Digest
	if d, err := s.Ref(name); err == nil {
		old = &d
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	d, err := update(old)
	if err != nil {
		return err
	}
	if old != nil && *old == d {
		return nil // unchanged: no write, no fsync
	}
	if _, err := lock.WriteString(d.String() + "\n"); err != nil {
		return fmt.Errorf("updating ref %s: %w", name, err)
	}
	if err := lock.Sync(); err != nil {
		return fmt.Errorf("updating ref %s: %w", name, err)
	}
	if err := lock.Close(); err != nil {
		return fmt.Errorf("updating ref %s: %w", name, err)
	}
	if err := os.Rename(lock.Name(), path); err != nil {
		return fmt.Errorf("updating ref %s: %w", name, err)
	}
	committed = true
	return syncDir(filepath.Dir(path))
}

// acquire creates the lock file, waiting while another process holds it.
func acquire(name string) (*os.File, error) {
	deadline := time.Now().Add(LockTimeout)
	wait := time.Millisecond
	for {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is held by another process (if none is running, a crashed one left it: remove it)", name)
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// Tag is a named ref under refs/tags.
type Tag struct {
	Name   string
	Target digest.Digest
}
