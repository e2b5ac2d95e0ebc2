package secrets

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sync"

	"github.com/ctx-tools/ctx/lib/digest"
)

// Cache remembers the objects a rule set found clean, so that scanning
// them again costs nothing. It is a file of hex digests, one a line, per
// rule-set version, appended to; an unreadable or torn line only means an
// object is scanned again. A nil *Cache remembers nothing.
//
// It lives in the user's cache directory, never in a store: stores are
// copied and pulled from others, and a verdict that an object is clean is
// one only this user's own scans may give.
type Cache struct {
	path string

	mu    sync.Mutex
	clean map[digest.Digest]bool
	added []digest.Digest
}

// DefaultCacheDir is $XDG_CACHE_HOME/ctx/secrets (os.UserCacheDir), or
// "" when $CTX_SECRETS_CACHE is "off" or there is no cache directory.
func DefaultCacheDir() string {
	if os.Getenv("CTX_SECRETS_CACHE") == "off" {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ctx", "secrets")
}

// OpenCache reads the verdicts kept in dir for the scanner's rule set. An
// empty dir gives a nil Cache; a missing or unreadable file an empty one.
func OpenCache(dir string, s *Scanner) *Cache {
	if dir == "" {
		return nil
	}
	c := &Cache{path: filepath.Join(dir, s.Version()+".clean"), clean: map[digest.Digest]bool{}}
	b, err := os.ReadFile(c.path)
	if err != nil {
		return c
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if d, err := digest.Parse("sha256:" + sc.Text()); err == nil {
			c.clean[d] = true
		}
	}
	return c
}

// Clean reports whether d was found clean before.
func (c *Cache) Clean(d digest.Digest) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clean[d]
}

// add records d as clean; Save writes it.
func (c *Cache) add(d digest.Digest) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.clean[d] {
		c.clean[d] = true
		c.added = append(c.added, d)
	}
}

// Save appends the verdicts added since it was opened, in one write. A
// cache that cannot be written is no error: the next scan is only slower.
func (c *Cache) Save() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.added) == 0 {
		return
	}
	var b bytes.Buffer
	for _, d := range c.added {
		b.WriteString(d.Hex())
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	_, err = f.Write(b.Bytes())
	if f.Close() == nil && err == nil {
		c.added = nil
	}
}
